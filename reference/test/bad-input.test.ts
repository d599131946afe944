// Bad input: every refusal is a 4xx JSON error, nothing lands outside the store, and the server keeps serving.
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { readdir } from 'node:fs/promises';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { Readable } from 'node:stream';
import { describe, it } from 'node:test';
import type { FastifyInstance } from 'fastify';
import { MAX_FILE_BYTES_BINARY, UPLOAD_PATH } from '../../src/contract/contract.ts';
import {
  apiHeaders,
  assertRefused,
  bytesOf,
  execute,
  type Fields,
  multipart,
  server,
  serverWithStore,
  upload,
  absoluteUrls,
  validFields,
  WORLD,
  EXECUTE_URL,
  MIB,
  rawConnection,
} from './helpers.ts';

/** Every attack file name carries this, so a stray file is easy to spot. */
const MARKER = 'bad-input-evil';
/** Bound on any wait for a socket; a test never takes longer. */
const SOCKET_WAIT_MS = 1500;

/** The answer of an inject, or a failure naming the request that got none (a hung handler empties the event loop). */
async function answered<T>(what: string, pending: Promise<T>): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`${what}: no answer within ${SOCKET_WAIT_MS} ms`)), SOCKET_WAIT_MS);
  });
  try {
    return await Promise.race([pending, timeout]);
  } finally {
    clearTimeout(timer);
  }
}

async function assertStoreEmpty(store: string): Promise<void> {
  assert.deepEqual(await readdir(store), [], 'a refused request left something in the store');
}

/** A valid upload after the bad request still answers 200 with a URL. */
async function assertStillServes(app: FastifyInstance): Promise<void> {
  const response = await upload(app);
  assert.equal(response.statusCode, 200, response.body);
  assert.equal(absoluteUrls(response.json()).length, 1);
}

// ---------------------------------------------------------------------------------------------
// Requests that share one shape: a raw body with a content type, through inject.

interface BadBody {
  name: string;
  url: string;
  contentType: string;
  payload: string | Buffer;
  status: number;
}

const BOUNDARY = 'bad-input-boundary';
const multipartType = `multipart/form-data; boundary=${BOUNDARY}`;
const closing = `--${BOUNDARY}--\r\n`;
const garbage = Buffer.from('\u0000\u00ff this is not multipart \r\n--\r\n\r\n at all \u0001');
const file = multipart(validFields(), [{ name: 'photo.png', bytes: bytesOf('photo', 1000) }], BOUNDARY).payload;

/** A body with the file first and the fields after it, so the last part is a field. */
function fileFirst(fields: Fields, size = 1000): Buffer {
  const files = multipart({}, [{ name: 'first.png', bytes: bytesOf('first', size) }], BOUNDARY).payload;
  return Buffer.concat([withoutClosing(files), multipart(fields, [], BOUNDARY).payload]);
}

function withoutClosing(body: Buffer): Buffer {
  assert.equal(body.subarray(body.length - closing.length).toString(), closing);
  return body.subarray(0, body.length - closing.length);
}

const badBodies: BadBody[] = [
  { name: 'multipart: garbage body under a boundary', url: UPLOAD_PATH, contentType: multipartType, payload: garbage, status: 400 },
  { name: 'multipart: no boundary parameter', url: UPLOAD_PATH, contentType: 'multipart/form-data', payload: file, status: 400 },
  { name: 'multipart: empty boundary parameter', url: UPLOAD_PATH, contentType: 'multipart/form-data; boundary=', payload: file, status: 400 },
  { name: 'multipart: boundary that is not in the body', url: UPLOAD_PATH, contentType: 'multipart/form-data; boundary=other', payload: file, status: 400 },
  { name: 'multipart: closing boundary missing after a file', url: UPLOAD_PATH, contentType: multipartType, payload: withoutClosing(file), status: 400 },
  // The parser drops the part the body ended in; the upload must not go ahead without it.
  { name: 'multipart: closing boundary missing after a field', url: UPLOAD_PATH, contentType: multipartType, payload: withoutClosing(fileFirst(validFields())), status: 400 },
  { name: 'multipart: fields only, closing boundary missing', url: UPLOAD_PATH, contentType: multipartType, payload: withoutClosing(multipart(validFields(), [], BOUNDARY).payload), status: 400 },
  { name: 'wrong content type: application/json', url: UPLOAD_PATH, contentType: 'application/json', payload: JSON.stringify(validFields()), status: 415 },
  { name: 'wrong content type: text/plain', url: UPLOAD_PATH, contentType: 'text/plain', payload: 'photo.png', status: 415 },
  { name: 'wrong content type: application/x-www-form-urlencoded', url: UPLOAD_PATH, contentType: 'application/x-www-form-urlencoded', payload: 'a=b', status: 415 },
  { name: 'execute: invalid JSON', url: EXECUTE_URL, contentType: 'application/json', payload: `{"message": "hello", "locationId": "${WORLD.locationId}"`, status: 400 },
  { name: 'execute: empty JSON body', url: EXECUTE_URL, contentType: 'application/json', payload: '', status: 400 },
  {
    name: 'execute: JSON body over 1 MiB',
    url: EXECUTE_URL,
    contentType: 'application/json',
    payload: JSON.stringify({ message: 'x'.repeat(MIB), locationId: WORLD.locationId }),
    status: 413,
  },
];

