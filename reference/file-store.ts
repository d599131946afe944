import { createHash } from 'node:crypto';
import { createReadStream, createWriteStream, type ReadStream } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Transform, type Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';

export interface Blob {
  /** Inside the store's directory; named by the server, never by the client. */
  readonly path: string;
  readonly size: number;
  readonly sha256: string;
  /** The first HEAD_BYTES bytes, for a check of the type's signature. */
  readonly head: Buffer;
}

const HEAD_BYTES = 64;

export interface StoredFile extends Blob {
  readonly id: string;
  readonly fileName: string;
  readonly extension: string;
  readonly locationId: string;
  /** Epoch ms by the server's clock. */
  readonly uploadedAt: number;
  /** Present for secure attachments. */
  readonly slug?: string;
  /** The id of the first file of its upload. */
  readonly firstOfUpload: string;
}

/** Uploaded bytes in a temporary directory removed on close, and the records that point at them. */
export class FileStore {
  readonly #byId = new Map<string, StoredFile>();
  readonly #bySlug = new Map<string, StoredFile>();

  private constructor(readonly dir: string) {}

  static async create(): Promise<FileStore> {
    return new FileStore(await mkdtemp(join(tmpdir(), 'reference-server-')));
  }

  /** Streams into the store, hashing on the way; nothing is buffered whole. */
  async write(blobName: string, source: Readable): Promise<Blob> {
    const path = join(this.dir, blobName);
    const hash = createHash('sha256');
    let size = 0;
    let head = Buffer.alloc(0);
    const tap = new Transform({
      transform(chunk: Buffer, _encoding, done) {
        hash.update(chunk);
        if (head.length < HEAD_BYTES) head = Buffer.concat([head, chunk.subarray(0, HEAD_BYTES - head.length)]);
        size += chunk.length;
        done(null, chunk);
      },
    });
    const sink = createWriteStream(path, { flags: 'wx' });
    try {
      await pipeline(source, tap, sink);
    } catch (error) {
      // pipeline can reject before the sink has even opened its file; removed earlier, the open would recreate it.
      if (!sink.closed) await new Promise<void>((closed) => sink.once('close', () => closed()));
      await rm(path, { force: true });
      throw error;
    }
    return { path, size, sha256: hash.digest('hex'), head };
  }

  async discard(blobs: readonly Blob[]): Promise<void> {
    await Promise.all(blobs.map((blob) => rm(blob.path, { force: true })));
  }

  add(file: StoredFile): void {
    this.#byId.set(file.id, file);
    if (file.slug) this.#bySlug.set(file.slug, file);
  }

  byId(id: string): StoredFile | undefined {
    return this.#byId.get(id);
  }

  bySlug(slug: string): StoredFile | undefined {
    return this.#bySlug.get(slug);
  }

  /** Every file, in the order they were added. */
  all(): StoredFile[] {
    return [...this.#byId.values()];
  }

  /** The files of a location, in the order they were added. */
  ofLocation(locationId: string): StoredFile[] {
    return this.all().filter((file) => file.locationId === locationId);
  }

  open(file: StoredFile, range?: { start: number; end: number }): ReadStream {
    return createReadStream(file.path, range);
  }

  /** Forgets every file and removes its bytes; the directory stays. */
  async clear(): Promise<void> {
    const paths = [...this.#byId.values()].map((file) => file.path);
    this.#byId.clear();
    this.#bySlug.clear();
    await Promise.all(paths.map((path) => rm(path, { force: true })));
  }

  async close(): Promise<void> {
    await this.clear();
    await rm(this.dir, { recursive: true, force: true });
  }
}
