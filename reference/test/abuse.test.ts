// Abuse: many clients at once, slow clients, floods of bad requests, and who may read a private attachment.
// Over a real loopback socket where concurrency or timing is the point; through inject where it is not.
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { readdir } from 'node:fs/promises';
import { Agent, request as httpRequest } from 'node:http';
import { type AddressInfo, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { describe, it, mock, type TestContext } from 'node:test';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import type { FastifyInstance, LightMyRequestResponse } from 'fastify';
import { API_VERSION, UPLOAD_PATH } from '../../src/contract/contract.ts';
import { FileStore, type StoredFile } from '../file-store.ts';
import { buildServer } from '../server.ts';
import {
  apiHeaders,
  assertRefused,
  bytesOf,
  type Fields,
  fetchUrl,
  multipart,
  offeredUrl,
  serverWithStore,
  setClock,
  T0,
  upload,
  absoluteUrls,
  validFields,
  WORLD,
  EXECUTE_URL,
  MIB,
  rawConnection,
  type Ended,
} from './helpers.ts';

/** Every attack file name carries this, so a stray file is easy to spot. */
const MARKER = 'abuse-evil';
const secureFields = validFields({ isSecureAttachment: 'true' });

// A collected heap, so a memory figure after a run measures what stayed, not garbage not yet collected.
// `--expose-gc` cannot be passed through `tsx --test`; set at run time it takes effect for new contexts.
setFlagsFromString('--expose-gc');
const gc = runInNewContext('gc') as () => void;

const rssMiB = () => process.memoryUsage().rss / MIB;
/** RSS and live heap (V8 heap plus buffers) after a full GC. */
const settled = () => {
  gc();
  const { rss, heapUsed, external } = process.memoryUsage();
  return { rssMiB: rss / MIB, liveMiB: (heapUsed + external) / MIB };
};

/** The highest RSS seen while `work` runs, sampled every few ms. */
async function peakRssDuring<T>(work: () => Promise<T>): Promise<{ result: T; peakMiB: number }> {
  let peakMiB = rssMiB();
  const sampler = setInterval(() => (peakMiB = Math.max(peakMiB, rssMiB())), 5);
  try {
    const result = await work();
    return { result, peakMiB: Math.max(peakMiB, rssMiB()) };
  } finally {
    clearInterval(sampler);
  }
}

const fmt = (n: number) => n.toFixed(1);

async function listening(build?: () => Promise<FastifyInstance>): Promise<{ app: FastifyInstance; store: string; port: number }> {
  const { app, store } = await serverWithStore(build);
  await app.listen({ port: 0, host: '127.0.0.1' });
  return { app, store, port: (app.server.address() as AddressInfo).port };
}

/** Polls until `check` holds or `ms` pass; answers whether it held. */
async function eventually(check: () => Promise<boolean> | boolean, ms: number): Promise<boolean> {
  const until = Date.now() + ms;
  for (;;) {
    if (await check()) return true;
    if (Date.now() >= until) return false;
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

const storeCount = async (store: string) => (await readdir(store)).length;

// ---------------------------------------------------------------------------------------------
// A small HTTP client over node:http, so a test decides when each part of a body goes out.

interface HttpReply {
  status: number;
  contentType: string;
  body: Buffer;
}

interface HttpSend {
  method?: string;
  path: string;
  headers?: Record<string, string>;
  body?: Buffer;
  /** Written at once; the rest of `body` only after this resolves. */
  holdAfter?: { bytes: number; until: Promise<void> };
}

function send(port: number, agent: Agent, options: HttpSend): Promise<HttpReply> {
  return new Promise((resolve, reject) => {
    const body = options.body ?? Buffer.alloc(0);
    const req = httpRequest(
      {
        host: '127.0.0.1',
        port,
        agent,
        method: options.method ?? 'GET',
        path: options.path,
        headers: { ...options.headers, ...(options.body ? { 'content-length': String(body.length) } : {}) },
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (chunk: Buffer) => chunks.push(chunk));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, contentType: String(res.headers['content-type'] ?? ''), body: Buffer.concat(chunks) }));
        res.on('error', reject);
      },
    );
    req.on('error', reject);
    const hold = options.holdAfter;
    if (hold) {
      req.write(body.subarray(0, hold.bytes));
      void hold.until.then(() => req.end(body.subarray(hold.bytes)), (error: unknown) => req.destroy(error as Error));
    } else {
      req.end(body);
    }
  });
}

function uploadOver(port: number, agent: Agent, fields: Fields, name: string, bytes: Buffer, holdAfter?: HttpSend['holdAfter']) {
  const { payload, contentType } = multipart(fields, [{ name, bytes }]);
  return send(port, agent, { method: 'POST', path: UPLOAD_PATH, headers: { ...apiHeaders(), 'content-type': contentType }, body: payload, holdAfter });
}

