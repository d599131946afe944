// The files the suite uploads. A server may check content as well as names (leading bytes, structure), so each
// file is a valid file of the type its extension names, padded inside the format to the size asked for; a size
// below the smallest valid file of the type gives that smallest file instead.
import { createHash } from 'node:crypto';
import { crc32 } from 'node:zlib';
import { extensionOf } from './contract.ts';

/** A file the suite uploads: its bytes derive from its name and size, so recordings can keep digests only. */
export interface TestFile {
  name: string;
  bytes: Buffer;
  sha256: string;
}

export const sha256 = (bytes: Buffer) => createHash('sha256').update(bytes).digest('hex');

/** Every test file made in this process, by digest: a recording names them instead of keeping their bytes. */
const made = new Map<string, { name: string; size: number }>();

export function testFile(name: string, size = 1024): TestFile {
  const seed = createHash('sha256').update(`${name}:${size}`).digest();
  const bytes = (BUILDERS.get(extensionOf(name)) ?? opaque)(seed, size);
  const digest = sha256(bytes);
  made.set(digest, { name, size });
  return { name, bytes, sha256: digest };
}

/** The name and size of the test file with these bytes, if this process made one. */
export function knownTestFile(bytes: Buffer): { name: string; size: number } | undefined {
  return made.get(sha256(bytes));
}

/** The bytes of a file of `size` bytes (or the smallest valid one, if larger), marked by `seed`. */
type Builder = (seed: Buffer, size: number) => Buffer;

// ---------------------------------------------------------------------------------------------------------------
// Byte helpers

/**
 * How many of the seed's hex digits every file carries at least (GSM and AMR frames carry its bytes), so that two
 * names or sizes never share bytes, even at the smallest size.
 */
const MARK = 16;

/** The seed's hex digits, repeated to `length` bytes: printable, so valid in every padding. */
const digits = (seed: Buffer, length: number) => Buffer.alloc(length, seed.toString('hex'));

/** At least MARK of the seed's digits. */
const marks = (seed: Buffer, length: number) => digits(seed, Math.max(length, MARK));

type Part = Buffer | string;
const join = (parts: Part[]) => Buffer.concat(parts.map((part) => (typeof part === 'string' ? Buffer.from(part, 'latin1') : part)));
const hex = (text: string) => Buffer.from(text.replace(/\s+/g, ''), 'hex');
const u8 = (...values: number[]) => Buffer.from(values);
const sum = (values: number[]) => values.reduce((total, value) => total + value, 0);

function uint(bytes: number, write: (buffer: Buffer, value: number) => unknown) {
  return (value: number) => {
    const buffer = Buffer.alloc(bytes);
    write(buffer, value);
    return buffer;
  };
}
const u16be = uint(2, (b, v) => b.writeUInt16BE(v));
const u32be = uint(4, (b, v) => b.writeUInt32BE(v));
const u16le = uint(2, (b, v) => b.writeUInt16LE(v));
const u32le = uint(4, (b, v) => b.writeUInt32LE(v));

/** `count` lengths as even as can be that add up to `total`. */
function evenSplit(total: number, count: number): number[] {
  const base = Math.floor(total / count);
  return Array.from({ length: count }, (_, i) => base + (i < total % count ? 1 : 0));
}

/**
 * Payload lengths of the fewest chunks (a `header` of fixed size, then at most `max` bytes) that fill `budget`
 * exactly; the caller keeps `budget` at least one header.
 */
function chunked(budget: number, header: number, max: number): number[] {
  const count = Math.max(1, Math.ceil(budget / (header + max)));
  return evenSplit(budget - header * count, count);
}

/**
 * The pieces `make` builds for these lengths, in order. The lengths come from evenSplit, so they fall in at most
 * two stretches of equal pieces, each one native fill however many thousand pieces it holds.
 */
function runs(lengths: number[], make: (length: number) => Buffer): Buffer {
  const stretches: [number, number][] = [];
  for (const length of lengths) {
    const last = stretches.at(-1);
    if (last?.[0] === length) last[1]++;
    else stretches.push([length, 1]);
  }
  return join(
    stretches.map(([length, count]) => {
      const piece = make(length);
      return Buffer.alloc(piece.length * count, piece);
    }),
  );
}

/** Chunks of these payload lengths: each its header, then as many of the seed's digits. */
const chunks = (seed: Buffer, lengths: number[], head: (length: number) => Part) => runs(lengths, (length) => join([head(length), digits(seed, length)]));

/** MS-DOS date of 1980-01-01, 00:00: a fixed time keeps the archives deterministic. */
const DOS_EPOCH_DATE = 0x21;

// ---------------------------------------------------------------------------------------------------------------
// Images

