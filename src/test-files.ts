import { createHash } from 'node:crypto';

/** A file the suite uploads: its bytes derive from its name and size, so recordings can keep digests only. */
export interface TestFile {
  name: string;
  bytes: Buffer;
  sha256: string;
}

export const sha256 = (bytes: Buffer) => createHash('sha256').update(bytes).digest('hex');

export function testFile(name: string, size = 1024): TestFile {
  const block = createHash('sha256').update(`${name}:${size}`).digest();
  const bytes = Buffer.alloc(size);
  for (let at = 0; at < size; at += block.length) block.copy(bytes, at);
  return { name, bytes, sha256: sha256(bytes) };
}