const getUrl = (agent: Agent, url: string) => {
  const { port, pathname, search } = new URL(url);
  return send(Number(port), agent, { path: pathname + search });
};

/** One valid upload over its own connection answers 200 with one URL. */
async function assertUploadWorks(port: number, name = 'still-ok.png'): Promise<void> {
  const agent = new Agent({ keepAlive: false });
  try {
    const reply = await uploadOver(port, agent, validFields(), name, bytesOf(name, 1000));
    assert.equal(reply.status, 200, reply.body.toString());
    assert.equal(absoluteUrls(JSON.parse(reply.body.toString())).length, 1);
  } finally {
    agent.destroy();
  }
}

// ---------------------------------------------------------------------------------------------
// 1. Many uploads at once.

describe('200 concurrent uploads over a real socket', () => {
  const COUNT = 200;
  /**
   * Bound on the RSS growth of this process (client and server both) from before the burst to its peak.
   * What the burst needs: 200 request bodies of 2–20 KiB (2.1 MiB in all, built before measuring), 200 sockets on
   * each end with their stream buffers, 200 multipart parsers and file write streams, and V8's young generation
   * growing under the allocation rate. Measured on this 2-core machine: +22–26 MiB. 100 MiB leaves room for a
   * slower GC on a loaded machine, and fails when the server holds ~0.5 MiB per upload in flight, e.g. a whole
   * bodyLimit-sized (1 MiB) buffer per request, or copies of every body several times over.
   */
  const RSS_PEAK_BOUND_MIB = 100;

  it('each answers 200 with a URL serving exactly its bytes; 200 files stored; the server still answers', { timeout: 30_000 }, async (t: TestContext) => {
    const { app, store, port } = await listening();
    const agent = new Agent({ keepAlive: false, maxSockets: COUNT + 10 });
    try {
      const uploads = Array.from({ length: COUNT }, (_, i) => {
        const secure = i % 2 === 0;
        const name = `burst-${i}.${['png', 'pdf', 'txt', 'jpg'][Math.floor(i / 2) % 4]}`;
        // 2–20 KiB, spread over the range, different bytes per file.
        return { name, secure, bytes: bytesOf(name, 2048 + ((i * 7919) % (18 * 1024))) };
      });
      // Every request sends its headers and the first half of its body, then waits until the server has taken in all
      // 200 requests (headers parsed, handed to Fastify, bodies half there); only then do the bodies finish.
      let arrived = 0;
      let releaseAll!: () => void;
      const released = new Promise<void>((resolve) => (releaseAll = resolve));
      const onRequest = (req: { url?: string }) => {
        if (req.url === UPLOAD_PATH && ++arrived === COUNT) releaseAll();
      };
      app.server.on('request', onRequest);
      let open = 0;
      let peakOpen = 0;
      app.server.on('connection', (socket: Socket) => {
        peakOpen = Math.max(peakOpen, ++open);
        socket.once('close', () => open--);
      });

      const before = settled();
      const started = performance.now();
      let barrierMs = 0;
      let giveUp: NodeJS.Timeout | undefined;
      const barrier = Promise.race([
        released.then(() => {
          barrierMs = performance.now() - started;
        }),
        new Promise<never>((_, reject) => {
          giveUp = setTimeout(() => reject(new Error(`only ${arrived} of ${COUNT} uploads arrived within 15 s`)), 15_000);
        }),
      ]).finally(() => clearTimeout(giveUp));
      const { result: replies, peakMiB } = await peakRssDuring(() =>
        Promise.all(
          uploads.map((u) =>
            uploadOver(port, agent, u.secure ? secureFields : validFields(), u.name, u.bytes, { bytes: 200 + Math.floor(u.bytes.length / 2), until: barrier }),
          ),
        ),
      );
      const burstMs = performance.now() - started;
      app.server.off('request', onRequest);

      assert.equal(arrived, COUNT);
      const urls = replies.map((reply, i) => {
        assert.equal(reply.status, 200, `upload ${i}: ${reply.body.toString()}`);
        assert.match(reply.contentType, /^application\/json/);
        const files = (JSON.parse(reply.body.toString()) as { uploadedFiles: Record<string, string> }).uploadedFiles;
        assert.deepEqual(Object.keys(files), [uploads[i].name]);
        const url = files[uploads[i].name];
        assert.match(url, uploads[i].secure ? /\/files\/d\/[^/]+$/ : /\/files\/p\/[^/]+\/[^/]+$/, `upload ${i}`);
        return url;
      });
      assert.equal(new Set(urls).size, COUNT, 'two uploads got the same URL');

      // Every URL serves exactly its own bytes (the secure ones anonymously, within their hour).
      const fetched = await Promise.all(urls.map((url) => getUrl(agent, url)));
      fetched.forEach((reply, i) => {
        assert.equal(reply.status, 200, `GET ${urls[i]}: ${reply.body.toString().slice(0, 200)}`);
        assert.ok(reply.body.equals(uploads[i].bytes), `GET ${urls[i]} served ${reply.body.length} bytes other than upload ${i}'s ${uploads[i].bytes.length}`);
      });

      assert.equal(await storeCount(store), COUNT, 'files in the store');
      await assertUploadWorks(port);
      const after = settled();
      const growth = peakMiB - before.rssMiB;
      t.diagnostic(
        `${COUNT} uploads (${fmt(uploads.reduce((sum, u) => sum + u.bytes.length, 0) / 1024)} KiB): all 200 in the server at once after ${fmt(barrierMs)} ms, ` +
          `all answered after ${fmt(burstMs)} ms; peak ${peakOpen} open server connections; RSS ${fmt(before.rssMiB)} MiB before, ` +
          `peak +${fmt(growth)} MiB during the burst; after the 200 downloads and a GC: RSS +${fmt(after.rssMiB - before.rssMiB)} MiB, ` +
          `live heap +${fmt(after.liveMiB - before.liveMiB)} MiB`,
      );
      assert.ok(growth < RSS_PEAK_BOUND_MIB, `RSS grew by ${fmt(growth)} MiB during the burst (bound ${RSS_PEAK_BOUND_MIB})`);
    } finally {
      agent.destroy();
      await app.close();
    }
  });
});

