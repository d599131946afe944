// Shared by the reference server's own tests: a server per test, and requests through inject.
import type { FastifyInstance, LightMyRequestResponse } from 'fastify';
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { connect, type Socket } from 'node:net';
import { mock } from 'node:test';
import { urlReferences } from '../../src/checks/discover.ts';
import { sha256 } from '../../src/files/test-file.ts';
import { API_VERSION, DEPRECATED_EXECUTE_PATH, expandPath, FILE_FORM_KEY, UPLOAD_PATH } from '../../src/contract/contract.ts';
import type { FaultName } from '../faults.ts';
import { FileStore } from '../file-store.ts';
import { TEST_CLOCK_PATH } from '../plugins/test-clock.ts';
import { buildServer } from '../server.ts';
import { loadSeed, worldOf } from '../world.ts';

export const MIB = 1024 * 1024;

/** A frozen start a week before the cutover. */
export const T0 = '2026-11-20T12:00:00.000Z';

const seed = loadSeed();

const world = worldOf(seed);

/** The seed holds every value the suite can be given, so the reference tests need not check for absent ones. */
function everyValue<T extends object>(values: T): { readonly [K in keyof T]-?: Exclude<T[K], undefined> } {
  for (const [key, value] of Object.entries(values)) if (value === undefined) throw new Error(`reference/seed.json has no entry for ${key}`);
  return values as { readonly [K in keyof T]-?: Exclude<T[K], undefined> };
}

/** The seed's values as the suite sees them (worldOf). */
export const WORLD = {
  ...everyValue(world),
  tokens: everyValue(world.tokens),
};

export const EXECUTE_URL = expandPath(DEPRECATED_EXECUTE_PATH, { agentId: WORLD.agentId });

export async function server(fault?: FaultName, start = T0): Promise<FastifyInstance> {
  return buildServer({ seed: 'reference-tests', testClock: { start: Date.parse(start) }, fault });
}

/** A server and the directory of its store, caught as `build` creates it (default: `server()`). */
export async function serverWithStore(build: () => Promise<FastifyInstance> = () => server()): Promise<{ app: FastifyInstance; store: string }> {
  const create = mock.method(FileStore, 'create');
  try {
    const app = await build();
    const created = await create.mock.calls[0]?.result;
    assert.ok(created, 'the server created no FileStore');
    return { app, store: created.dir };
  } finally {
    create.mock.restore();
  }
}

/** A refusal: 4xx, JSON, `{statusCode, error, message}` with a message that says something. */
export function assertRefused(status: number | undefined, contentType: string | undefined, body: string, expected?: number): void {
  assert.ok(status !== undefined && status >= 400 && status < 500, `expected a 4xx, got ${status}: ${body}`);
  if (expected !== undefined) assert.equal(status, expected, body);
  assert.match(contentType ?? '', /^application\/json/, `content type of a ${status}`);
  const json = JSON.parse(body) as { statusCode?: unknown; error?: unknown; message?: unknown };
  assert.equal(json.statusCode, status);
  assert.equal(typeof json.error, 'string');
  assert.ok(typeof json.message === 'string' && json.message.trim() !== '', `no message in ${body}`);
}

export { sha256 };

/** The URLs of an answer's JSON at any depth: absolute ones, as the reference writes them in its two named styles. */
export const absoluteUrls = (value: unknown) => urlReferences(value, 'http://reference.invalid/').map(({ url }) => url);

/** Deterministic bytes of a given size, different per name. */
export function bytesOf(name: string, size: number): Buffer {
  const block = createHash('sha256').update(name).digest();
  const out = Buffer.alloc(size);
  for (let at = 0; at < size; at += block.length) block.copy(out, at);
  return out;
}

export interface FilePart {
  name: string;
  bytes: Buffer;
  field?: string;
}

export type Fields = Record<string, string | string[]>;