function png(seed: Buffer, size: number): Buffer {
  const chunk = (type: string, data: Buffer) => {
    const name = Buffer.from(type, 'latin1');
    return join([u32be(data.length), name, data, u32be(crc32(data, crc32(name)))]);
  };
  const header = chunk('IHDR', hex('00000001 00000001 08 00 00 00 00'));
  // One black pixel: filter byte 0 and grey level 0, deflated.
  const image = chunk('IDAT', hex('789c6360000000020001'));
  const end = chunk('IEND', Buffer.alloc(0));
  const keyword = 'Comment\0';
  const text = marks(seed, size - 8 - header.length - 12 - keyword.length - image.length - end.length);
  return join([hex('89504e470d0a1a0a'), header, chunk('tEXt', join([keyword, text])), image, end]);
}

/** A 1x1 grey baseline JPEG after its comments: tables, frame and a scan whose only block is all zero. */
const JPEG_IMAGE = hex(`
  ffdb 0043 00 ${'01'.repeat(64)}
  ffc0 000b 08 0001 0001 01 01 11 00
  ffc4 0014 00 01 ${'00'.repeat(15)} 00
  ffc4 0014 10 01 ${'00'.repeat(15)} 00
  ffda 0008 01 01 00 00 3f 00
  3f
  ffd9`);

function jpeg(seed: Buffer, size: number): Buffer {
  const start = hex('ffd8 ffe0 0010 4a46494600 0101 00 0001 0001 00 00');
  // A COM segment holds at most 65533 bytes; larger files take several.
  const lengths = chunked(Math.max(size - start.length - JPEG_IMAGE.length, 4 + MARK), 4, 65533);
  return join([start, chunks(seed, lengths, (n) => join([hex('fffe'), u16be(n + 2)])), JPEG_IMAGE]);
}

function gif(seed: Buffer, size: number): Buffer {
  const screen = hex('474946383961 0100 0100 80 00 00 000000 ffffff');
  const image = hex('2c 0000 0000 0100 0100 00 02 02 4401 00 3b');
  // Comment data travels in sub-blocks of at most 255 bytes, closed by an empty one.
  const lengths = chunked(Math.max(size - screen.length - 3 - image.length, 1 + MARK), 1, 255);
  return join([screen, hex('21fe'), chunks(seed, lengths, (n) => u8(n)), u8(0), image]);
}

function svg(seed: Buffer, size: number): Buffer {
  const before = '<?xml version="1.0" encoding="UTF-8"?>\n<svg xmlns="http://www.w3.org/2000/svg" width="1" height="1" viewBox="0 0 1 1"><!-- ';
  const after = ' --><rect width="1" height="1" fill="#fff"/></svg>\n';
  return join([before, marks(seed, size - before.length - after.length), after]);
}

const box = (type: string, body: Buffer) => join([u32be(8 + body.length), type, body]);

/**
 * A movie of no tracks, only its header (timescale 1000, duration 0, rate and volume 1, identity matrix, next track
 * 1): readers of MP4, M4A and 3GP files will not open one without a movie.
 */
const EMPTY_MOVIE = box(
  'moov',
  box('mvhd', hex(`00000000 00000000 00000000 000003e8 00000000 00010000 0100 0000 ${'00'.repeat(8)}
    00010000 00000000 00000000 00000000 00010000 00000000 00000000 00000000 40000000 ${'00'.repeat(24)} 00000001`)),
);

/** An ISO base media file: its `ftyp` box of these brands, then `boxes`, then a `free` box of padding. */
function isoMedia(major: string, compatible: string[], ...boxes: Buffer[]): Builder {
  return function isoMediaFile(seed, size) {
    const head = join([box('ftyp', join([major, u32be(0), ...compatible])), ...boxes]);
    return join([head, box('free', marks(seed, size - head.length - 8))]);
  };
}

// ---------------------------------------------------------------------------------------------------------------
// Audio and video

/**
 * Four MPEG-1 Layer III frames (32 kbit/s, 48 kHz, mono) of silence, all side information zero: readers want a
 * few in a row to trust the sync.
 */
const MP3_FRAMES = Buffer.concat(Array.from({ length: 4 }, () => join([hex('fffb14c4'), Buffer.alloc(92)])));

function mp3(seed: Buffer, size: number): Buffer {
  const text = marks(seed, size - 10 - 10 - 5 - MP3_FRAMES.length);
  const comment = join(['COMM', u32be(5 + text.length), u8(0, 0), u8(0), 'eng', u8(0), text]);
  const tagSize = comment.length;
  const syncsafe = u8((tagSize >> 21) & 0x7f, (tagSize >> 14) & 0x7f, (tagSize >> 7) & 0x7f, tagSize & 0x7f);
  return join(['ID3', u8(3, 0, 0), syncsafe, comment, MP3_FRAMES]);
}