// ---------------------------------------------------------------------------------------------
// 2. Slow clients.


/** Writes `text` a piece at a time every `everyMs` until the socket closes. */
function trickle(socket: Socket, piece: (n: number) => string, everyMs: number): void {
  let n = 0;
  const timer = setInterval(() => {
    if (socket.writable) socket.write(piece(n++));
  }, everyMs);
  socket.once('close', () => clearInterval(timer));
}

/** The server closed without an answer, or answered a 4xx (408) first. */
function assertCutOff(what: string, ended: Ended, boundMs: number): void {
  assert.equal(ended.timedOut, false, `${what}: still open after ${boundMs} ms`);
  assert.ok(ended.ms < boundMs, `${what}: closed after ${fmt(ended.ms)} ms`);
  if (ended.reply !== '') assert.match(ended.reply, /^HTTP\/1\.1 4\d\d /, `${what}: answered ${ended.reply.slice(0, 80)}`);
}

const uploadHead = (port: number, contentLength: number) =>
  [
    `POST ${UPLOAD_PATH} HTTP/1.1`,
    `host: 127.0.0.1:${port}`,
    `version: ${API_VERSION}`,
    `authorization: Bearer ${WORLD.tokens.access}`,
    `content-type: ${multipart({}, []).contentType}`,
    `content-length: ${contentLength}`,
    'connection: close',
    '',
    '',
  ].join('\r\n');

