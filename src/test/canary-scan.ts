// The scanner of the canary test (canary.test.ts): every file of a folder, containers opened (zip, gzip, base64
// payloads such as the zip Playwright's HTML report embeds in index.html), searched for canary tokens and for
// signed-URL signatures that are not redacted. Pure node, so CI needs no unzip binary.
import { deflateRawSync, gunzipSync, inflateRawSync } from 'node:zlib';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';

export interface Finding {
  /** The file, then `!entry` for a zip entry, `#base64@offset` for a decoded payload, `#gunzip` for gzip. */
  where: string;
  /** What leaked: the canary's name, or `signature`. */
  what: string;
  excerpt: string;
}

export interface ScanResult {
  files: number;
  findings: Finding[];
  /** Signatures seen redacted: proof that signed URLs did reach the files scanned. */
  redacted: number;
}

/** One zip entry, read through the central directory (local headers of streamed zips hold no sizes). */
export interface ZipEntry {
  name: string;
  data: Buffer;
}

const ZIP_LOCAL = 0x04034b50;
const ZIP_CENTRAL = 0x02014b50;
const ZIP_END = Buffer.from([0x50, 0x4b, 0x05, 0x06]);

export function unzip(zip: Buffer): ZipEntry[] {
  const end = zip.lastIndexOf(ZIP_END);
  if (end < 0 || end + 22 > zip.length) throw new Error('no end-of-central-directory record');
  const count = zip.readUInt16LE(end + 10);
  let at = zip.readUInt32LE(end + 16);
  if (count === 0xffff || at === 0xffffffff) throw new Error('zip64 archives are not supported by this reader');
  const entries: ZipEntry[] = [];
  for (let i = 0; i < count; i++) {
    if (zip.readUInt32LE(at) !== ZIP_CENTRAL) throw new Error(`central directory entry ${i} is corrupt`);
    const method = zip.readUInt16LE(at + 10);
    const compressedSize = zip.readUInt32LE(at + 20);
    const nameLength = zip.readUInt16LE(at + 28);
    const extraLength = zip.readUInt16LE(at + 30);
    const commentLength = zip.readUInt16LE(at + 32);
    const local = zip.readUInt32LE(at + 42);
    const name = zip.toString('utf8', at + 46, at + 46 + nameLength);
    if (zip.readUInt32LE(local) !== ZIP_LOCAL) throw new Error(`local header of ${name} is corrupt`);
    const start = local + 30 + zip.readUInt16LE(local + 26) + zip.readUInt16LE(local + 28);
    const raw = zip.subarray(start, start + compressedSize);
    if (method !== 0 && method !== 8) throw new Error(`${name}: compression method ${method} is not supported`);
    entries.push({ name, data: method === 0 ? raw : inflateRawSync(raw) });
    at += 46 + nameLength + extraLength + commentLength;
  }
  return entries;
}

/** A minimal zip writer (deflate, no data descriptors), for the scanner's own check. */
export function zip(entries: ZipEntry[]): Buffer {
  const locals: Buffer[] = [];
  const centrals: Buffer[] = [];
  let offset = 0;
  for (const { name, data } of entries) {
    const compressed = deflateRawSync(data);
    const fileName = Buffer.from(name);
    const local = Buffer.alloc(30);
    local.writeUInt32LE(ZIP_LOCAL, 0);
    local.writeUInt16LE(20, 4);
    local.writeUInt16LE(8, 8);
    local.writeUInt32LE(compressed.length, 18);
    local.writeUInt32LE(data.length, 22);
    local.writeUInt16LE(fileName.length, 26);
    const central = Buffer.alloc(46);
    central.writeUInt32LE(ZIP_CENTRAL, 0);
    central.writeUInt16LE(20, 4);
    central.writeUInt16LE(20, 6);
    central.writeUInt16LE(8, 10);
    central.writeUInt32LE(compressed.length, 20);
    central.writeUInt32LE(data.length, 24);
    central.writeUInt16LE(fileName.length, 28);
    central.writeUInt32LE(offset, 42);
    locals.push(local, fileName, compressed);
    centrals.push(central, fileName);
    offset += local.length + fileName.length + compressed.length;
  }
  const directory = Buffer.concat(centrals);
  const end = Buffer.alloc(22);
  ZIP_END.copy(end, 0);
  end.writeUInt16LE(entries.length, 8);
  end.writeUInt16LE(entries.length, 10);
  end.writeUInt32LE(directory.length, 12);
  end.writeUInt32LE(offset, 16);
  return Buffer.concat([...locals, directory, end]);
}

/**
 * `signature=` (or `%3D`, `%253D`, `\u003d`) as a query parameter: not after a word character, a dot or `$`, so
 * minified code (`u.signature=e`) is not taken for a URL, but after `%3F`, `%26` or `\u0026`, whose last
 * character is one. The value runs to the next separator.
 */