describe('bad bodies', () => {
  for (const bad of badBodies) {
    it(`${bad.name} → ${bad.status}`, async () => {
      const { app, store } = await serverWithStore();
      try {
        const response = await answered(
          bad.name,
          app.inject({ method: 'POST', url: bad.url, headers: { ...apiHeaders(), 'content-type': bad.contentType }, payload: bad.payload }),
        );
        assertRefused(response.statusCode, response.headers['content-type'] as string | undefined, response.body, bad.status);
        await assertStoreEmpty(store);
        if (bad.url === EXECUTE_URL) assert.equal((await execute(app)).statusCode, 200);
        await assertStillServes(app);
      } finally {
        await app.close();
      }
    });
  }
});

// ---------------------------------------------------------------------------------------------
// File names that try to leave the store.

const attackNames = [
  `../../${MARKER}.png`,
  `../${MARKER}.png`,
  `a/${MARKER}.png`,
  `/tmp/${MARKER}.png`,
  `a\\${MARKER}.png`,
  `..\\..\\${MARKER}.png`,
  `C:\\${MARKER}.png`,
  `..${MARKER}.png`,
  `${MARKER}...png`,
  `${MARKER}\u0000.png`,
  `${MARKER}.png\u0000.txt`,
  `${MARKER}\u0001.png`,
  `${MARKER}\t.png`,
  `${MARKER}\u001f.png`,
  `${MARKER}\u007f.png`,
  // A raw line break ends the part's header line: the file is lost, and the upload is refused for that.
  `${MARKER}\n.png`,
];

/** Where a careless server would have put the file, and every entry there carrying the marker. */
async function strayFiles(store: string, name: string): Promise<string[]> {
  const stray: string[] = [];
  const beforeNul = name.split('\u0000')[0];
  for (const base of [store, tmpdir(), process.cwd()]) {
    for (const candidate of [name, beforeNul]) {
      const path = resolve(base, candidate);
      if (!path.includes('\u0000') && existsSync(path)) stray.push(path);
    }
  }
  const dirs = [tmpdir(), dirname(tmpdir()), store, process.cwd()];
  for (const dir of dirs) {
    for (const entry of await readdir(dir, { recursive: dir === store })) {
      if (entry.includes(MARKER)) stray.push(join(dir, entry));
    }
  }
  return stray;
}

/** The name as a test title: every control character visible. */
const shown = (name: string) => JSON.stringify(name).replace(/\u007f/g, '\\u007f');

describe('file names with paths and control characters', () => {
  for (const name of attackNames) {
    it(`refuses ${shown(name)}`, async () => {
      const { app, store } = await serverWithStore();
      try {
        assert.deepEqual(await strayFiles(store, name), [], 'stray files before the test');
        const response = await answered(name, upload(app, { files: [{ name, bytes: bytesOf(name, 2000) }] }));
        assertRefused(response.statusCode, response.headers['content-type'] as string | undefined, response.body, 400);
        await assertStoreEmpty(store);
        assert.deepEqual(await strayFiles(store, name), []);
        await assertStillServes(app);
      } finally {
        await app.close();
      }
    });
  }
});

// ---------------------------------------------------------------------------------------------
// Over a real socket: bodies that end early, and a file too large that is refused mid-stream.

interface RawReply {
  status?: number;
  contentType?: string;
  body: string;
  /** Bytes of the answer, 0 when the server closed without one. */
  received: number;
  /** The client socket's error code, e.g. ECONNRESET. */
  error?: string;
  timedOut: boolean;
}