describe('slow clients over a real socket (requestTimeoutMs: 1000)', () => {
  const TIMEOUT_MS = 1000;
  /** How long a stalled client may hold a connection with a 1 s timeout: the cut-off plus slack for a loaded machine. */
  const CUT_BOUND_MS = 5000;
  const build = () => buildServer({ seed: 'reference-tests', testClock: { start: Date.parse(T0) }, requestTimeoutMs: TIMEOUT_MS });

  it('a body that stalls inside a file part is cut off; another upload succeeds meanwhile; no partial file stays', { timeout: 10_000 }, async (t: TestContext) => {
    const { app, store, port } = await listening(build);
    try {
      // The start of a 10 MB upload: the fields, a file part's headers and 1000 bytes of the file, then nothing.
      const full = multipart(validFields(), [{ name: 'stalled.png', bytes: bytesOf('stalled', 10 * MIB) }]).payload;
      const sent = full.indexOf('filename="stalled.png"') + 200 + 1000;
      const slow = rawConnection(port, CUT_BOUND_MS + 1000);
      slow.socket.write(uploadHead(port, full.length));
      slow.socket.write(full.subarray(0, sent));

      await new Promise((resolve) => setTimeout(resolve, 200));
      const otherStarted = performance.now();
      await assertUploadWorks(port, 'meanwhile.png');
      const otherMs = performance.now() - otherStarted;
      assert.ok(slow.isOpen(), 'the slow client was already cut off, so "meanwhile" proves nothing');

      const ended = await slow.ended;
      assertCutOff('stalled body', ended, CUT_BOUND_MS);
      // The stalled upload's partial file goes; the one from the other connection stays.
      assert.ok(await eventually(async () => (await storeCount(store)) === 1, 2000), `store holds ${(await readdir(store)).join(', ')}`);
      await assertUploadWorks(port, 'after.png');
      t.diagnostic(`stalled body cut after ${fmt(ended.ms)} ms (${ended.reply === '' ? `closed, ${ended.error ?? 'clean'}` : ended.reply.split('\r\n')[0]}); other upload took ${fmt(otherMs)} ms`);
    } finally {
      await app.close();
    }
  });

  it('a header block that stalls, and a connection that sends nothing, are cut off; others are served meanwhile', { timeout: 10_000 }, async (t: TestContext) => {
    const { app, store, port } = await listening(build);
    try {
      const headers = rawConnection(port, CUT_BOUND_MS + 1000);
      headers.socket.write(`POST ${UPLOAD_PATH} HTTP/1.1\r\nhost: 127.0.0.1:${port}\r\nversion: ${API_VERSION}\r\nx-slow: a`);
      const silent = rawConnection(port, CUT_BOUND_MS + 1000);

      await new Promise((resolve) => setTimeout(resolve, 200));
      await assertUploadWorks(port, 'meanwhile.png');
      assert.ok(headers.isOpen() && silent.isOpen(), 'a slow client was already cut off, so "meanwhile" proves nothing');

      const [h, s] = await Promise.all([headers.ended, silent.ended]);
      assertCutOff('stalled header block', h, CUT_BOUND_MS);
      assertCutOff('silent connection', s, CUT_BOUND_MS);
      assert.equal(await storeCount(store), 1);
      await assertUploadWorks(port, 'after.png');
      t.diagnostic(`stalled headers cut after ${fmt(h.ms)} ms, silent connection after ${fmt(s.ms)} ms`);
    } finally {
      await app.close();
    }
  });

  // Node checks its request limits every connectionsCheckingInterval and lets headers take headersTimeout;
  // buildServer sets both from requestTimeoutMs, so a client that keeps trickling is cut off too.
  it(
    'clients that keep trickling (a header line, or a body byte, every 200 ms) are cut off too',
    { timeout: 10_000 },
    async (t: TestContext) => {
      const { app, port } = await listening(build);
      try {
        const headers = rawConnection(port, CUT_BOUND_MS);
        headers.socket.write(`GET /__test/clock HTTP/1.1\r\nhost: 127.0.0.1:${port}\r\n`);
        trickle(headers.socket, (n) => `x-slow-${n}: a\r\n`, 200);
        const body = rawConnection(port, CUT_BOUND_MS);
        body.socket.write(uploadHead(port, 10 * MIB));
        body.socket.write(multipart(validFields(), []).payload.subarray(0, 100));
        trickle(body.socket, () => 'x', 200);

        await new Promise((resolve) => setTimeout(resolve, 200));
        await assertUploadWorks(port, 'meanwhile.png');
        const [h, b] = await Promise.all([headers.ended, body.ended]);
        t.diagnostic(`header trickle: ${h.timedOut ? `still open after ${CUT_BOUND_MS} ms` : `cut after ${fmt(h.ms)} ms`}; body trickle: ${b.timedOut ? `still open after ${CUT_BOUND_MS} ms` : `cut after ${fmt(b.ms)} ms`}`);
        assertCutOff('header trickle', h, CUT_BOUND_MS);
        assertCutOff('body trickle', b, CUT_BOUND_MS);
      } finally {
        await app.close();
      }
    },
  );
});

// ---------------------------------------------------------------------------------------------
// 3. Truncated multipart, many at once (bad-input.test.ts covers the kinds in depth).

describe('50 truncated uploads in parallel over a real socket', () => {
  it('each is refused or closed, nothing stays in the store, and the server answers afterwards', { timeout: 15_000 }, async (t: TestContext) => {
    const COUNT = 50;
    const { app, store, port } = await listening();
    try {
      const started = performance.now();
      const results = await Promise.all(
        Array.from({ length: COUNT }, async (_, i) => {
          const name = `cut-${i}.png`;
          const { payload: full, contentType } = multipart(i % 3 === 2 ? secureFields : validFields(), [{ name, bytes: bytesOf(name, 16 * 1024 + i * 512) }]);
          const withoutClosing = full.subarray(0, full.lastIndexOf(`\r\n--${contentType.split('boundary=')[1]}--`));
          const conn = rawConnection(port, 5000);
          // Even: the whole declared length arrives, but the closing boundary is missing → must answer.
          // Odd: the body stops in the middle of the file and the client half-closes → may answer or close.
          const cutAt = i % 2 === 0 ? withoutClosing.length : full.indexOf(`filename="${name}"`) + 100 + i * 97;
          conn.socket.write(uploadHead(port, i % 2 === 0 ? withoutClosing.length : full.length));
          conn.socket.write(full.subarray(0, cutAt));
          if (i % 2 === 1) conn.socket.end();
          return { i, ended: await conn.ended };
        }),
      );
      const ms = performance.now() - started;
      for (const { i, ended } of results) {
        assert.equal(ended.timedOut, false, `truncated upload ${i}: no answer or close within 5 s`);
        if (i % 2 === 0) assert.ok(ended.reply !== '', `truncated upload ${i}: closed without an answer (${ended.error ?? 'clean'})`);
        if (ended.reply !== '') {
          const [head, body = ''] = ended.reply.split('\r\n\r\n');
          const status = Number(/^HTTP\/1\.1 (\d{3})/.exec(head)?.[1]);
          assertRefused(status, /content-type: ([^\r\n]+)/i.exec(head)?.[1], body, 400);
        }
      }
      assert.ok(await eventually(async () => (await storeCount(store)) === 0, 2000), `store holds ${(await readdir(store)).join(', ')}`);
      await assertUploadWorks(port);
      assert.equal(await storeCount(store), 1);
      const answered = results.filter((r) => r.ended.reply !== '').length;
      t.diagnostic(`${COUNT} truncated uploads settled in ${fmt(ms)} ms: ${answered} answered 400, ${COUNT - answered} closed`);
    } finally {
      await app.close();
    }
  });
});

