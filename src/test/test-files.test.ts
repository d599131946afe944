// The files the suite uploads are real files of the types their names give: for every allowed extension, at a size
// below the smallest file of the type, a small one and one over 5 MiB, each is checked by its structure (walked
// here: chunks, segments, pages, frames, CRCs, offsets), by file(1), and by unzip and Python where they apply.
import assert from 'node:assert/strict';
import { execFileSync, spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, test } from 'node:test';
import { crc32 } from 'node:zlib';
import { ALLOWED_EXTENSION_SET, extensionOf } from '../contract/contract.ts';
import { knownTestFile, sha256, testFile } from '../files/test-file.ts';

const SIZES = [1, 300, 5_242_881];
/** Every size the suite asks for. */
const SUITE_SIZES = [1, 64, 200, 256, 300, 400, 500, 512, 600, 700, 1024, 5000, 5_000_000, 5_000_001, 5_242_880, 5_242_881];
const EXTENSIONS = [...ALLOWED_EXTENSION_SET];

const dir = mkdtempSync(join(tmpdir(), 'test-files-'));
after(() => rmSync(dir, { recursive: true, force: true }));

const minimal = (extension: string) => testFile(`smallest.${extension}`, 1).bytes.length;
const latin1 = (bytes: Buffer, from = 0, to = bytes.length) => bytes.toString('latin1', from, to);

// ---------------------------------------------------------------------------------------------------------------
// What each type starts with and what file(1) (5.44) calls it

const OLE = /^\xd0\xcf\x11\xe0\xa1\xb1\x1a\xe1/;
const OOXML = /^PK\x03\x04[\s\S]{26}\[Content_Types\]\.xml/;

