// The alt style checks that a file is what its extension says, as servers that sniff content do: by the leading
// bytes of the types that have a signature. Types without one (txt, csv, gsm, raw µ-law) pass on their name alone.
// Written apart from src/files/test-file.ts, which makes the files: one must not be checked by a copy of the other.

const ascii = (text: string) => Buffer.from(text, 'latin1');
const startsWith = (...signatures: string[]) => (head: Buffer) => signatures.some((signature) => head.subarray(0, signature.length).equals(ascii(signature)));
const at = (offset: number, ...signatures: string[]) => (head: Buffer) =>
  signatures.some((signature) => head.subarray(offset, offset + signature.length).equals(ascii(signature)));
const both = (...checks: ((head: Buffer) => boolean)[]) => (head: Buffer) => checks.every((check) => check(head));
/** Text formats may open with a byte-order mark and blank lines, and are matched ignoring case. */
const textStartsWith = (...openings: string[]) => (head: Buffer) => {
  const text = head.toString('latin1').replace(/^\xEF\xBB\xBF/, '').trimStart().toUpperCase();
  return openings.some((opening) => text.startsWith(opening.toUpperCase()));
};

const zip = startsWith('PK\x03\x04');
const pdf = startsWith('%PDF-');
const mpegAudioFrame = (head: Buffer) => head[0] === 0xff && (head[1] & 0xe0) === 0xe0;
const isoMedia = at(4, 'ftyp');
const ole = startsWith('\xD0\xCF\x11\xE0\xA1\xB1\x1A\xE1');
const riffWave = both(startsWith('RIFF'), at(8, 'WAVE'));
const formAiff = both(startsWith('FORM'), at(8, 'AIFF', 'AIFC'));

const SIGNATURES: Readonly<Record<string, (head: Buffer) => boolean>> = {
  png: startsWith('\x89PNG\r\n\x1A\n'),
  jpg: startsWith('\xFF\xD8\xFF'),
  jpeg: startsWith('\xFF\xD8\xFF'),
  gif: startsWith('GIF87a', 'GIF89a'),
  svg: textStartsWith('<?xml', '<svg', '<!--', '<!DOCTYPE svg'),
  heic: isoMedia,
  ai: (head) => pdf(head) || startsWith('%!PS')(head),
  mp4: isoMedia,
  m4a: isoMedia,
  '3gp': isoMedia,
  mpeg: startsWith('\x00\x00\x01\xBA', '\x00\x00\x01\xB3'),
  mp3: (head) => startsWith('ID3')(head) || mpegAudioFrame(head),
  aac: (head) => startsWith('ID3')(head) || (head[0] === 0xff && (head[1] & 0xf6) === 0xf0),
  wav: riffWave,
  wave: riffWave,
  aiff: formAiff,
  aif: formAiff,
  aifc: formAiff,
  ogg: startsWith('OggS'),
  amr: startsWith('#!AMR'),
  pdf,
  doc: ole,
  xls: ole,
  ppt: ole,
  docx: zip,
  xlsx: zip,
  pptx: zip,
  odt: zip,
  zip,
  rar: startsWith('Rar!\x1A\x07'),
  ics: textStartsWith('BEGIN:VCALENDAR'),
  vcf: textStartsWith('BEGIN:VCARD'),
  vcard: textStartsWith('BEGIN:VCARD'),
};

/** Whether a file's first bytes fit its (lower-case) extension; true for types without a signature. */
export function leadingBytesMatch(extension: string, head: Buffer): boolean {
  return SIGNATURES[extension]?.(head) ?? true;
}