// ---------------------------------------------------------------------------------------------
// 4. Ten thousand bad requests in a row.

interface BadRequest {
  kind: string;
  status: number;
  request: (i: number) => HttpSend;
}

const BOUNDARY = 'abuse-boundary';
const MULTIPART_TYPE = `multipart/form-data; boundary=${BOUNDARY}`;
const badUpload = (headers: Record<string, string>, body: Buffer | string, contentType = MULTIPART_TYPE): HttpSend => ({
  method: 'POST',
  path: UPLOAD_PATH,
  headers: { ...headers, 'content-type': contentType },
  body: Buffer.from(body),
});
const uploadBody = (name: string, fields: Fields = validFields()) => multipart(fields, [{ name, bytes: bytesOf(name, 512) }], BOUNDARY).payload;
const evil = (i: number, ext = 'png') => `${MARKER}-${i}.${ext}`;
const executeWith = (headers: Record<string, string>, body: string): HttpSend => ({
  method: 'POST',
  path: EXECUTE_URL,
  headers: { ...headers, 'content-type': 'application/json' },
  body: Buffer.from(body),
});

const badRequests: BadRequest[] = [
  { kind: 'upload, no Authorization', status: 401, request: (i) => badUpload(apiHeaders(null), uploadBody(evil(i))) },
  { kind: 'upload, unknown token', status: 401, request: (i) => badUpload(apiHeaders(`abuse-unknown-${i}`), uploadBody(evil(i))) },
  {
    // Half of them carry a valid token under the wrong scheme.
    kind: 'upload, Authorization not Bearer',
    status: 401,
    request: (i) =>
      badUpload({ version: API_VERSION, authorization: Math.floor(i / badRequests.length) % 2 ? `Token ${WORLD.tokens.access}` : `Basic ${Buffer.from(`u${i}:p`).toString('base64')}` }, uploadBody(evil(i))),
  },
  { kind: 'upload, unknown Version', status: 400, request: (i) => badUpload({ ...apiHeaders(), version: `v${4 + (i % 5)}` }, uploadBody(evil(i))) },
  { kind: 'upload, no Version', status: 400, request: (i) => badUpload({ authorization: `Bearer ${WORLD.tokens.access}` }, uploadBody(evil(i))) },
  { kind: 'upload, garbage under a multipart boundary', status: 400, request: (i) => badUpload(apiHeaders(), `\u0000\u00ff not multipart ${i} \r\n--\r\n\r\n`) },
  { kind: 'upload, no boundary parameter', status: 400, request: (i) => badUpload(apiHeaders(), uploadBody(evil(i)), 'multipart/form-data') },
  {
    kind: 'upload, closing boundary missing',
    status: 400,
    request: (i) => {
      const body = uploadBody(evil(i));
      return badUpload(apiHeaders(), body.subarray(0, body.length - `--${BOUNDARY}--\r\n`.length));
    },
  },
  { kind: 'upload, file name ../', status: 400, request: (i) => badUpload(apiHeaders(), uploadBody(`../${evil(i)}`)) },
  { kind: 'upload, file name ../../', status: 400, request: (i) => badUpload(apiHeaders(), uploadBody(`../../${evil(i)}`)) },
  { kind: 'upload, file name ..\\..\\', status: 400, request: (i) => badUpload(apiHeaders(), uploadBody(`..\\..\\${evil(i)}`)) },
  { kind: 'upload, absolute file name', status: 400, request: (i) => badUpload(apiHeaders(), uploadBody(join(tmpdir(), evil(i)))) },
  { kind: 'upload, file type not allowed', status: 400, request: (i) => badUpload(apiHeaders(), uploadBody(evil(i, 'exe'))) },
  { kind: 'upload, JSON instead of multipart', status: 415, request: (i) => badUpload(apiHeaders(), JSON.stringify({ name: evil(i) }), 'application/json') },
  { kind: 'upload, foreign location', status: 403, request: (i) => badUpload(apiHeaders(), uploadBody(evil(i), validFields({ locationId: WORLD.foreignLocationId }))) },
  { kind: 'execute, invalid JSON', status: 400, request: (i) => executeWith(apiHeaders(), `{"message": "hi ${i}", "locationId": `) },
  {
    kind: 'execute, unknown token',
    status: 401,
    request: (i) => executeWith(apiHeaders(`abuse-unknown-${i}`), JSON.stringify({ message: `hi ${i}`, locationId: WORLD.locationId })),
  },
  { kind: 'execute, no locationId', status: 400, request: (i) => executeWith(apiHeaders(), JSON.stringify({ message: `hi ${i}` })) },
  {
    kind: 'execute, unknown executionId',
    status: 404,
    request: (i) => executeWith(apiHeaders(), JSON.stringify({ message: `hi ${i}`, locationId: WORLD.locationId, executionId: `exec-unknown-${i}` })),
  },
  { kind: 'unknown route', status: 404, request: (i) => ({ method: i % 2 ? 'GET' : 'DELETE', path: `/abuse-nope/${i}`, headers: apiHeaders() }) },
  { kind: 'permanent URL, encoded ../ id', status: 404, request: (i) => ({ path: `/files/p/..%2F..%2F${evil(i)}/x.png` }) },
  { kind: 'secure URL, unknown slug', status: 404, request: (i) => ({ path: `/files/d/att-unknown-${i}` }) },
  { kind: 'secure URL with a reader token, unknown slug', status: 404, request: (i) => ({ path: `/files/d/att-unknown-${i}`, headers: apiHeaders(WORLD.tokens.filesReadonly) }) },
  { kind: 'signed URL, forged', status: 404, request: (i) => ({ path: `/files/signed/att-unknown-${i}?expires=9999999999&signature=forged${i}` }) },
];