interface RawRequest {
  headers: Record<string, string>;
  body: Buffer;
  /** Declared Content-Length; the real length when absent. */
  contentLength?: number;
  /** End our half of the connection once the body is written. */
  halfClose?: boolean;
}

/** Writes a POST to the upload path as raw bytes and reads the answer until the server closes. */
async function rawUpload(port: number, request: RawRequest): Promise<RawReply> {
  const { socket, ended } = rawConnection(port, SOCKET_WAIT_MS);
  const head = [
    `POST ${UPLOAD_PATH} HTTP/1.1`,
    `host: 127.0.0.1:${port}`,
    'connection: close',
    `content-length: ${request.contentLength ?? request.body.length}`,
    ...Object.entries(request.headers).map(([key, value]) => `${key}: ${value}`),
  ];
  socket.write(`${head.join('\r\n')}\r\n\r\n`);
  socket.write(request.body);
  if (request.halfClose) socket.end();
  const { reply, error, timedOut } = await ended;
  return { ...parseReply(Buffer.from(reply, 'latin1')), error, timedOut };
}

function parseReply(bytes: Buffer): Pick<RawReply, 'status' | 'contentType' | 'body' | 'received'> {
  const end = bytes.indexOf('\r\n\r\n');
  if (end < 0) return { body: bytes.toString('latin1'), received: bytes.length };
  const [statusLine, ...lines] = bytes.subarray(0, end).toString('latin1').split('\r\n');
  const headers = new Map(lines.map((line) => [line.slice(0, line.indexOf(':')).trim().toLowerCase(), line.slice(line.indexOf(':') + 1).trim()]));
  const length = headers.get('content-length');
  const rest = bytes.subarray(end + 4);
  return {
    status: Number(/^HTTP\/1\.[01] (\d{3})/.exec(statusLine)?.[1]),
    contentType: headers.get('content-type'),
    body: (length === undefined ? rest : rest.subarray(0, Number(length))).toString('utf8'),
    received: bytes.length,
  };
}

const multipartHeaders = { ...apiHeaders(), 'content-type': multipartType };
const bodyWith = (name: string, size: number) => multipart(validFields(), [{ name, bytes: bytesOf(name, size) }], BOUNDARY).payload;

/** A valid upload over the same listening socket still answers 200, then the same through inject. */
async function assertStillServesOverSocket(app: FastifyInstance, port: number): Promise<void> {
  const reply = await rawUpload(port, { headers: multipartHeaders, body: bodyWith('after.png', 1000) });
  assert.equal(reply.status, 200, reply.body);
  assert.equal(absoluteUrls(JSON.parse(reply.body)).length, 1);
  await assertStillServes(app);
}

async function listening(): Promise<{ app: FastifyInstance; store: string; port: number }> {
  const { app, store } = await serverWithStore();
  await app.listen({ port: 0, host: '127.0.0.1' });
  return { app, store, port: (app.server.address() as AddressInfo).port };
}

interface Truncated {
  name: string;
  request: () => RawRequest;
  /** The whole declared body arrived, so the server must answer rather than just close. */
  mustAnswer: boolean;
}

const full = bodyWith('cut.png', 64 * 1024);
const fileStart = full.indexOf('filename="cut.png"');
const secureFields = validFields({ isSecureAttachment: 'true' });

const truncated: Truncated[] = [
  {
    name: 'cut in the middle of a file part, declared length larger, client half-closes',
    request: () => ({ headers: multipartHeaders, body: full.subarray(0, fileStart + 32 * 1024), contentLength: full.length, halfClose: true }),
    mustAnswer: false,
  },
  {
    name: 'cut inside the part headers, declared length larger, client half-closes',
    request: () => ({ headers: multipartHeaders, body: full.subarray(0, fileStart + 10), contentLength: full.length, halfClose: true }),
    mustAnswer: false,
  },
  {
    name: 'whole declared length sent, but the closing boundary is missing',
    request: () => ({ headers: multipartHeaders, body: withoutClosing(full) }),
    mustAnswer: true,
  },
  {
    name: 'whole declared length sent, cut in the middle of the file part',
    request: () => ({ headers: multipartHeaders, body: full.subarray(0, fileStart + 32 * 1024) }),
    mustAnswer: true,
  },
  {
    // Before the fix the parser dropped the last field and the upload went ahead as a public, permanent file.
    name: 'whole declared length sent, closing boundary missing after the isSecureAttachment field',
    request: () => ({ headers: multipartHeaders, body: withoutClosing(fileFirst(secureFields, 64 * 1024)) }),
    mustAnswer: true,
  },
];