function mpegProgram(seed: Buffer, size: number): Buffer {
  // MPEG-2 pack header (SCR 0, 10.08 Mbit/s) and the system header the first pack must carry, declaring one audio
  // stream (0xc0); a PES packet of that stream (PTS 0) carries the MP3 frames.
  const pack = hex('000001ba 4400 0400 0401 0189c3 f8');
  const system = hex('000001bb 0009 80c4e1 04 20 7f c0c020');
  const audioHeader = hex('84 80 05 2100010001');
  const audio = join([hex('000001c0'), u16be(audioHeader.length + MP3_FRAMES.length), audioHeader, MP3_FRAMES]);
  const end = hex('000001b9');
  // The padding travels in private_stream_2 packets, whose payload is free and at most 65535 bytes.
  const lengths = chunked(Math.max(size - pack.length - system.length - audio.length - end.length, 6 + MARK), 6, 65535);
  return join([pack, system, audio, chunks(seed, lengths, (n) => join([hex('000001bf'), u16be(n)])), end]);
}

// RIFF and IFF pad an odd chunk to an even length; the sample chunk ends these files, so an odd size is kept exact
// by leaving out that last pad byte, as many writers do.

function wave(seed: Buffer, size: number): Buffer {
  const samples = marks(seed, size - 44);
  const format = join([u16le(1), u16le(1), u32le(8000), u32le(8000), u16le(1), u16le(8)]);
  return join(['RIFF', u32le(36 + samples.length), 'WAVE', 'fmt ', u32le(16), format, 'data', u32le(samples.length), samples]);
}

/** 8000 as an IEEE 754 80-bit extended number, the sample rate of AIFF. */
const AIFF_RATE = hex('400b fa00 0000 0000 0000');

function aiff(seed: Buffer, size: number): Buffer {
  const samples = marks(seed, size - 54);
  const common = join([u16be(1), u32be(samples.length), u16be(8), AIFF_RATE]);
  return join(['FORM', u32be(46 + samples.length), 'AIFF', 'COMM', u32be(18), common, 'SSND', u32be(8 + samples.length), u32be(0), u32be(0), samples]);
}

function aifc(seed: Buffer, size: number): Buffer {
  const samples = marks(seed, size - 86);
  const common = join([u16be(1), u32be(samples.length), u16be(8), AIFF_RATE, 'NONE', u8(14), 'not compressed', u8(0)]);
  const version = join(['FVER', u32be(4), hex('a2805140')]);
  return join(['FORM', u32be(78 + samples.length), 'AIFC', version, 'COMM', u32be(38), common, 'SSND', u32be(8 + samples.length), u32be(0), u32be(0), samples]);
}

/** Table of Ogg's CRC-32 (polynomial 0x04c11db7, most significant bit first, no initial value or final xor). */
const OGG_CRC = Int32Array.from({ length: 256 }, (_, byte) => {
  let r = byte << 24;
  for (let bit = 0; bit < 8; bit++) r = r & 0x80000000 ? (r << 1) ^ 0x04c11db7 : r << 1;
  return r;
});

/** Ogg's CRC of `bytes`, continuing from `crc`. */
function oggCrc(bytes: ArrayLike<number>, crc = 0): number {
  for (let i = 0; i < bytes.length; i++) crc = (crc << 8) ^ OGG_CRC[((crc >>> 24) ^ bytes[i]) & 0xff];
  return crc >>> 0;
}

// With no final xor, `count` zero bytes multiply the CRC by x^(8·count) modulo the polynomial: padding of zeros
// costs one product instead of a step per byte.

/** x^(8·count) modulo Ogg's polynomial. */
function zeroBytes(count: number): number {
  let power = 1;
  for (let i = 0; i < count; i++) power = (power << 8) ^ OGG_CRC[power >>> 24];
  return power >>> 0;
}

/** a·b modulo Ogg's polynomial. */
function multiply(a: number, b: number): number {
  let product = 0;
  for (let bit = 31; bit >= 0; bit--) {
    product = product & 0x80000000 ? (product << 1) ^ 0x04c11db7 : product << 1;
    if ((b >>> bit) & 1) product ^= a;
  }
  return product >>> 0;
}

/**
 * Ogg Opus: the identification and comment headers (the mark in a comment), then pages of up to 255 packets of
 * 20 ms of silence. Opus's own packet padding (code 3, zero bytes) sizes each packet, so the pages add up exactly.
 */