/** Entries named like the attacks, where a careless server would have put them. */
async function strayFiles(store: string): Promise<string[]> {
  const stray: string[] = [];
  for (const dir of [tmpdir(), dirname(tmpdir()), process.cwd(), store]) {
    if (!existsSync(dir)) continue;
    for (const entry of await readdir(dir, { recursive: dir === store })) {
      if (entry.includes(MARKER)) stray.push(join(dir, entry));
    }
  }
  return stray;
}

// Over a real socket, though a socket is not the point: inject keeps every request whose body the handler never
// reads (light-my-request 6.6.0 on Node 20: ~9 KiB each, 45 MiB of heap per 5000 even with a bare `res.end()`
// handler), which would drown the server's own memory figure. Eight keep-alive connections, one request at a time each.
describe('10,000 bad requests in a row (8 keep-alive connections)', () => {
  const COUNT = 10_000;
  const CONCURRENCY = 8;
  /**
   * Bound on RSS growth from before the run to its peak, client and server both. Measured: +43–52 MiB, V8’s heap
   * growing under ~2000 requests/s of garbage; RSS after a GC stays 4–50 MiB up (pages V8 and malloc keep).
   * 150 MiB fails on a server that buffers or keeps bodies per request at that rate.
   */
  const RSS_PEAK_BOUND_MIB = 150;
  /**
   * Bound on the live heap (V8 heap plus buffers, after a full GC) the run leaves behind: what the process kept.
   * Nothing should stay (no file, no session, no token). Measured: −4 to +5 MiB. 20 MiB catches a leak of 2 KiB
   * per request, which is less than one request object with its headers.
   */
  const LIVE_RETAINED_BOUND_MIB = 20;

  it('every answer is a 4xx JSON with a message, the server still serves, nothing is left anywhere', { timeout: 120_000 }, async (t: TestContext) => {
    const { app, store, port } = await listening();
    const agent = new Agent({ keepAlive: true, maxSockets: CONCURRENCY });
    try {
      assert.deepEqual(await strayFiles(store), [], 'stray files before the test');
      const wrong: string[] = [];
      const byStatus = new Map<number, number>();
      const judge = async (bad: BadRequest, i: number) => {
        try {
          const reply = await send(port, agent, bad.request(i));
          byStatus.set(reply.status, (byStatus.get(reply.status) ?? 0) + 1);
          assertRefused(reply.status, reply.contentType, reply.body.toString(), bad.status);
        } catch (error) {
          wrong.push(`#${i} ${bad.kind}: ${(error as Error).message.split('\n')[0]}`);
        }
      };
      // Warm up every path once (the first 2 × kinds requests, one at a time), so the memory figure measures the
      // run and not first-time compilation.
      const WARM_UP = 2 * badRequests.length;
      for (let i = 0; i < WARM_UP; i++) await judge(badRequests[i % badRequests.length], i);
      const before = settled();
      let next = WARM_UP;
      const started = performance.now();
      const { peakMiB } = await peakRssDuring(() =>
        Promise.all(
          Array.from({ length: CONCURRENCY }, async () => {
            for (let i = next++; i < COUNT; i = next++) await judge(badRequests[i % badRequests.length], i);
          }),
        ),
      );
      const ms = performance.now() - started;
      const after = settled();
      assert.deepEqual(wrong.slice(0, 20), [], `${wrong.length} of ${COUNT} answers wrong; the first 20 are listed`);
      assert.deepEqual(await readdir(store), [], 'a refused request left something in the store');
      assert.deepEqual(await strayFiles(store), [], 'files named like the attacks outside the store');
      await assertUploadWorks(port);
      t.diagnostic(
        `${COUNT} bad requests (${badRequests.length} kinds) in ${fmt(ms)} ms (${fmt((COUNT / ms) * 1000)}/s); ` +
          `statuses ${JSON.stringify(Object.fromEntries([...byStatus].sort(([a], [b]) => a - b)))}; ` +
          `RSS ${fmt(before.rssMiB)} MiB before, peak +${fmt(peakMiB - before.rssMiB)} MiB, +${fmt(after.rssMiB - before.rssMiB)} MiB after a GC; ` +
          `live heap +${fmt(after.liveMiB - before.liveMiB)} MiB after a GC`,
      );
      assert.ok(peakMiB - before.rssMiB < RSS_PEAK_BOUND_MIB, `RSS grew by ${fmt(peakMiB - before.rssMiB)} MiB during the run (bound ${RSS_PEAK_BOUND_MIB})`);
      assert.ok(after.liveMiB - before.liveMiB < LIVE_RETAINED_BOUND_MIB, `${fmt(after.liveMiB - before.liveMiB)} MiB stayed live after the run (bound ${LIVE_RETAINED_BOUND_MIB})`);
    } finally {
      agent.destroy();
      await app.close();
    }
  });
});