/** A multipart/form-data body built by hand, so tests control every byte. */
export function multipart(fields: Fields, files: FilePart[], boundary = 'reference-test-boundary'): { payload: Buffer; contentType: string } {
  const chunks: Buffer[] = [];
  for (const [name, value] of Object.entries(fields)) {
    for (const item of Array.isArray(value) ? value : [value]) {
      chunks.push(Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="${name}"\r\n\r\n${item}\r\n`));
    }
  }
  for (const file of files) {
    chunks.push(
      Buffer.from(
        `--${boundary}\r\nContent-Disposition: form-data; name="${file.field ?? FILE_FORM_KEY}"; filename="${file.name}"\r\n` +
          'Content-Type: application/octet-stream\r\n\r\n',
      ),
      file.bytes,
      Buffer.from('\r\n'),
    );
  }
  chunks.push(Buffer.from(`--${boundary}--\r\n`));
  return { payload: Buffer.concat(chunks), contentType: `multipart/form-data; boundary=${boundary}` };
}

export const validFields = (extra: Fields = {}): Fields => ({
  locationId: WORLD.locationId,
  conversationId: WORLD.conversationId,
  attachmentUrls: '[]',
  ...extra,
});

export const apiHeaders = (token: string | null = WORLD.tokens.access): Record<string, string> => ({
  version: API_VERSION,
  ...(token === null ? {} : { authorization: `Bearer ${token}` }),
});

export interface UploadOptions {
  fields?: Fields;
  files?: FilePart[];
  headers?: Record<string, string>;
}

export function upload(app: FastifyInstance, options: UploadOptions = {}): Promise<LightMyRequestResponse> {
  const { payload, contentType } = multipart(options.fields ?? validFields(), options.files ?? [{ name: 'photo.png', bytes: bytesOf('photo', 1000) }]);
  return app.inject({
    method: 'POST',
    url: UPLOAD_PATH,
    headers: { ...(options.headers ?? apiHeaders()), 'content-type': contentType },
    payload,
  });
}


/** Uploads one file and answers its URL. */
export async function uploadedUrl(app: FastifyInstance, options: UploadOptions = {}): Promise<string> {
  const response = await upload(app, options);
  const [url] = absoluteUrls(response.json());
  if (!url) throw new Error(`upload gave no URL: ${response.statusCode} ${response.body}`);
  return url;
}

/** GET of an absolute URL the server handed out, on its host (a style may serve files from an origin of their own). */
export function fetchUrl(app: FastifyInstance, url: string, headers: Record<string, string> = {}): Promise<LightMyRequestResponse> {
  const { pathname, search, host } = new URL(url);
  return app.inject({ method: 'GET', url: pathname + search, headers: { host, ...headers } });
}

/** The signed URL an answer of GET /files/d/{slug} hands over: its Location (the default style) or a URL of its JSON body. */
export function offeredUrl(response: LightMyRequestResponse): string | undefined {
  const location = response.headers.location;
  if (typeof location === 'string') return location;
  return /^application\/json/.test(String(response.headers['content-type'])) ? absoluteUrls(response.json())[0] : undefined;
}

export interface ExecuteOptions {
  agentId?: string;
  path?: string;
  body?: Record<string, unknown>;
  headers?: Record<string, string>;
  query?: string;
}

export function execute(app: FastifyInstance, options: ExecuteOptions = {}): Promise<LightMyRequestResponse> {
  const path = expandPath(options.path ?? DEPRECATED_EXECUTE_PATH, { agentId: options.agentId ?? WORLD.agentId });
  return app.inject({
    method: 'POST',
    url: path + (options.query ?? ''),
    headers: options.headers ?? apiHeaders(),
    payload: options.body ?? { message: 'hello', locationId: WORLD.locationId },
  });
}

export async function setClock(app: FastifyInstance, body: { now: string } | { advanceSeconds: number }): Promise<void> {
  const response = await app.inject({ method: 'POST', url: TEST_CLOCK_PATH, payload: body });
  if (response.statusCode !== 200) throw new Error(`test clock refused ${JSON.stringify(body)}: ${response.body}`);
}

export interface Ended {
  /** From connect to close. */
  ms: number;
  /** What the server wrote before closing, latin1. */
  reply: string;
  error?: string;
  /** We gave up and closed it ourselves. */
  timedOut: boolean;
}

/** A raw connection and the moment it ends; closed by us after `capMs` if the server never closes it. */
export function rawConnection(port: number, capMs: number): { socket: Socket; ended: Promise<Ended>; isOpen: () => boolean } {
  const socket = connect(port, '127.0.0.1');
  const started = performance.now();
  let open = true;
  const ended = new Promise<Ended>((resolve) => {
    const chunks: Buffer[] = [];
    let error: string | undefined;
    let timedOut = false;
    const cap = setTimeout(() => {
      timedOut = true;
      socket.destroy();
    }, capMs);
    socket.on('data', (chunk: Buffer) => chunks.push(chunk));
    socket.on('error', (e: NodeJS.ErrnoException) => (error = e.code ?? e.message));
    socket.on('close', () => {
      open = false;
      clearTimeout(cap);
      resolve({ ms: performance.now() - started, reply: Buffer.concat(chunks).toString('latin1'), error, timedOut });
    });
  });
  return { socket, ended, isOpen: () => open };
}