function ogg(seed: Buffer, size: number): Buffer {
  const vendor = 'conformance-suite';
  const head = join(['OpusHead', u8(1, 1), u16le(0), u32le(48000), u16le(0), u8(0)]);
  const tags = join(['OpusTags', u32le(vendor.length), vendor, u32le(1), u32le(8 + MARK), 'COMMENT=', marks(seed, MARK)]);
  const budget = Math.max(size - (28 + head.length) - (28 + tags.length), 28 + 5);
  // A packet takes 5 to 254 bytes and one lacing value; a page, 27 bytes and up to 255 packets.
  const capacity = (packets: number) => 27 * Math.ceil(packets / 255) + 255 * packets;
  let count = Math.ceil(budget / 256);
  while (capacity(count) < budget) count++;
  const pages = Math.ceil(count / 255);
  const paddings = evenSplit(budget - 27 * pages - 6 * count, count);
  const zeros = new Map(paddings.map((padding) => [padding, 0]));
  for (const padding of zeros.keys()) zeros.set(padding, zeroBytes(padding));

  const out = Buffer.alloc(28 + head.length + 28 + tags.length + budget);
  const serial = seed.readUInt32LE(0);
  let at = 0;
  /** A page; `body` writes its packets and returns the CRC continued over them. */
  const page = (flags: number, granule: number, sequence: number, lacing: number[], body: (crc: number) => number) => {
    const start = at;
    out.write('OggS', at, 'latin1');
    out[at + 5] = flags;
    out.writeUInt32LE(granule, at + 6);
    out.writeUInt32LE(serial, at + 14);
    out.writeUInt32LE(sequence, at + 18);
    out[at + 26] = lacing.length;
    lacing.forEach((value, i) => (out[at + 27 + i] = value));
    at += 27 + lacing.length;
    out.writeUInt32LE(body(oggCrc(out.subarray(start, at))), start + 22);
  };
  const whole = (packet: Buffer) => (crc: number) => {
    at += packet.copy(out, at);
    return oggCrc(packet, crc);
  };
  page(0x02, 0, 0, [head.length], whole(head));
  page(0x00, 0, 1, [tags.length], whole(tags));
  for (let p = 0; p < pages; p++) {
    const own = paddings.slice(255 * p, 255 * (p + 1));
    const done = Math.min(255 * (p + 1), count);
    page(p === pages - 1 ? 0x04 : 0x00, 960 * done, 2 + p, own.map((padding) => 5 + padding), (crc) => {
      for (const padding of own) {
        // TOC: CELT fullband 20 ms, mono, code 3; one frame, padded; the frame is Opus's usual silence (ff fe).
        const start = [0xfb, 0x41, padding, 0xff, 0xfe];
        out.set(start, at);
        at += start.length + padding;
        crc = multiply(oggCrc(start, crc), zeros.get(padding)!);
      }
      return crc;
    });
  }
  return out;
}

/** A raw AAC-LC element of silence: a mono channel element with no bands (max_sfb 0), then ID_END. */
const AAC_SILENCE = hex('00000007');

/** ADTS frames (AAC-LC, 44.1 kHz, mono), the mark in data stream elements, which decoders skip. */
function adts(seed: Buffer, size: number): Buffer {
  const frames = chunked(Math.max(size, 7 + 2 + MARK + AAC_SILENCE.length), 7 + AAC_SILENCE.length, 8191 - 7 - AAC_SILENCE.length);
  return runs(frames, (budget) => {
    const length = 7 + budget + AAC_SILENCE.length;
    const header = u8(0xff, 0xf1, 0x50, 0x40 | (length >> 11), (length >> 3) & 0xff, ((length & 7) << 5) | 0x1f, 0xfc);
    // Data stream elements: ID_DSE, tag 0, byte-aligned, then a count below 255 and that many bytes.
    return join([header, chunks(seed, chunked(budget, 2, 254), (n) => u8(0x81, n)), AAC_SILENCE]);
  });
}

function amr(seed: Buffer, size: number): Buffer {
  // Speech frames of the 4.75 and 5.15 kbit/s modes, 13 and 14 bytes (any bits decode; here the seed's), add up to
  // every size from twelve frames on: n frames, as many of them the longer as the size needs.
  const room = Math.max(size - 6, 12 * 13);
  const count = Math.ceil(room / 14);
  const longer = room - 13 * count;
  const frame = (mode: number, length: number) => join([u8((mode << 3) | 0x04), seed.subarray(0, length - 1)]);
  return join(['#!AMR\n', Buffer.alloc(13 * (count - longer), frame(0, 13)), Buffer.alloc(14 * longer, frame(1, 14))]);
}

function gsm(seed: Buffer, size: number): Buffer {
  // Raw GSM 06.10 is 33-byte frames, each the 0xD signature nibble and 260 bits of parameters (here the seed's, so
  // the file is binary as real ones are). It has no header that could hold a remainder: a size off the frame grid
  // ends in a partial frame, which decoders refuse after decoding the whole ones.
  const frame = join([u8(0xd0 | (seed[0] >> 4)), seed]);
  return Buffer.alloc(Math.max(size, frame.length), frame);
}

