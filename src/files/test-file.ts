// The files the suite uploads. A server may check content as well as names (leading bytes, structure), so each
// file is a valid file of the type its extension names, padded inside the format to the size asked for; a size
// below the smallest valid file of the type gives that smallest file instead.
import { createHash } from 'node:crypto';
import type { FileGroup } from '../contract/cases.ts';
import { extensionOf } from '../contract/contract.ts';
import type { Builder } from './bytes.ts';
import { rar, zipFile } from './archives.ts';
import { gif, jpeg, png, svg } from './images.ts';
import { adts, aifc, aiff, amr, EMPTY_MOVIE, gsm, isoMedia, mp3, mpegProgram, ogg, ulaw, wave } from './media.ts';
import { compoundFile, docx, odt, pdf, pptx, xlsx } from './documents.ts';
import { csv, icalendar, text, vcard } from './text.ts';

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
  // No bytes are a file of no type's structure, and of every type a server may take: an empty file is an edge of its own.
  const bytes = size === 0 ? Buffer.alloc(0) : (BUILDERS.get(extensionOf(name)) ?? opaque)(seed, size);
  const digest = sha256(bytes);
  made.set(digest, { name, size });
  return { name, bytes, sha256: digest };
}

/** `count.png` as file i of n: `count-3.png` when there are several. */
export function numberedName(name: string, index: number, count: number): string {
  if (count === 1) return name;
  const dot = name.lastIndexOf('.');
  return dot > 0 ? `${name.slice(0, dot)}-${index + 1}${name.slice(dot)}` : `${name}-${index + 1}`;
}

/** The files of a case table's row, in order. */
export const filesOf = (groups: readonly FileGroup[]): TestFile[] =>
  groups.flatMap(({ name, bytes, count = 1 }) => Array.from({ length: count }, (_, i) => testFile(numberedName(name, i, count), bytes)));

/** The name and size of the test file with these bytes, if this process made one. */
export function knownTestFile(bytes: Buffer): { name: string; size: number } | undefined {
  return made.get(sha256(bytes));
}

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