const SIGNATURE = /(?:(?<![\w.$])|(?<=%3F|%26|%253F|%2526|\\u0026))signature(?:=|%3D|%253D|\\u003d)([^&\s"'<>\\#]*)/gi;

/** What a redacted signature may look like: nothing, `[REDACTED]` (evidence, maybe URL-encoded) or the recordings' placeholder. */
function isRedacted(value: string): boolean {
  const cut = value.split(/%26|%2526/i)[0];
  if (cut === '' || /^(\[REDACTED\]|%5BREDACTED%5D|%255BREDACTED%255D)/i.test(cut)) return true;
  return 'REDACTED'.repeat(Math.ceil(cut.length / 8)).startsWith(cut);
}

/** A run of standard or URL-safe base64 long enough to hold a canary. */
const BASE64_RUN = /[A-Za-z0-9+/_-]{48,}={0,2}/g;
const MAX_DEPTH = 4;

export class LeakScanner {
  /** Redacted signatures seen so far. */
  redactedSeen = 0;
  readonly #needles: { what: string; forms: string[] }[];

  /**
   * @param canaries name → canary value; each is found by its random core too (in lower case), so a cut or
   *   re-cased copy is caught, and by its hex encoding.
   * @param known other exact values that must not appear (a signature seen on the wire), name → value.
   */
  constructor(canaries: Record<string, string>, known: Record<string, string> = {}) {
    this.#needles = [
      ...Object.entries(canaries).map(([what, value]) => {
        const core = /[0-9a-f]{16,}/.exec(value)?.[0] ?? value;
        return { what, forms: [value, core.toLowerCase(), Buffer.from(value).toString('hex')] };
      }),
      ...Object.entries(known).map(([what, value]) => ({ what, forms: [value] })),
    ];
  }

  /** Every file under `dir`, recursively; `where` is relative to `base`. */
  scanTree(dir: string, base = dir): ScanResult {
    const files = readdirSync(dir, { recursive: true, encoding: 'utf8' })
      .map((name) => join(dir, name))
      .filter((path) => statSync(path).isFile())
      .sort();
    const before = this.redactedSeen;
    const findings = files.flatMap((path) => this.scanBuffer(relative(base, path), readFileSync(path)));
    return { files: files.length, findings, redacted: this.redactedSeen - before };
  }

  scanBuffer(where: string, data: Buffer, depth = 0): Finding[] {
    if (depth > MAX_DEPTH) return [];
    if (data.length >= 4 && data.readUInt32LE(0) === ZIP_LOCAL) {
      let entries: ZipEntry[];
      try {
        entries = unzip(data);
      } catch (error) {
        return [{ where, what: 'unreadable zip', excerpt: (error as Error).message }];
      }
      return entries.flatMap((entry) => this.scanBuffer(`${where}!${entry.name}`, entry.data, depth + 1));
    }
    if (data.length >= 2 && data[0] === 0x1f && data[1] === 0x8b) {
      try {
        return this.scanBuffer(`${where}#gunzip`, gunzipSync(data), depth + 1);
      } catch (error) {
        return [{ where, what: 'unreadable gzip', excerpt: (error as Error).message }];
      }
    }
    const text = data.toString('utf8');
    const findings = this.scanText(where, text);
    for (const match of text.matchAll(BASE64_RUN)) {
      const decoded = Buffer.from(match[0].replace(/-/g, '+').replace(/_/g, '/'), 'base64');
      if (looksScannable(decoded)) findings.push(...this.scanBuffer(`${where}#base64@${match.index}`, decoded, depth + 1));
    }
    return findings;
  }

  scanText(where: string, text: string): Finding[] {
    const findings: Finding[] = [];
    const lower = text.toLowerCase();
    for (const { what, forms } of this.#needles) {
      for (const form of forms) {
        const at = form === form.toLowerCase() ? lower.indexOf(form) : text.indexOf(form);
        if (at >= 0) {
          findings.push({ where, what, excerpt: excerpt(text, at, form.length) });
          break;
        }
      }
    }
    for (const match of text.matchAll(SIGNATURE)) {
      if (isRedacted(match[1])) this.redactedSeen++;
      else findings.push({ where, what: 'signature', excerpt: excerpt(text, match.index, match[0].length) });
    }
    return findings;
  }
}

/** A zip, gzip or mostly printable text: what a decoded base64 payload must be to be worth scanning. */
function looksScannable(data: Buffer): boolean {
  if (data.length >= 4 && data.readUInt32LE(0) === ZIP_LOCAL) return true;
  if (data.length >= 2 && data[0] === 0x1f && data[1] === 0x8b) return true;
  const head = data.subarray(0, 1024);
  const printable = head.filter((byte) => byte === 9 || byte === 10 || byte === 13 || (byte >= 32 && byte < 127) || byte >= 0xc2).length;
  return head.length > 0 && printable / head.length > 0.95;
}

function excerpt(text: string, at: number, length: number): string {
  return text.slice(Math.max(0, at - 80), at + length + 40).replace(/\s+/g, ' ');
}