describe('truncated multipart over a real socket', () => {
  for (const cut of truncated) {
    it(cut.name, async () => {
      const { app, store, port } = await listening();
      try {
        const reply = await rawUpload(port, cut.request());
        assert.equal(reply.timedOut, false, `no answer and no close within ${SOCKET_WAIT_MS} ms`);
        if (cut.mustAnswer) assert.ok(reply.received > 0, `the server closed without an answer (${reply.error ?? 'clean close'})`);
        if (reply.received > 0) assertRefused(reply.status, reply.contentType, reply.body);
        // Either way the server is still up, and the partial file is gone once it has answered again.
        await assertStillServesOverSocket(app, port);
        const left = await readdir(store);
        assert.equal(left.length, 2, `the two valid uploads and nothing else: ${left.join(', ')}`);
      } finally {
        await app.close();
      }
    });
  }
});

describe('well-formed bodies next to the malformed ones are still accepted', () => {
  it('the secure upload above, with its closing boundary, over a real socket → 200 and a secure URL', async () => {
    const { app, port } = await listening();
    try {
      const reply = await rawUpload(port, { headers: multipartHeaders, body: fileFirst(secureFields, 64 * 1024) });
      assert.equal(reply.status, 200, reply.body);
      const [url] = absoluteUrls(JSON.parse(reply.body));
      assert.match(url ?? '', /\/files\/d\//);
    } finally {
      await app.close();
    }
  });

  const accepted: { name: string; contentType: string; payload: () => Buffer | Readable }[] = [
    { name: 'an epilogue after the closing boundary', contentType: multipartType, payload: () => Buffer.concat([file, Buffer.from('epilogue\r\n')]) },
    { name: 'no line break after the closing boundary', contentType: multipartType, payload: () => file.subarray(0, file.length - 2) },
    {
      name: 'the closing boundary split across two chunks',
      contentType: multipartType,
      payload: () => Readable.from([file.subarray(0, file.length - 8), file.subarray(file.length - 8)]),
    },
    {
      name: 'a quoted boundary with a space and punctuation',
      contentType: `multipart/form-data; boundary="b (2)+_,-./:=?'x"; charset=utf-8`,
      payload: () => multipart(validFields(), [{ name: 'q.png', bytes: bytesOf('q', 100) }], "b (2)+_,-./:=?'x").payload,
    },
  ];
  for (const body of accepted) {
    it(`${body.name} → 200`, async () => {
      const app = await server();
      try {
        const response = await answered(
          body.name,
          app.inject({ method: 'POST', url: UPLOAD_PATH, headers: { ...apiHeaders(), 'content-type': body.contentType }, payload: body.payload() }),
        );
        assert.equal(response.statusCode, 200, response.body);
      } finally {
        await app.close();
      }
    });
  }
});

describe('a file over the limit over a real socket', () => {
  it('refuses 5 MiB + 1 byte mid-stream with a 413 JSON answer, not a reset, and keeps no partial file', async () => {
    const { app, store, port } = await listening();
    try {
      const reply = await rawUpload(port, { headers: multipartHeaders, body: bodyWith('big.png', MAX_FILE_BYTES_BINARY + 1) });
      assert.equal(reply.timedOut, false, `no answer within ${SOCKET_WAIT_MS} ms`);
      assert.equal(reply.error, undefined, `the client saw ${reply.error}`);
      assertRefused(reply.status, reply.contentType, reply.body, 413);
      await assertStoreEmpty(store);
      await assertStillServesOverSocket(app, port);
    } finally {
      await app.close();
    }
  });

  it('accepts exactly 5 MiB over the same path, so the refusal above is the limit and not the socket', async () => {
    const { app, port } = await listening();
    try {
      const reply = await rawUpload(port, { headers: multipartHeaders, body: bodyWith('edge.png', MAX_FILE_BYTES_BINARY) });
      assert.equal(reply.status, 200, reply.body);
    } finally {
      await app.close();
    }
  });
});

describe('the store directory', () => {
  it('is removed on app.close()', async () => {
    const { app, store } = await serverWithStore();
    let closed = false;
    try {
      assert.ok(existsSync(store));
      assert.ok(resolve(store).startsWith(resolve(tmpdir())), `${store} is not under ${tmpdir()}`);
      await assertStillServes(app);
      assert.equal((await readdir(store)).length, 1);
      await app.close();
      closed = true;
      assert.equal(existsSync(store), false, `${store} is still there after close`);
    } finally {
      if (!closed) await app.close();
    }
  });
});