function ulaw(seed: Buffer, size: number): Buffer {
  const samples = marks(seed, size - 28);
  // Sun .snd: data offset, size, encoding 1 (8-bit mu-law), 8000 Hz, mono, then an empty four-byte annotation.
  return join(['.snd', u32be(28), u32be(samples.length), u32be(1), u32be(8000), u32be(1), Buffer.alloc(4), samples]);
}

// ---------------------------------------------------------------------------------------------------------------
// Documents

function pdf(seed: Buffer, size: number): Buffer {
  const objects = [
    '<< /Type /Catalog /Pages 2 0 R >>',
    '<< /Type /Pages /Kids [3 0 R] /Count 1 >>',
    '<< /Type /Page /Parent 2 0 R /MediaBox [0 0 72 72] /Resources << >> >>',
  ];
  let head = '%PDF-1.4\n%\xe2\xe3\xcf\xd3\n';
  const offsets = objects.map((object, i) => {
    const offset = head.length;
    head += `${i + 1} 0 obj\n${object}\nendobj\n`;
    return offset;
  });
  offsets.push(head.length);
  // A fixed-width length keeps every offset before the padding independent of it.
  const stream = (length: number) => `4 0 obj\n<< /Length ${String(length).padEnd(10)}>>\nstream\n`;
  const streamEnd = '\nendstream\nendobj\n';
  const xref = `xref\n0 5\n0000000000 65535 f \n${offsets.map((o) => `${String(o).padStart(10, '0')} 00000 n \n`).join('')}trailer\n<< /Size 5 /Root 1 0 R >>\nstartxref\n`;
  const build = (length: number, eol: string) => {
    const xrefAt = head.length + stream(length).length + length + streamEnd.length;
    return join([head, stream(length), marks(seed, length), streamEnd, xref, `${xrefAt}\n%%EOF${eol}`]);
  };
  // startxref's digits grow with the padding, skipping a size where they gain one; a CRLF after %%EOF fills it.
  const fixed = head.length + stream(0).length + streamEnd.length + xref.length + '\n%%EOF'.length;
  for (const eol of ['\n', '\r\n'])
    for (let width = 1; width <= 10; width++) {
      const length = size - fixed - width - eol.length;
      if (length >= MARK && String(head.length + stream(0).length + length + streamEnd.length).length === width) return build(length, eol);
    }
  return build(MARK, '\n');
}

/**
 * An OLE compound file (version 3): header, FAT, one directory sector, then two streams: the summary information,
 * whose application name is how file(1) and others tell Word, Excel and PowerPoint apart, and the document stream,
 * which holds the padding. Both are at least the 4096-byte mini-stream cutoff, so the file needs no mini stream; a
 * size off the 512-byte grid ends in a partial sector, holding the document stream's last bytes.
 */
function compoundFile(stream: string, application: string, clsid: string): Builder {
  const [SECTOR, CUTOFF] = [512, 4096];
  const [FREE, END, FAT, NONE] = [0xffffffff, 0xfffffffe, 0xfffffffd, 0xffffffff];
  const SUMMARY = '\u0005SummaryInformation';
  const appName = Buffer.alloc(4 * Math.ceil((application.length + 1) / 4));
  appName.write(application, 'latin1');
  // One section (FMTID_SummaryInformation) holding the code page (1252) and PIDSI_APPNAME as a VT_LPSTR.
  const section = join([u32le(40 + appName.length), u32le(2), u32le(1), u32le(24), u32le(0x12), u32le(32), u16le(2), u16le(0), u16le(1252), u16le(0), u32le(0x1e), u32le(application.length + 1), appName]);
  const summary = Buffer.alloc(CUTOFF);
  join([u16le(0xfffe), u16le(0), u32le(0x0002000a), Buffer.alloc(16), u32le(1), hex('e0859ff2f94f6810ab9108002b27b3d9'), u32le(48), section]).copy(summary);
  // Siblings are ordered by name length, then by upper-cased name.
  const summaryFirst = SUMMARY.length < stream.length || (SUMMARY.length === stream.length && SUMMARY.toUpperCase() < stream.toUpperCase());
  const entry = (name: string, type: number, black: boolean, [left, right, child]: number[], classId: Buffer, start: number, length: number) => {
    const out = Buffer.alloc(128);
    out.write(name, 0, 'utf16le');
    out.writeUInt16LE(2 * (name.length + 1), 64);
    out.writeUInt8(type, 66);
    out.writeUInt8(black ? 1 : 0, 67);
    [left, right, child].forEach((sibling, i) => out.writeUInt32LE(sibling, 68 + 4 * i));
    classId.copy(out, 80);
    out.writeUInt32LE(start, 116);
    out.writeUInt32LE(length, 120);
    return out;
  };
  return function compoundDocument(seed, size) {
    let fatSectors = 1;
    const dataLength = () => Math.max(size - SECTOR * (2 + fatSectors) - CUTOFF, CUTOFF);
    while ((SECTOR / 4) * fatSectors < fatSectors + 1 + CUTOFF / SECTOR + Math.ceil(dataLength() / SECTOR)) fatSectors++;
    // The header lists at most 109 FAT sectors (about 7 MB of file); more would need DIFAT sectors.
    if (fatSectors > 109) throw new Error(`test-files: a compound file of ${size} bytes is not supported`);
    const data = marks(seed, dataLength());
    const [summaryAt, dataAt] = [fatSectors + 1, fatSectors + 1 + CUTOFF / SECTOR];

    const header = Buffer.alloc(SECTOR);
    hex('d0cf11e0a1b11ae1').copy(header, 0);
    [[24, 0x3e], [26, 3], [28, 0xfffe], [30, 9], [32, 6]].forEach(([at, value]) => header.writeUInt16LE(value, at));
    [[44, fatSectors], [48, fatSectors], [56, CUTOFF], [60, END], [68, END]].forEach(([at, value]) => header.writeUInt32LE(value, at));
    for (let i = 0; i < 109; i++) header.writeUInt32LE(i < fatSectors ? i : FREE, 76 + 4 * i);

    const fat = Buffer.alloc(SECTOR * fatSectors, 0xff);
    const chain = (first: number, count: number) => {
      for (let i = 0; i < count; i++) fat.writeUInt32LE(i === count - 1 ? END : first + i + 1, 4 * (first + i));
    };
    for (let i = 0; i < fatSectors; i++) fat.writeUInt32LE(FAT, 4 * i);
    chain(fatSectors, 1);
    chain(summaryAt, CUTOFF / SECTOR);
    chain(dataAt, Math.ceil(data.length / SECTOR));

    const none = Buffer.alloc(16);
    const directory = join([
      entry('Root Entry', 5, true, [NONE, NONE, 1], hex(clsid), END, 0),
      entry(stream, 2, true, summaryFirst ? [2, NONE, NONE] : [NONE, 2, NONE], none, dataAt, data.length),
      entry(SUMMARY, 2, false, [NONE, NONE, NONE], none, summaryAt, CUTOFF),
      entry('', 0, false, [NONE, NONE, NONE], none, 0, 0),
    ]);
    return join([header, fat, directory, summary, data]);
  };
}