// ---------------------------------------------------------------------------------------------
// 5. Who may read a private attachment: every principal × every file endpoint × within and after the hour.

type Where = 'main' | 'foreign';

interface Principal {
  name: string;
  /** Headers sent with every request of this principal to the API (the signed URL is fetched bare). */
  headers: Record<string, string>;
  /** Locations whose secure files it may get a signed URL for: files.readonly and reach. */
  reads: Where[];
  anonymous?: boolean;
}

const principals: Principal[] = [
  { name: 'ACCESS_TOKEN', headers: apiHeaders(WORLD.tokens.access), reads: [] },
  { name: 'FILES_READONLY_TOKEN', headers: apiHeaders(WORLD.tokens.filesReadonly), reads: ['main'] },
  { name: 'NO_FILES_SCOPE_TOKEN', headers: apiHeaders(WORLD.tokens.noFilesScope), reads: [] },
  { name: 'PIT_TOKEN', headers: apiHeaders(WORLD.tokens.pit), reads: ['main'] },
  { name: 'AGENCY_ACCESS_TOKEN', headers: apiHeaders(WORLD.tokens.agencyAccess), reads: ['main', 'foreign'] },
  { name: 'unknown token', headers: apiHeaders('abuse-unknown-token'), reads: [] },
  // The FILES_READONLY value under another scheme: a server reading the last word would let it through.
  { name: 'malformed Authorization', headers: { version: API_VERSION, authorization: `Token ${WORLD.tokens.filesReadonly}` }, reads: [] },
  { name: 'no token', headers: {}, reads: [], anonymous: true },
];

interface MatrixFile {
  name: string;
  where: Where;
  secure: boolean;
  bytes: Buffer;
  url: string;
  id: string;
  fileName: string;
}

type Endpoint =
  | 'GET /files/d/{slug}'
  | 'signed URL from /files/d/{slug}'
  | 'signed URL from within the hour, used after it'
  | 'signed URL with one character of the signature changed'
  | "signed URL of the other secure file, this file's slug swapped in"
  | 'permanent URL /files/p/{id}/{name}';
type Phase = 'within the hour' | 'after the hour';

/** The rule under test: where the bytes may come out. */
function mayServe(who: Principal, file: MatrixFile, endpoint: Endpoint, phase: Phase): boolean {
  switch (endpoint) {
    case 'GET /files/d/{slug}':
      return file.secure && who.anonymous === true && phase === 'within the hour';
    case 'signed URL from /files/d/{slug}':
      return file.secure && who.reads.includes(file.where);
    case 'signed URL from within the hour, used after it':
    case 'signed URL with one character of the signature changed':
    case "signed URL of the other secure file, this file's slug swapped in":
      return false;
    case 'permanent URL /files/p/{id}/{name}':
      return !file.secure;
  }
}