/** Leading bytes (latin1), file(1)'s description and its MIME type, by extension. */
const TYPES: Record<string, [RegExp, RegExp, string]> = {
  // file(1) walks JPEG segments recursively and gives up (ERROR) past about 50: a 5 MiB file needs 81 comments.
  jpg: [/^\xff\xd8\xff\xe0\0\x10JFIF\0/, /JPEG image data, JFIF standard 1\.01/, 'image/jpeg'],
  png: [/^\x89PNG\r\n\x1a\n\0\0\0\rIHDR/, /^PNG image data, 1 x 1, 8-bit grayscale, non-interlaced$/, 'image/png'],
  gif: [/^GIF89a\x01\0\x01\0/, /^GIF image data, version 89a, 1 x 1$/, 'image/gif'],
  svg: [/^<\?xml version="1\.0" encoding="UTF-8"\?>\n<svg xmlns="http:\/\/www\.w3\.org\/2000\/svg"/, /^SVG Scalable Vector Graphics image$/, 'image/svg+xml'],
  heic: [/^\0\0\0\x18ftypheic/, /^ISO Media, HEIF Image/, 'image/heic'],
  pdf: [/^%PDF-1\.4\n%\xe2\xe3\xcf\xd3\n/, /^PDF document, version 1\.4, 1 pages?$/, 'application/pdf'],
  mp4: [/^\0\0\0\x1cftypisom/, /^ISO Media, MP4 Base Media v1/, 'video/mp4'],
  mpeg: [/^\0\0\x01\xba/, /^MPEG sequence, v2, program multiplex$/, 'video/mpeg'],
  '3gp': [/^\0\0\0\x18ftyp3gp4/, /^ISO Media, MPEG v4 system, 3GPP$/, 'video/3gpp'],
  mp3: [/^ID3\x03\0\0/, /^Audio file with ID3 version 2\.3\.0, contains: ?MPEG ADTS, layer III, v1, 32 kbps, 48 kHz, Monaural$/, 'audio/mpeg'],
  wav: [/^RIFF[\s\S]{4}WAVEfmt /, /^RIFF \(little-endian\) data, WAVE audio, Microsoft PCM, 8 bit, mono 8000 Hz$/, 'audio/x-wav'],
  aiff: [/^FORM[\s\S]{4}AIFFCOMM/, /^IFF data, AIFF audio$/, 'audio/x-aiff'],
  aifc: [/^FORM[\s\S]{4}AIFCFVER/, /^IFF data, AIFF-C compressed audio$/, 'audio/x-aiff'],
  // Raw GSM has no magic: file(1) can only tell it is binary.
  gsm: [/^[\xd0-\xdf]/, /^data$/, 'application/octet-stream'],
  ulaw: [/^\.snd\0\0\0\x1c[\s\S]{4}\0\0\0\x01/, /^Sun\/NeXT audio data: 8-bit ISDN mu-law, mono, 8000 Hz$/, 'audio/basic'],
  ogg: [/^OggS\0\x02[\s\S]{20}\x01\x13OpusHead/, /^Ogg data, Opus audio, version 0\.1, mono, 48000 Hz/, 'audio/ogg'],
  aac: [/^\xff\xf1\x50/, /^MPEG ADTS, AAC, v4 LC, 44\.1 kHz, monaural$/, 'audio/x-hx-aac-adts'],
  m4a: [/^\0\0\0\x1cftypM4A /, /^ISO Media, Apple iTunes ALAC\/AAC-LC \(\.M4A\) Audio$/, 'audio/x-m4a'],
  amr: [/^#!AMR\n/, /^Adaptive Multi-Rate Codec \(GSM telephony\)$/, 'audio/amr'],
  doc: [OLE, /^Composite Document File V2 Document, .*Name of Creating Application: Microsoft Office Word$/, 'application/msword'],
  docx: [OOXML, /^Microsoft Word 2007\+$/, 'application/vnd.openxmlformats-officedocument.wordprocessingml.document'],
  txt: [/^[0-9a-f]{16}/, /^ASCII text$/, 'text/plain'],
  csv: [/^key,value\r\n[0-9a-f]{16},/, /^CSV text$/, 'text/csv'],
  xls: [OLE, /^Composite Document File V2 Document, .*Name of Creating Application: Microsoft Excel$/, 'application/vnd.ms-excel'],
  xlsx: [OOXML, /^Microsoft Excel 2007\+$/, 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet'],
  ppt: [OLE, /^Composite Document File V2 Document, .*Name of Creating Application: Microsoft Office PowerPoint$/, 'application/vnd.ms-powerpoint'],
  pptx: [OOXML, /^Microsoft PowerPoint 2007\+$/, 'application/vnd.openxmlformats-officedocument.presentationml.presentation'],
  odt: [/^PK\x03\x04[\s\S]{26}mimetypeapplication\/vnd\.oasis\.opendocument\.text/, /^OpenDocument Text$/, 'application/vnd.oasis.opendocument.text'],
  zip: [/^PK\x03\x04/, /^Zip archive data, at least v1\.0 to extract/, 'application/zip'],
  rar: [/^Rar!\x1a\x07\0/, /^RAR archive data/, 'application/x-rar'],
  vcf: [/^BEGIN:VCARD\r\nVERSION:3\.0\r\n/, /^vCard visiting card, version 3\.0$/, 'text/vcard'],
  ics: [/^BEGIN:VCALENDAR\r\nVERSION:2\.0\r\n/, /^vCalendar calendar file$/, 'text/calendar'],
};
const SAME_TYPE: Record<string, string> = { jpeg: 'jpg', ai: 'pdf', wave: 'wav', aif: 'aiff', vcard: 'vcf' };
const typeOf = (extension: string) => TYPES[SAME_TYPE[extension] ?? extension];

// ---------------------------------------------------------------------------------------------------------------
// Structure walkers: each throws (by assert) unless the bytes are a whole, consistent file of its type

function png(bytes: Buffer) {
  const types: string[] = [];
  for (let at = 8; at < bytes.length; ) {
    const length = bytes.readUInt32BE(at);
    const type = bytes.subarray(at + 4, at + 8);
    const data = bytes.subarray(at + 8, at + 8 + length);
    assert.equal(bytes.readUInt32BE(at + 8 + length), crc32(data, crc32(type)), `CRC of ${type}`);
    types.push(latin1(type));
    at += 12 + length;
    if (at === bytes.length) break;
    assert.ok(at < bytes.length, 'chunks overrun the file');
  }
  assert.deepEqual(types, ['IHDR', 'tEXt', 'IDAT', 'IEND']);
}

function jpeg(bytes: Buffer) {
  const markers: number[] = [];
  let at = 2;
  while (bytes[at] === 0xff && bytes[at + 1] !== 0xda) {
    markers.push(bytes[at + 1]);
    at += 2 + bytes.readUInt16BE(at + 2);
  }
  assert.equal(bytes[at + 1], 0xda, 'a scan follows the segments');
  assert.ok(markers.includes(0xfe) && markers.filter((m) => m === 0xc0).length === 1, `segments ${markers.map((m) => m.toString(16))}`);
  assert.equal(latin1(bytes, bytes.length - 2), '\xff\xd9');
}

function gif(bytes: Buffer) {
  let at = 13 + 6;
  while (bytes[at] === 0x21) {
    at += 2;
    while (bytes[at] !== 0) at += 1 + bytes[at];
    at++;
  }
  assert.equal(bytes[at], 0x2c, 'an image follows the extensions');
  at += 10 + 1;
  while (bytes[at] !== 0) at += 1 + bytes[at];
  assert.equal(at + 2, bytes.length, 'the trailer ends the file');
  assert.equal(bytes[at + 1], 0x3b);
}

function pdf(bytes: Buffer) {
  const text = latin1(bytes);
  const start = Number(/startxref\n(\d+)\n%%EOF\r?\n$/.exec(text)?.[1]);
  assert.equal(text.slice(start, start + 9), 'xref\n0 5\n');
  const entries = text.slice(start + 9, start + 9 + 5 * 20).match(/.{20}/gs) ?? [];
  assert.equal(entries[0], '0000000000 65535 f \n');
  entries.slice(1).forEach((entry, i) => {
    assert.match(entry, /^\d{10} 00000 n \n$/);
    const offset = Number(entry.slice(0, 10));
    assert.equal(text.slice(offset, offset + `${i + 1} 0 obj`.length), `${i + 1} 0 obj`, `xref entry ${i + 1}`);
  });
  const stream = /\/Length (\d+) *>>\nstream\n/.exec(text);
  assert.ok(stream);
  const from = stream.index + stream[0].length;
  assert.equal(text.slice(from + Number(stream[1]), from + Number(stream[1]) + 11), '\nendstream\n');
}

/** ISO base media: boxes end to end. */
function isoMedia(bytes: Buffer) {
  let at = 0;
  while (at < bytes.length) at += bytes.readUInt32BE(at);
  assert.equal(at, bytes.length);
}

function mpegProgram(bytes: Buffer) {
  assert.equal(bytes.readUInt32BE(14), 0x1bb, 'a system header follows the pack header');
  let at = 14;
  while (bytes.readUInt32BE(at) !== 0x1b9) {
    assert.equal(bytes.readUInt32BE(at) >>> 8, 1, `a start code at ${at}`);
    at += 6 + bytes.readUInt16BE(at + 4);
  }
  assert.equal(at + 4, bytes.length, 'the end code ends the file');
}

function mp3(bytes: Buffer) {
  const size = [6, 7, 8, 9].reduce((n, i) => (n << 7) | bytes[i], 0);
  let frames = 0;
  for (let at = 10 + size; at < bytes.length; at += 96, frames++) assert.equal(bytes.readUInt32BE(at), 0xfffb14c4);
  assert.equal(frames, 4);
}

/** RIFF and IFF: the form's size counts the rest of the file. */
function form(littleEndian: boolean) {
  return (bytes: Buffer) => assert.equal(littleEndian ? bytes.readUInt32LE(4) : bytes.readUInt32BE(4), bytes.length - 8);
}

function gsm(bytes: Buffer) {
  for (let at = 0; at < bytes.length; at += 33) assert.equal(bytes[at] >> 4, 0xd);
}

function ulaw(bytes: Buffer) {
  assert.equal(bytes.readUInt32BE(8), bytes.length - bytes.readUInt32BE(4));
}

/** Ogg's CRC, bit by bit: a check independent of the table and shortcut the builder uses. */
function oggCrc(bytes: Buffer): number {
  let crc = 0;
  for (const byte of bytes) {
    crc ^= byte << 24;
    for (let bit = 0; bit < 8; bit++) crc = crc & 0x80000000 ? (crc << 1) ^ 0x04c11db7 : crc << 1;
  }
  return crc >>> 0;
}

function ogg(bytes: Buffer) {
  let granule = 0n;
  let sequence = 0;
  for (let at = 0; at < bytes.length; sequence++) {
    assert.equal(latin1(bytes, at, at + 4), 'OggS');
    const segments = bytes[at + 26];
    const length = 27 + segments + [...bytes.subarray(at + 27, at + 27 + segments)].reduce((n, l) => n + l, 0);
    const page = Buffer.from(bytes.subarray(at, at + length));
    page.writeUInt32LE(0, 22);
    assert.equal(bytes.readUInt32LE(at + 22), oggCrc(page), `CRC of page ${sequence}`);
    assert.equal(bytes.readUInt32LE(at + 18), sequence);
    assert.ok(bytes.readBigUInt64LE(at + 6) >= granule, 'granule positions do not go back');
    granule = bytes.readBigUInt64LE(at + 6);
    const last = at + length === bytes.length;
    assert.equal(bytes[at + 5], sequence === 0 ? 0x02 : last ? 0x04 : 0x00, `flags of page ${sequence}`);
    at += length;
    assert.ok(at <= bytes.length, 'pages overrun the file');
  }
  assert.ok(sequence >= 3, 'identification, comment and audio pages');
}

function adts(bytes: Buffer) {
  let at = 0;
  while (at < bytes.length) {
    assert.equal(bytes.readUInt16BE(at), 0xfff1, `an ADTS frame at ${at}`);
    at += ((bytes[at + 3] & 0x03) << 11) | (bytes[at + 4] << 3) | (bytes[at + 5] >> 5);
  }
  assert.equal(at, bytes.length);
}

function amr(bytes: Buffer) {
  const sizes = [13, 14, 16, 18, 20, 21, 27, 32, 6];
  let at = 6;
  while (at < bytes.length) at += sizes[(bytes[at] >> 3) & 0x0f];
  assert.equal(at, bytes.length);
}

/** OLE compound file: the streams' FAT chains cover their sizes, and the last sector holds the last byte. */
function compoundFile(bytes: Buffer) {
  const sector = (n: number) => 512 * (n + 1);
  const fatSectors = bytes.readUInt32LE(44);
  const next = (n: number) => bytes.readUInt32LE(sector(bytes.readUInt32LE(76 + 4 * Math.floor(n / 128))) + 4 * (n % 128));
  const directory = sector(bytes.readUInt32LE(48));
  const streams: string[] = [];
  for (let entry = directory; entry < directory + 512; entry += 128) {
    if (bytes[entry + 66] !== 2) continue;
    streams.push(bytes.toString('utf16le', entry, entry + bytes.readUInt16LE(entry + 64) - 2));
    let count = 1;
    let n = bytes.readUInt32LE(entry + 116);
    for (; next(n) !== 0xfffffffe; n = next(n)) count++;
    const length = bytes.readUInt32LE(entry + 120);
    assert.equal(count, Math.ceil(length / 512), `sectors of ${streams.at(-1)}`);
    assert.ok(sector(n) + ((length - 1) % 512) < bytes.length, `the last sector of ${streams.at(-1)} is in the file`);
  }
  assert.ok(fatSectors >= 1 && streams.length === 2 && streams.includes('\u0005SummaryInformation'), `streams ${streams}`);
}

function zip(bytes: Buffer) {
  const end = bytes.length - 22;
  assert.equal(bytes.readUInt32LE(end), 0x06054b50, 'the end of the central directory ends the file');
  assert.equal(bytes.readUInt32LE(end + 16) + bytes.readUInt32LE(end + 12), end, 'the central directory precedes it');
}

function rar(bytes: Buffer) {
  const types: number[] = [];
  for (let at = 7; at < bytes.length; ) {
    const size = bytes.readUInt16LE(at + 5);
    assert.equal(bytes.readUInt16LE(at), crc32(bytes.subarray(at + 2, at + size)) & 0xffff, `header CRC at ${at}`);
    types.push(bytes[at + 2]);
    if (bytes[at + 2] === 0x74) {
      const data = bytes.subarray(at + size, at + size + bytes.readUInt32LE(at + 7));
      assert.equal(bytes.readUInt32LE(at + 16), crc32(data), 'the file CRC');
      at += data.length;
    }
    at += size;
  }
  assert.deepEqual(types, [0x73, 0x74, 0x7b]);
}

/** iCalendar and vCard: CRLF lines of at most 75 octets, one begin and one end. */
function contentLines(kind: string) {
  return (bytes: Buffer) => {
    const text = latin1(bytes);
    assert.ok(text.endsWith(`END:${kind}\r\n`));
    const lines = text.slice(0, -2).split('\r\n');
    assert.ok(lines.every((line) => line.length <= 75 && !line.includes('\n')), 'lines of at most 75 octets');
    assert.equal(lines.filter((line) => line === `BEGIN:${kind}`).length, 1);
  };
}

function text(bytes: Buffer) {
  assert.ok(!/[^0-9a-f\n]/.test(latin1(bytes)) && bytes.at(-1) === 0x0a, 'lines of hex digits');
}

function csv(bytes: Buffer) {
  const [header, ...rows] = latin1(bytes).split('\r\n');
  assert.equal(header, 'key,value');
  assert.equal(rows.pop(), '', 'the last row ends in CRLF');
  assert.ok(rows.length > 0 && rows.every((row) => /^[0-9a-f]{16},[0-9a-f]*$/.test(row)), 'rows of two cells');
}

function svg(bytes: Buffer) {
  assert.match(latin1(bytes), /<svg [^>]*><!-- [0-9a-f]+ --><rect [^>]*\/><\/svg>\n$/);
}

const STRUCTURE: Record<string, (bytes: Buffer) => void> = {
  jpg: jpeg, jpeg, png, gif, svg, heic: isoMedia, ai: pdf, mp4: isoMedia, mpeg: mpegProgram, '3gp': isoMedia,
  mp3, wav: form(true), wave: form(true), aiff: form(false), aif: form(false), aifc: form(false), gsm, ulaw, ogg,
  aac: adts, m4a: isoMedia, amr, pdf, doc: compoundFile, docx: zip, txt: text, csv, xls: compoundFile, xlsx: zip,
  ppt: compoundFile, pptx: zip, odt: zip, zip, rar, vcf: contentLines('VCARD'), vcard: contentLines('VCARD'),
  ics: contentLines('VCALENDAR'),
};

// Python's zipfile (and XML parser on every part), wave and aifc open what they can; one run per size.
const PYTHON = String.raw`
import sys, wave, zipfile, warnings, xml.etree.ElementTree as ET
warnings.simplefilter('ignore')
import aifc
for path in sys.argv[1:]:
    extension = path.rsplit('.', 1)[1]
    if extension in ('zip', 'docx', 'xlsx', 'pptx', 'odt'):
        with zipfile.ZipFile(path) as archive:
            assert archive.testzip() is None, path
            for name in archive.namelist():
                if name.endswith('.xml') or name.endswith('.rels'):
                    ET.fromstring(archive.read(name))
    elif extension == 'svg':
        ET.parse(path)
    elif extension in ('wav', 'wave'):
        with wave.open(path) as audio:
            assert len(audio.readframes(audio.getnframes())) == audio.getnframes() > 0, path
    elif extension in ('aiff', 'aif', 'aifc'):
        with aifc.open(path) as audio:
            assert len(audio.readframes(audio.getnframes())) == audio.getnframes() > 0, path
print('ok')
`;

// ---------------------------------------------------------------------------------------------------------------

describe('test files', () => {
  test('every allowed extension has a type here', () => {
    assert.deepEqual(EXTENSIONS.filter((extension) => !typeOf(extension) || !STRUCTURE[extension]), []);
  });

  for (const size of SIZES) {
    describe(`at ${size} bytes`, () => {
      const files = EXTENSIONS.map((extension) => ({ extension, file: testFile(`sample.${extension}`, size), path: join(dir, `${size}.${extension}`) }));
      for (const { path, file } of files) writeFileSync(path, file.bytes);

      test('exact size when at least the smallest file, else the smallest; deterministic; leading bytes; structure', () => {
        for (const { extension, file } of files) {
          assert.equal(file.bytes.length, Math.max(size, minimal(extension)), extension);
          assert.ok(testFile(file.name, size).bytes.equals(file.bytes), `${extension} is deterministic`);
          assert.match(latin1(file.bytes, 0, 128), typeOf(extension)[0], `${extension} leading bytes`);
          assert.doesNotThrow(() => STRUCTURE[extension](file.bytes), `${extension} structure`);
        }
      });

      test('distinct names give distinct bytes', () => {
        for (const { extension, file } of files) assert.notEqual(testFile(`other.${extension}`, size).sha256, file.sha256, extension);
      });

      test('file(1) names each type', () => {
        const paths = files.map(({ path }) => path);
        // Its exit status reports the JPEG it gave up on; the descriptions are what count.
        const descriptions = spawnSync('file', ['-b', ...paths], { encoding: 'utf8' }).stdout.trimEnd().split('\n');
        const types = execFileSync('file', ['-b', '--mime-type', ...paths], { encoding: 'utf8' }).trimEnd().split('\n');
        files.forEach(({ extension }, i) => {
          const [, description, mime] = typeOf(extension);
          assert.match(descriptions[i], description, extension);
          assert.equal(types[i], mime, extension);
        });
      });

      test('unzip tests the archives; Python opens archives, XML and sound', () => {
        for (const { extension, path } of files.filter(({ extension }) => ['zip', 'docx', 'xlsx', 'pptx', 'odt'].includes(extension)))
          assert.match(execFileSync('unzip', ['-t', path], { encoding: 'utf8' }), /No errors detected/, extension);
        assert.equal(execFileSync('python3', ['-c', PYTHON, ...files.map(({ path }) => path)], { encoding: 'utf8' }).trim(), 'ok');
      });
    });
  }

  test('every size the suite asks for, and each size just above the smallest, is exact', () => {
    for (const extension of EXTENSIONS) {
      const smallest = minimal(extension);
      const sizes = [...SUITE_SIZES, ...Array.from({ length: 300 }, (_, i) => smallest + i)];
      for (const size of sizes.filter((s) => s >= smallest)) assert.equal(testFile(`exact.${extension}`, size).bytes.length, size, `${extension} at ${size}`);
    }
  });

  test('a PDF is exact and consistent where startxref gains a digit', () => {
    for (const power of [3, 4, 5, 6])
      for (let size = 10 ** power; size < 10 ** power + 400; size++) {
        const bytes = testFile('digits.pdf', size).bytes;
        assert.equal(bytes.length, size);
        if (size % 7 === 0) pdf(bytes);
      }
  });

  test('chunked paddings stay valid across their chunk boundaries', () => {
    for (const [extension, sizes] of Object.entries({ jpg: [65_600, 131_140, 131_200], gif: [300, 600, 70_000], ogg: [65_400, 65_600, 131_000], aac: [8_200, 16_400, 40_000], mpeg: [65_700, 131_200], ics: [400, 5_000], vcf: [400, 5_000] }))
      for (const size of sizes) {
        const bytes = testFile(`edge.${extension}`, size).bytes;
        assert.equal(bytes.length, size, `${extension} at ${size}`);
        STRUCTURE[extension](bytes);
      }
  });

  test('the structure checks catch one flipped bit', () => {
    const flipped = (name: string, at: (bytes: Buffer) => number) => {
      const bytes = Buffer.from(testFile(name, 300).bytes);
      bytes[at(bytes)] ^= 0x01;
      return bytes;
    };
    assert.throws(() => png(flipped('broken.png', () => 60)), /CRC of tEXt/);
    assert.throws(() => ogg(flipped('broken.ogg', (bytes) => bytes.length - 10)), /CRC of page/);
    assert.throws(() => rar(flipped('broken.rar', (bytes) => bytes.length - 20)), /file CRC/);
    assert.throws(() => pdf(flipped('broken.pdf', (bytes) => bytes.indexOf('2 0 obj'))), /xref entry 2/);
  });

  test('two sizes below the smallest file still give distinct bytes', () => {
    for (const extension of EXTENSIONS) assert.notEqual(testFile(`tiny.${extension}`, 1).sha256, testFile(`tiny.${extension}`, 64).sha256, extension);
  });

  test('the type comes from the extension in any case', () => {
    assert.match(latin1(testFile('TOOL.PDF', 300).bytes, 0, 8), /^%PDF-1\.4/);
    assert.match(latin1(testFile('Photo.JpEg', 300).bytes, 0, 4), /^\xff\xd8\xff\xe0/);
  });

  test('a name of no known type gets the seed repeated, as before', () => {
    for (const name of ['README', 'tool.exe', 'report.pdf.exe', 'photo.jpg.php', 'tool.exe.', 'page.html', 'script.js', 'image.svgz', 'reportpdf']) {
      assert.equal(ALLOWED_EXTENSION_SET.has(extensionOf(name)), false);
      const seed = Buffer.from(sha256(Buffer.from(`${name}:64`)), 'hex');
      assert.ok(testFile(name, 64).bytes.equals(Buffer.alloc(64, seed)), name);
    }
  });

  test('knownTestFile gives the name and requested size, which make the same bytes again', () => {
    for (const [name, size] of [['round.pdf', 1], ['round.png', 64], ['round.docx', 5000], ['round.ogg', 300], ['README', 64]] as const) {
      const file = testFile(name, size);
      assert.deepEqual(knownTestFile(file.bytes), { name, size });
      assert.ok(testFile(name, size).bytes.equals(file.bytes));
    }
    assert.equal(knownTestFile(Buffer.from('never made')), undefined);
  });
});