/** A zip archive of stored entries. */
function zip(files: [string, Buffer][]): Buffer {
  const parts: Buffer[] = [];
  const directory: Buffer[] = [];
  let offset = 0;
  for (const [name, data] of files) {
    // Version needed 1.0, no flags, stored, time, date, CRC, sizes, name length, no extra field.
    const common = join([u16le(10), u16le(0), u16le(0), u16le(0), u16le(DOS_EPOCH_DATE), u32le(crc32(data)), u32le(data.length), u32le(data.length), u16le(name.length), u16le(0)]);
    parts.push(join([u32le(0x04034b50), common, name]), data);
    directory.push(join([u32le(0x02014b50), u16le(20), common, u16le(0), u16le(0), u16le(0), u32le(0), u32le(offset), name]));
    offset += 30 + name.length + data.length;
  }
  const central = join(directory);
  return join([...parts, central, u32le(0x06054b50), u16le(0), u16le(0), u16le(files.length), u16le(files.length), u32le(central.length), u32le(offset), u16le(0)]);
}

/** A zip of `files`, the last holding `before`, the padding, then `after`. */
function archive(seed: Buffer, size: number, files: [string, string][], [last, before, after]: [string, string, string]): Buffer {
  const names = [...files.map(([name]) => name), last];
  const fixed = 22 + sum(names.map((name) => 76 + 2 * name.length)) + sum(files.map(([, content]) => content.length)) + before.length + after.length;
  const padded = join([before, marks(seed, size - fixed), after]);
  return zip([...files.map(([name, content]): [string, Buffer] => [name, Buffer.from(content, 'latin1')]), [last, padded]]);
}

const XML = '<?xml version="1.0" encoding="UTF-8" standalone="yes"?>\n';
const OFFICE_RELATIONSHIPS = 'http://schemas.openxmlformats.org/officeDocument/2006/relationships';

const contentTypes = (overrides: Record<string, string>) =>
  `${XML}<Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types">` +
  '<Default Extension="rels" ContentType="application/vnd.openxmlformats-package.relationships+xml"/>' +
  '<Default Extension="xml" ContentType="application/xml"/>' +
  Object.entries(overrides)
    .map(([part, type]) => `<Override PartName="${part}" ContentType="application/vnd.openxmlformats-officedocument.${type}"/>`)
    .join('') +
  '</Types>';

const relationships = (type: string, target: string) =>
  `${XML}<Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships">` +
  `<Relationship Id="rId1" Type="${OFFICE_RELATIONSHIPS}/${type}" Target="${target}"/></Relationships>`;

// OOXML packages: the parts Office needs, the main part third (where file(1) looks), padded by an XML comment.