describe('authorization matrix of attachments', () => {
  it('bytes come out only anonymously within the hour, on a permanent URL, or through a signed URL of a reader', { timeout: 15_000 }, async (t: TestContext) => {
    const { app } = await serverWithStore();
    const stored = mock.method(FileStore.prototype, 'add');
    try {
      // Four files: secure and not, in the main location (ACCESS_TOKEN) and the foreign one (AGENCY_ACCESS_TOKEN).
      const specs: { name: string; where: Where; secure: boolean }[] = [
        { name: 'secret-main.pdf', where: 'main', secure: true },
        { name: 'secret-foreign.pdf', where: 'foreign', secure: true },
        { name: 'plain-main.png', where: 'main', secure: false },
        { name: 'plain-foreign.png', where: 'foreign', secure: false },
      ];
      const files: MatrixFile[] = [];
      for (const spec of specs) {
        const bytes = bytesOf(spec.name, 3000);
        const foreign = spec.where === 'foreign';
        const fields = validFields({
          ...(foreign ? { locationId: WORLD.foreignLocationId, conversationId: 'conv-ref-foreign' } : {}),
          ...(spec.secure ? { isSecureAttachment: 'true' } : {}),
        });
        const response = await upload(app, { fields, files: [{ name: spec.name, bytes }], headers: apiHeaders(foreign ? WORLD.tokens.agencyAccess : WORLD.tokens.access) });
        assert.equal(response.statusCode, 200, `${spec.name}: ${response.body}`);
        const [url] = absoluteUrls(response.json());
        // The file's id, for a secure one too: it is tried on the permanent path as well.
        const { id } = stored.mock.calls.at(-1)?.arguments[0] as StoredFile;
        files.push({ ...spec, bytes, url, id, fileName: spec.name });
      }

      const wrong: string[] = [];
      let cells = 0;
      let served = 0;
      const check = (who: Principal, file: MatrixFile, endpoint: Endpoint, phase: Phase, response: LightMyRequestResponse | undefined) => {
        cells++;
        const expected = mayServe(who, file, endpoint, phase);
        // Did the answer carry the file's bytes, whole or inside something else?
        const got = response !== undefined && response.statusCode < 300 && response.rawPayload.includes(file.bytes);
        if (got) served++;
        const status = response === undefined ? 'no signed URL' : String(response.statusCode);
        const fiveHundred = response !== undefined && response.statusCode >= 500;
        if (got !== expected || fiveHundred || (expected && !response?.rawPayload.equals(file.bytes))) {
          wrong.push(`${who.name} · ${file.name} · ${endpoint} · ${phase}: expected ${expected ? 'the bytes' : 'no bytes'}, got ${status}${got ? ' with the bytes' : ''}`);
        }
      };

      const staleSigned = new Map<string, string>();
      const phases: [Phase, number][] = [
        ['within the hour', 10 * 60],
        ['after the hour', 61 * 60],
      ];
      for (const [phase, secondsAfterUpload] of phases) {
        await setClock(app, { now: new Date(Date.parse(T0) + secondsAfterUpload * 1000).toISOString() });
        for (const who of principals) {
          const signedNow = new Map<MatrixFile, string>();
          for (const file of files) {
            if (file.secure) {
              const direct = await fetchUrl(app, file.url, who.headers);
              check(who, file, 'GET /files/d/{slug}', phase, direct);
              const signedUrl = direct.statusCode < 400 ? offeredUrl(direct) : undefined;
              const signed = signedUrl === undefined ? undefined : await fetchUrl(app, signedUrl);
              check(who, file, 'signed URL from /files/d/{slug}', phase, signed);
              if (typeof signedUrl === 'string') signedNow.set(file, signedUrl);
              const key = `${who.name}|${file.name}`;
              if (phase === 'within the hour' && typeof signedUrl === 'string') staleSigned.set(key, signedUrl);
              const stale = staleSigned.get(key);
              if (phase === 'after the hour' && stale !== undefined) check(who, file, 'signed URL from within the hour, used after it', phase, await fetchUrl(app, stale));
            }
            const permanent = `/files/p/${encodeURIComponent(file.id)}/${encodeURIComponent(file.fileName)}`;
            check(who, file, 'permanent URL /files/p/{id}/{name}', phase, await app.inject({ method: 'GET', url: permanent, headers: who.headers }));
          }
          // What a holder of one signed URL might try: alter the signature, or move it to another file.
          for (const [file, url] of signedNow) {
            const tampered = new URL(url);
            const signature = tampered.searchParams.get('signature') ?? '';
            tampered.searchParams.set('signature', signature.slice(0, -1) + (signature.endsWith('A') ? 'B' : 'A'));
            check(who, file, 'signed URL with one character of the signature changed', phase, await fetchUrl(app, tampered.href));
            for (const other of files.filter((f) => f.secure && f !== file)) {
              const moved = new URL(url);
              moved.pathname = moved.pathname.replace(/[^/]+$/, new URL(other.url).pathname.split('/').pop() ?? '');
              check(who, other, "signed URL of the other secure file, this file's slug swapped in", phase, await fetchUrl(app, moved.href));
            }
          }
        }
      }
      t.diagnostic(`${cells} cells, bytes served in ${served}; ${staleSigned.size} stale signed URLs tried`);
      assert.ok(staleSigned.size > 0, 'no signed URL was ever handed out, so the stale cells were not tried');
      assert.deepEqual(wrong, [], `${wrong.length} wrong cells:\n${wrong.join('\n')}`);
    } finally {
      stored.mock.restore();
      await app.close();
    }
  });
});
