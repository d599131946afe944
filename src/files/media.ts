// Test files: audio and video (ISO media, MP3, MPEG, WAV, AIFF, Ogg, ADTS, AMR, GSM, mu-law).
// Each builder makes a valid file of its type, padded inside the format to the size asked for; test-file.ts picks
// the builder by extension.
import { type Builder, chunked, chunks, evenSplit, hex, join, MARK, marks, runs, u16be, u16le, u32be, u32le, u8 } from './bytes.ts';

const box = (type: string, body: Buffer) => join([u32be(8 + body.length), type, body]);

/**
 * A movie of no tracks, only its header (timescale 1000, duration 0, rate and volume 1, identity matrix, next track
 * 1): readers of MP4, M4A and 3GP files will not open one without a movie.
 */
export const EMPTY_MOVIE = box(
  'moov',
  box('mvhd', hex(`00000000 00000000 00000000 000003e8 00000000 00010000 0100 0000 ${'00'.repeat(8)}
    00010000 00000000 00000000 00000000 00010000 00000000 00000000 00000000 40000000 ${'00'.repeat(24)} 00000001`)),
);

/** An ISO base media file: its `ftyp` box of these brands, then `boxes`, then a `free` box of padding. */
export function isoMedia(major: string, compatible: string[], ...boxes: Buffer[]): Builder {
  return function isoMediaFile(seed, size) {
    const head = join([box('ftyp', join([major, u32be(0), ...compatible])), ...boxes]);
    return join([head, box('free', marks(seed, size - head.length - 8))]);
  };
}

/**
 * Four MPEG-1 Layer III frames (32 kbit/s, 48 kHz, mono) of silence, all side information zero: readers want a
 * few in a row to trust the sync.
 */
const MP3_FRAMES = Buffer.concat(Array.from({ length: 4 }, () => join([hex('fffb14c4'), Buffer.alloc(92)])));

export function mp3(seed: Buffer, size: number): Buffer {
  const text = marks(seed, size - 10 - 10 - 5 - MP3_FRAMES.length);
  const comment = join(['COMM', u32be(5 + text.length), u8(0, 0), u8(0), 'eng', u8(0), text]);
  const tagSize = comment.length;
  const syncsafe = u8((tagSize >> 21) & 0x7f, (tagSize >> 14) & 0x7f, (tagSize >> 7) & 0x7f, tagSize & 0x7f);
  return join(['ID3', u8(3, 0, 0), syncsafe, comment, MP3_FRAMES]);
}

export function mpegProgram(seed: Buffer, size: number): Buffer {
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

export function wave(seed: Buffer, size: number): Buffer {
  const samples = marks(seed, size - 44);
  const format = join([u16le(1), u16le(1), u32le(8000), u32le(8000), u16le(1), u16le(8)]);
  return join(['RIFF', u32le(36 + samples.length), 'WAVE', 'fmt ', u32le(16), format, 'data', u32le(samples.length), samples]);
}

/** 8000 as an IEEE 754 80-bit extended number, the sample rate of AIFF. */
const AIFF_RATE = hex('400b fa00 0000 0000 0000');

export function aiff(seed: Buffer, size: number): Buffer {
  const samples = marks(seed, size - 54);
  const common = join([u16be(1), u32be(samples.length), u16be(8), AIFF_RATE]);
  return join(['FORM', u32be(46 + samples.length), 'AIFF', 'COMM', u32be(18), common, 'SSND', u32be(8 + samples.length), u32be(0), u32be(0), samples]);
}

export function aifc(seed: Buffer, size: number): Buffer {
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
export function ogg(seed: Buffer, size: number): Buffer {
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
export function adts(seed: Buffer, size: number): Buffer {
  const frames = chunked(Math.max(size, 7 + 2 + MARK + AAC_SILENCE.length), 7 + AAC_SILENCE.length, 8191 - 7 - AAC_SILENCE.length);
  return runs(frames, (budget) => {
    const length = 7 + budget + AAC_SILENCE.length;
    const header = u8(0xff, 0xf1, 0x50, 0x40 | (length >> 11), (length >> 3) & 0xff, ((length & 7) << 5) | 0x1f, 0xfc);
    // Data stream elements: ID_DSE, tag 0, byte-aligned, then a count below 255 and that many bytes.
    return join([header, chunks(seed, chunked(budget, 2, 254), (n) => u8(0x81, n)), AAC_SILENCE]);
  });
}

export function amr(seed: Buffer, size: number): Buffer {
  // Speech frames of the 4.75 and 5.15 kbit/s modes, 13 and 14 bytes (any bits decode; here the seed's), add up to
  // every size from twelve frames on: n frames, as many of them the longer as the size needs.
  const room = Math.max(size - 6, 12 * 13);
  const count = Math.ceil(room / 14);
  const longer = room - 13 * count;
  const frame = (mode: number, length: number) => join([u8((mode << 3) | 0x04), seed.subarray(0, length - 1)]);
  return join(['#!AMR\n', Buffer.alloc(13 * (count - longer), frame(0, 13)), Buffer.alloc(14 * longer, frame(1, 14))]);
}

export function gsm(seed: Buffer, size: number): Buffer {
  // Raw GSM 06.10 is 33-byte frames, each the 0xD signature nibble and 260 bits of parameters (here the seed's, so
  // the file is binary as real ones are). It has no header that could hold a remainder: a size off the frame grid
  // ends in a partial frame, which decoders refuse after decoding the whole ones.
  const frame = join([u8(0xd0 | (seed[0] >> 4)), seed]);
  return Buffer.alloc(Math.max(size, frame.length), frame);
}

export function ulaw(seed: Buffer, size: number): Buffer {
  const samples = marks(seed, size - 28);
  // Sun .snd: data offset, size, encoding 1 (8-bit mu-law), 8000 Hz, mono, then an empty four-byte annotation.
  return join(['.snd', u32be(28), u32be(samples.length), u32be(1), u32be(8000), u32be(1), Buffer.alloc(4), samples]);
}