function docx(seed: Buffer, size: number): Buffer {
  const files: [string, string][] = [
    ['[Content_Types].xml', contentTypes({ '/word/document.xml': 'wordprocessingml.document.main+xml' })],
    ['_rels/.rels', relationships('officeDocument', 'word/document.xml')],
  ];
  const body = '<w:document xmlns:w="http://schemas.openxmlformats.org/wordprocessingml/2006/main"><w:body><w:p><w:r><w:t>Test file</w:t></w:r></w:p></w:body></w:document>';
  return archive(seed, size, files, ['word/document.xml', `${XML}<!-- `, ` -->\n${body}`]);
}

function xlsx(seed: Buffer, size: number): Buffer {
  const files: [string, string][] = [
    ['[Content_Types].xml', contentTypes({ '/xl/workbook.xml': 'spreadsheetml.sheet.main+xml', '/xl/worksheets/sheet1.xml': 'spreadsheetml.worksheet+xml' })],
    ['_rels/.rels', relationships('officeDocument', 'xl/workbook.xml')],
    [
      'xl/workbook.xml',
      `${XML}<workbook xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main" xmlns:r="${OFFICE_RELATIONSHIPS}"><sheets><sheet name="Sheet1" sheetId="1" r:id="rId1"/></sheets></workbook>`,
    ],
    ['xl/_rels/workbook.xml.rels', relationships('worksheet', 'worksheets/sheet1.xml')],
  ];
  const sheet = '<worksheet xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main"><sheetData/></worksheet>';
  return archive(seed, size, files, ['xl/worksheets/sheet1.xml', `${XML}<!-- `, ` -->\n${sheet}`]);
}

function pptx(seed: Buffer, size: number): Buffer {
  const files: [string, string][] = [
    ['[Content_Types].xml', contentTypes({ '/ppt/presentation.xml': 'presentationml.presentation.main+xml' })],
    ['_rels/.rels', relationships('officeDocument', 'ppt/presentation.xml')],
  ];
  const presentation =
    `<p:presentation xmlns:a="http://schemas.openxmlformats.org/drawingml/2006/main" xmlns:r="${OFFICE_RELATIONSHIPS}" xmlns:p="http://schemas.openxmlformats.org/presentationml/2006/main">` +
    '<p:sldSz cx="9144000" cy="6858000"/><p:notesSz cx="6858000" cy="9144000"/></p:presentation>';
  return archive(seed, size, files, ['ppt/presentation.xml', `${XML}<!-- `, ` -->\n${presentation}`]);
}

function odt(seed: Buffer, size: number): Buffer {
  const type = 'application/vnd.oasis.opendocument.text';
  const manifest =
    `${XML}<manifest:manifest xmlns:manifest="urn:oasis:names:tc:opendocument:xmlns:manifest:1.0" manifest:version="1.2">` +
    `<manifest:file-entry manifest:full-path="/" manifest:version="1.2" manifest:media-type="${type}"/>` +
    '<manifest:file-entry manifest:full-path="content.xml" manifest:media-type="text/xml"/></manifest:manifest>';
  const content =
    '<office:document-content xmlns:office="urn:oasis:names:tc:opendocument:xmlns:office:1.0" xmlns:text="urn:oasis:names:tc:opendocument:xmlns:text:1.0" office:version="1.2">' +
    '<office:body><office:text><text:p>Test file</text:p></office:text></office:body></office:document-content>';
  // The mimetype entry comes first and stored, as OpenDocument requires.
  return archive(seed, size, [['mimetype', type], ['META-INF/manifest.xml', manifest]], ['content.xml', `${XML}<!-- `, ` -->\n${content}`]);
}

function text(seed: Buffer, size: number): Buffer {
  const bytes = Buffer.alloc(Math.max(size, MARK + 1), `${seed.toString('hex')}\n`);
  bytes[bytes.length - 1] = 0x0a;
  return bytes;
}

function csv(seed: Buffer, size: number): Buffer {
  const header = 'key,value\r\n';
  const cells = digits(seed, 2 * 64).toString('latin1');
  const row = (valueLength: number) => Buffer.from(`${cells.slice(0, MARK)},${cells.slice(MARK, MARK + valueLength)}\r\n`, 'latin1');
  // At least two rows under the header, as file(1) wants before it calls text CSV; values take up the size.
  const room = Math.max(size - header.length, 2 * row(0).length);
  const count = Math.max(2, Math.ceil(room / row(64 - MARK).length));
  return join([header, runs(evenSplit(room - count * row(0).length, count), row)]);
}

// ---------------------------------------------------------------------------------------------------------------
// Archives

function zipFile(seed: Buffer, size: number): Buffer {
  return archive(seed, size, [], ['test-file.txt', '', '']);
}

