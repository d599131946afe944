import { createHash } from 'node:crypto';

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
  const block = createHash('sha256').update(`${name}:${size}`).digest();
  const bytes = Buffer.alloc(size);
  for (let at = 0; at < size; at += block.length) block.copy(bytes, at);
  const digest = sha256(bytes);
  made.set(digest, { name, size });
  return { name, bytes, sha256: digest };
}

/** The name and size of the test file with these bytes, if this process made one. */
export function knownTestFile(bytes: Buffer): { name: string; size: number } | undefined {
  return made.get(sha256(bytes));
}