function rar(seed: Buffer, size: number): Buffer {
  // RAR 4 blocks: CRC16 (the low half of CRC-32 from the type on), type, flags, size, then the rest.
  const block = (type: number, flags: number, rest: Buffer) => {
    const body = join([u8(type), u16le(flags), u16le(7 + rest.length), rest]);
    return join([u16le(crc32(body) & 0xffff), body]);
  };
  const name = 'test-file.txt';
  const data = marks(seed, size - 7 - 13 - (32 + name.length) - 7);
  // Sizes, host MS-DOS, CRC, time, version 2.0, method store, name length, archive attribute, name.
  const fields = join([u32le(data.length), u32le(data.length), u8(0), u32le(crc32(data)), u32le(DOS_EPOCH_DATE << 16), u8(20, 0x30), u16le(name.length), u32le(0x20), name]);
  return join([hex('526172211a0700'), block(0x73, 0, Buffer.alloc(6)), block(0x74, 0x8000, fields), data, block(0x7b, 0x4000, Buffer.alloc(0))]);
}

// ---------------------------------------------------------------------------------------------------------------
// Calendars and contacts

/**
 * A content line of exactly `octets` octets (at least the mark's), its value the padding, folded as iCalendar and
 * vCard require: lines of at most 75 octets, each continuation after CRLF and a space (3 octets a fold).
 */
function contentLine(seed: Buffer, property: string, octets: number): Buffer {
  const head = `${property}:`;
  const room = Math.max(octets - head.length - 2, MARK);
  const firstLine = 75 - head.length;
  const folds = Math.max(0, Math.ceil((room - firstLine) / 77));
  const value = room - 3 * folds;
  const first = Math.min(firstLine, value - folds);
  return join([head, digits(seed, first), chunks(seed, evenSplit(value - first, folds), () => '\r\n '), '\r\n']);
}

function withContentLine(before: string, property: string, after: string): Builder {
  return function folded(seed, size) {
    return join([before, contentLine(seed, property, size - before.length - after.length), after]);
  };
}

const icalendar = withContentLine(
  'BEGIN:VCALENDAR\r\nVERSION:2.0\r\nPRODID:-//Conformance suite//Test file//EN\r\nBEGIN:VEVENT\r\n' +
    'UID:test-file@conformance.invalid\r\nDTSTAMP:20260101T000000Z\r\nDTSTART:20260101T000000Z\r\nSUMMARY:Test file\r\n',
  'DESCRIPTION',
  'END:VEVENT\r\nEND:VCALENDAR\r\n',
);

const vcard = withContentLine('BEGIN:VCARD\r\nVERSION:3.0\r\nN:File;Test;;;\r\nFN:Test File\r\n', 'NOTE', 'END:VCARD\r\n');

// ---------------------------------------------------------------------------------------------------------------

/** A name of no known type: the seed repeated, as before files had types. */
function opaque(seed: Buffer, size: number): Buffer {
  return Buffer.alloc(size, seed);
}

/** Every allowed extension, lower-cased, and the builder of its files. */
const BUILDERS = new Map<string, Builder>([
  ['jpg', jpeg],
  ['jpeg', jpeg],
  ['png', png],
  ['gif', gif],
  ['svg', svg],
  // A HEIF image lives in a meta box around an HEVC-coded picture, which this suite does not make: brands only.
  ['heic', isoMedia('heic', ['mif1', 'heic'])],
  ['ai', pdf],
  ['mp4', isoMedia('isom', ['isom', 'iso2', 'mp41'], EMPTY_MOVIE)],
  ['mpeg', mpegProgram],
  ['3gp', isoMedia('3gp4', ['3gp4', 'isom'], EMPTY_MOVIE)],
  ['mp3', mp3],
  ['wav', wave],
  ['wave', wave],
  ['aiff', aiff],
  ['aif', aiff],
  ['aifc', aifc],
  ['gsm', gsm],
  ['ulaw', ulaw],
  ['ogg', ogg],
  ['aac', adts],
  ['m4a', isoMedia('M4A ', ['M4A ', 'mp42', 'isom'], EMPTY_MOVIE)],
  ['amr', amr],
  ['pdf', pdf],
  ['doc', compoundFile('WordDocument', 'Microsoft Office Word', '0609020000000000c000000000000046')],
  ['docx', docx],
  ['txt', text],
  ['csv', csv],
  ['xls', compoundFile('Workbook', 'Microsoft Excel', '2008020000000000c000000000000046')],
  ['xlsx', xlsx],
  ['ppt', compoundFile('PowerPoint Document', 'Microsoft Office PowerPoint', '108d81649b4fcf1186ea00aa00b929e8')],
  ['pptx', pptx],
  ['odt', odt],
  ['zip', zipFile],
  ['rar', rar],
  ['vcf', vcard],
  ['vcard', vcard],
  ['ics', icalendar],
]);
