// Every request of the suite goes through here: live as it is, recorded in record mode, answered from the
// recording in replay mode, and put in the test's evidence. The API client and the server clock share one transport
// per test, and so one trace: every request carries a W3C `traceparent` of it and the suite's User-Agent, so that a
// server's team finds the test's requests in their logs.
import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import http from 'node:http';
import https from 'node:https';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import zlib from 'node:zlib';
import { Evidence, type Exchange } from './evidence.ts';
import { bucketOf, networkWaitSeconds, type Pace, sleep, throttleWaitSeconds } from './politeness.ts';
import { describeForm, encodeForm, type FormPart } from './form.ts';
import { type Interaction, type Masker, maskBody, type Replay, replayFile } from './recording.ts';
import { redactUrl } from '../config/redact.ts';
import { type Spelling, spelled } from '../contract/spelling.ts';

export interface Outgoing {
  method: 'GET' | 'POST' | 'HEAD';
  url: string;
  headers: Record<string, string>;
  multipart?: FormPart[];
  /** The bytes of the files the multipart body carries (in replay, stand-ins carry them: replayFile). */
  fileBytes?: number;
  /** The multipart body sent without a Content-Length, in chunks (RFC 9112 §7.1): paced, recorded and in evidence as any. */
  chunked?: true;
  /**
   * Another request, started once this one's head and first bytes are out: the rest of the body waits for it to settle,
   * so the two are in flight together and the other answers first. Started once, however often this one is sent.
   */
  meanwhile?: () => Promise<unknown>;
  data?: unknown;
  maxRedirects?: number;
  /** A POST that has the same effect sent twice (the test clock set to an instant): retried as a GET is. */
  idempotent?: true;
  /**
   * A request to the target's test clock: a harness of the target, not its API, so it takes no share of RATE_LIMIT
   * (a throttled answer still pauses the run, as any).
   */
  unpaced?: true;
  /** A URL an answer offered, off the target's origin: not reaching it is not the target's failure, and the caller decides what it means. */
  offered?: boolean;
  /** Another form HTTP and multipart permit for the request (the suite's own by default): src/contract/spelling.ts. */
  spelling?: Spelling;
  /** What the evidence calls the exchange, and shows of its body (by default the data sent). */
  label?: string;
  summary?: unknown;
}

export interface Incoming {
  url: string;
  status: number;
  headers: Record<string, string>;
  body: Buffer;
  /** The exchange as the evidence holds it. */
  exchange?: Exchange;
  /**
   * A body sent in two goes (Outgoing.meanwhile) whose other request was not in flight beside it at the URL that
   * answered: a redirect came after the body had gone there, so the two overlapped only at the first URL.
   */
  meanwhileMissed?: true;
}

const PACKAGE = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { name: string; version: string };
/** The suite by its package's name and version, on every request. */
export const USER_AGENT = `${PACKAGE.name}/${PACKAGE.version}`;
/** A W3C trace-context header (version 00, sampled) of a trace, with a new span id. */
export const TRACEPARENT = /^00-([0-9a-f]{32})-([0-9a-f]{16})-01$/;

/** A request that replay has no recording for: a failure of the fixtures, not of the server. */
export class ReplayMismatchError extends Error {}

/** 502, 503 and 504 without Retry-After: a gateway or an unavailable server, a fault of the network, never a verdict. */
const GATEWAY_STATUSES = new Set([502, 503, 504]);

/**
 * A fault of the way to the server: a connection reset before any answer (Node's ECONNRESET, "socket hang up", EPIPE)
 * or a timeout. Anything else (a refused connection, an unknown host) is not retried: it will not heal in seconds.
 */
export function networkFault(error: Error): 'reset' | 'timeout' | undefined {
  if (/ECONNRESET|socket hang up|EPIPE/.test(error.message)) return 'reset';
  if (/Timeout \d+ms exceeded|ETIMEDOUT/.test(error.message)) return 'timeout';
  return undefined;
}

/**
 * A body whose files are this large is sent with the garbage of earlier ones collected first, where the worker holds
 * more than its mode's figure (see collectGarbage). Live, the server's copy may lie beside the files' own bytes (the
 * in-process reference server), so it collects early; in replay only the files' own bytes do (their parts are
 * stand-ins, replayFile), and collecting as early costs a full collection before each of some 50 bodies: some 4 s of CPU.
 */
const BIG_BODY_BYTES = 4 * 2 ** 20;
const COLLECT_ABOVE_BYTES = { live: 260 * 2 ** 20, replay: 250 * 2 ** 20 };

/**
 * A full collection, made before each big upload: earlier uploads' files are memory outside V8's heap
 * that it frees late, and a test that sends some 80 bodies of 5 MiB would hold them till then, 50 MiB over the
 * worker's budget of 300 MiB. The flag is set at run time, on the first big upload: NODE_OPTIONS does not take
 * --expose-gc on Node 20.
 */
let gc: (() => void) | undefined;
function collectGarbage(): void {
  if (gc === undefined) {
    setFlagsFromString('--expose-gc');
    gc = runInNewContext('gc') as () => void;
  }
  gc();
}

export class Transport {
  /** Interactions recorded so far (record mode). */
  readonly recorded: Interaction[] = [];
  /** The trace of every request of this transport (of one test). */
  readonly traceId = randomBytes(16).toString('hex');
  /** Every exchange, redacted; a transport without the secrets to redact holds no evidence worth showing. */
  readonly evidence: Evidence;

  constructor(
    private readonly timeoutMs: number,
    private readonly mode: {
      record?: Masker;
      replay?: Replay;
      /** Live targets only: the worker's share of the rate limit, slowed down by the server's throttling. */
      limiter?: Pace;
      /** Retries of a throttled answer or of a network fault. */
      maxRetries?: number;
      /** Told of every wait for the pace or a retry, in ms, so that the test's time limit can make room for it. */
      onWait?: (ms: number) => void;
      /** Told of every retry, so that the report shows it. */
      onRetry?: (what: string) => void;
      /** Told when the target could not be reached, so that the report gives no verdict. */
      onUnreachable?: (what: string) => void;
      /** Told of a 429 that outlived the retries: whatever the test concludes from it proves nothing. */
      onRateLimited?: (what: string) => void;
      /** Told of every answer before it is recorded or judged, so that the credentials it issues are redacted from then on. */
      onAnswer?: (url: string, incoming: Incoming) => void;
      evidence?: Evidence;
    },
  ) {
    this.evidence = mode.evidence ?? new Evidence({});
  }

  /** The next `requests` requests go out back to back, the pace waited for once before them (Pace.reserve). */
  async reserve(requests: number): Promise<void> {
    const waited = (await this.mode.limiter?.reserve(requests)) ?? 0;
    if (waited > 0) this.mode.onWait?.(waited);
  }

  async fetch(out: Outgoing): Promise<Incoming> {
    if (out.meanwhile) out = { ...out, meanwhile: once(out.meanwhile) };
    const started = Date.now();
    let sent = out.headers;
    const exchange = { label: out.label ?? `${out.method} ${new URL(out.url).pathname}`, startedAt: new Date(started).toISOString(), method: out.method, url: out.url, requestBody: out.summary ?? out.data, followRedirects: out.maxRedirects !== 0 };
    try {
      const incoming = await this.#fetch(out, (headers) => (sent = headers));
      const ms = Date.now() - started;
      // Where none is followed, the URL that answered (a hop to the same resource goes all the same): a reproducer that
      // follows none asks it there.
      const url = exchange.followRedirects ? out.url : incoming.url;
      return { ...incoming, exchange: this.evidence.add({ ...exchange, url, requestHeaders: sent, status: incoming.status, responseHeaders: incoming.headers, responseBody: incoming.body, ms }) };
    } catch (error) {
      this.evidence.add({ ...exchange, requestHeaders: sent, error: (error as Error).message.split('\n')[0], ms: Date.now() - started });
      throw error;
    }
  }

  /** The request's headers as sent: the suite's User-Agent and a new span of the test's trace, unless the request sets its own. */
  #headers(out: Outgoing): Record<string, string> {
    const chunked: Record<string, string> = out.chunked ? { 'transfer-encoding': 'chunked' } : {};
    return { 'user-agent': USER_AGENT, traceparent: `00-${this.traceId}-${randomBytes(8).toString('hex')}-01`, ...chunked, ...out.headers };
  }

  async #fetch(out: Outgoing, onSent: (headers: Record<string, string>) => void): Promise<Incoming> {
    const maxRetries = this.mode.maxRetries ?? 0;
    const what = `${out.method} ${redactUrl(out.url)}`;
    // A GET or HEAD may be sent again whatever happened to it; a POST only where no byte of an answer came back, or
    // where the answer was a 503 (below).
    const idempotent = out.method !== 'POST' || out.idempotent === true;
    for (let attempt = 0; ; attempt++) {
      const waited = out.unpaced ? 0 : ((await this.mode.limiter?.acquire(bucketOf(out.method, out.headers))) ?? 0);
      if (waited > 0) this.mode.onWait?.(waited);
      let incoming: Incoming;
      try {
        const headers = this.#headers(out);
        onSent(headers);
        incoming = await this.#send(out, headers);
      } catch (error) {
        const fault = networkFault(error as Error);
        if (fault === undefined || attempt >= maxRetries || !(idempotent || fault === 'reset')) {
          if (!(error instanceof ReplayMismatchError) && !out.offered) this.mode.onUnreachable?.(`${what}: ${(error as Error).message.split('\n')[0]}`);
          throw error;
        }
        const resent = idempotent ? '' : ' (re-sent: no byte of an answer came back)';
        await this.#retry(`${what} failed (${fault === 'reset' ? 'connection reset' : 'timed out'})`, attempt, maxRetries, networkWaitSeconds(attempt), resent);
        continue;
      }
      const throttled = incoming.status === 429 || (incoming.status === 503 && incoming.headers['retry-after'] !== undefined);
      if (throttled && attempt < maxRetries) {
        // The pause is the whole run's: the next acquire() waits it out, in this worker and every other.
        const wait = this.mode.limiter?.throttled(incoming.headers, attempt) ?? throttleWaitSeconds(incoming.headers, attempt);
        this.mode.onRetry?.(`${what} answered ${incoming.status}: retry ${attempt + 1} of ${maxRetries} after ${wait} s`);
        if (this.mode.limiter === undefined) await sleep(wait * 1000);
        continue;
      }
      if (!throttled) this.mode.limiter?.observe(incoming.headers);
      if (!throttled && GATEWAY_STATUSES.has(incoming.status)) {
        // A 503 says the request was not handled (RFC 9110 §15.6.4), so even a POST may go again; after a 502 or 504
        // a gateway may have passed it on, and a POST is not sent twice.
        const resendable = idempotent || incoming.status === 503;
        if (resendable && attempt < maxRetries) {
          await this.#retry(`${what} answered ${incoming.status}`, attempt, maxRetries, networkWaitSeconds(attempt), idempotent ? '' : ' (re-sent: a 503 says it was not handled)');
          continue;
        }
        // Whatever sits between the suite and the server was unavailable: nothing to judge.
        const why = `${what} answered ${incoming.status}${resendable ? ` after ${attempt} retries` : ' (a POST that a gateway may have passed on is not re-sent)'}`;
        if (!out.offered) this.mode.onUnreachable?.(why);
        throw new Error(`${why}: the server or a gateway before it was unavailable`);
      }
      if (throttled) this.mode.onRateLimited?.(`${what} was still answered ${incoming.status} after ${attempt} retries`);
      this.mode.onAnswer?.(out.url, incoming);
      if (this.mode.record) await this.#record(this.mode.record, out, incoming);
      return incoming;
    }
  }

  async #retry(what: string, attempt: number, maxRetries: number, wait: number, note: string): Promise<void> {
    this.mode.onRetry?.(`${what}: retry ${attempt + 1} of ${maxRetries} after ${wait} s${note}`);
    this.mode.onWait?.(wait * 1000);
    await sleep(wait * 1000);
  }

  async #send(out: Outgoing, headers: Record<string, string>): Promise<Incoming> {
    if ((out.fileBytes ?? 0) > BIG_BODY_BYTES && process.memoryUsage.rss() > COLLECT_ABOVE_BYTES[this.mode.replay ? 'replay' : 'live']) collectGarbage();
    try {
      // Replay sends nothing, so nothing needs the server's time to take in a head, nor a spelling (the recording keeps
      // the suite's own, as the evidence does); its files go as stand-ins.
      if (this.mode.replay) return await sendByNode({ ...out, spelling: undefined, multipart: out.multipart?.map((part) => ('file' in part ? { ...part, file: replayFile(part.file) } : part)) }, headers, this.timeoutMs);
      // Node's client, redirects followed as Playwright follows them, whatever the body's shape: Playwright's request
      // context cost every request a stack captured and mapped through the source maps, and a form's files a copy in
      // base64 over its protocol (a sixth of a live run's CPU without the forms, measured; with them, most of a
      // worker's garbage).
      return await sendFollowing(out, headers, this.timeoutMs, out.chunked || out.meanwhile ? HEAD_TAKEN_MS : 0);
    } catch (error) {
      // Replay's own refusal names the request ("Replay has no recorded answer"); nock refuses a method the recording
      // never used at an origin as "No match", and an origin it never saw as "Disallowed net connect".
      if (this.mode.replay && /Nock: (No match|Disallowed net connect)|Replay has no recorded answer/.test((error as Error).message)) {
        throw new ReplayMismatchError(this.mode.replay.unmatched(out.method, out.url));
      }
      throw error;
    }
  }

  async #record(masker: Masker, out: Outgoing, incoming: Incoming): Promise<void> {
    // A string is sent as it is, under the content type its request names (a form-encoded body); anything else as JSON.
    const text = typeof out.data === 'string';
    const body = out.multipart ? describeForm(out.multipart) : out.data === undefined ? undefined : text ? { text: out.data as string } : { json: out.data };
    const contentType = out.multipart ? 'multipart/form-data' : out.data === undefined || text ? undefined : 'application/json';
    this.recorded.push({
      request: {
        method: out.method,
        url: masker.text(out.url),
        headers: masker.requestHeaders({ ...out.headers, ...(contentType ? { 'content-type': contentType } : {}) }),
        ...(body ? { body: maskBody(body, masker) } : {}),
      },
      response: {
        status: incoming.status,
        headers: masker.responseHeaders(incoming.headers),
        ...(incoming.body.length > 0 ? { body: masker.responseBody(incoming.body, incoming.headers['content-type']) } : {}),
      },
    });
  }
}

/** Runs `start` once, however often it is called: each call gets the same promise; `started` says whether it was. */
function once<T>(start: () => Promise<T>): (() => Promise<T>) & { readonly started: boolean } {
  let started: Promise<T> | undefined;
  return Object.defineProperty(() => (started ??= start()), 'started', { get: () => started !== undefined }) as (() => Promise<T>) & { readonly started: boolean };
}

/** The headers Playwright's request context adds to a request that has none of its own. */
const PLAYWRIGHT_DEFAULTS = { accept: '*/*', 'accept-encoding': 'gzip,deflate,br' };
/** How long a server is given to take in a request's head before another request is sent beside it. */
const HEAD_TAKEN_MS = 150;
/** How long a body waits for the request sent meanwhile: a server that takes one upload at a time answers that one after it. */
const MEANWHILE_LIMIT_MS = 10_000;
/** The part of a body sent before the request sent meanwhile: the head of the first part, not the whole of any. */
const FIRST_BYTES = 64;

/** The statuses Playwright's request context follows, and how many times at most by default. */
const REDIRECT_STATUSES = new Set([301, 302, 303, 307, 308]);
const MAX_REDIRECTS = 20;
/** The headers a body of another method than its own no longer describes (the fetch standard's redirect steps). */
const CONTENT_HEADERS = ['content-encoding', 'content-language', 'content-length', 'content-location', 'content-type'];

const without = (headers: Record<string, string>, names: readonly string[]) => Object.fromEntries(Object.entries(headers).filter(([name]) => !names.includes(name.toLowerCase())));

/**
 * An answer the client follows (RFC 9110 §15.4): one of REDIRECT_STATUSES with a Location. Told to follow none, it
 * still follows one to the same resource spelled with or without a trailing slash (a gateway's habit): that hands
 * nothing over, and the request is answered where it was meant to go.
 */
function followed(out: Outgoing, status: number, location: string | undefined): boolean {
  if (!REDIRECT_STATUSES.has(status) || location === undefined || location === '') return false;
  return out.maxRedirects !== 0 || sameResource(out.url, location);
}

/** A Location naming the URL itself, but for a trailing slash of its path. */
function sameResource(url: string, location: string): boolean {
  const [from, to] = [new URL(url), new URL(location, url)];
  const path = (at: URL) => at.pathname.replace(/\/+$/, '');
  return from.origin === to.origin && from.search === to.search && from.pathname !== to.pathname && path(from) === path(to);
}

/**
 * A request of any shape, its redirects followed as Playwright's request context follows them (RFC 9110 §15.4):
 * `maxRedirects` at most (20 unless told; 0 follows none but a hop to the same resource, and answers the redirect
 * itself); a 303 to anything but a GET or HEAD, or a 301 or 302 to a POST, sent again as a GET without its body (a
 * form's too) and the headers of its body and its framing; a 307 or 308 sent again as it was, the same bytes framed
 * the same way (in chunks, or in two goes around the request sent meanwhile); and the Authorization header dropped
 * where the origin changes, so that a hand-over to another host never carries a token. No cookie is kept or sent: the
 * suite sets none, and a server's cookie must not stand in for a token.
 */
async function sendFollowing(out: Outgoing, headers: Record<string, string>, timeoutMs: number, headTakenMs: number): Promise<Incoming> {
  let request = { ...out, headers };
  // Told to follow none, only a hop to the same resource goes (followed), at most as many as by default.
  for (let left = out.maxRedirects || MAX_REDIRECTS; ; left -= 1) {
    const before = startedOf(request.meanwhile);
    const incoming = await sendByNode(request, request.headers, timeoutMs, headTakenMs);
    const location = incoming.headers.location ?? '';
    if (!followed(request, incoming.status, location)) {
      // The request sent meanwhile went beside an earlier hop, or beside none (a hop that dropped the body).
      const beside = !before && startedOf(request.meanwhile);
      return out.meanwhile && !beside ? { ...incoming, meanwhileMissed: true } : incoming;
    }
    if (left === 0) throw new Error(`Max redirect count exceeded: ${redactUrl(out.url)}`);
    // Node reads a header as Latin-1; a Location in UTF-8 is read again as such, as Playwright does.
    const next = new URL(Buffer.from(location, 'latin1').toString('utf8'), request.url);
    const toGet = ((incoming.status === 301 || incoming.status === 302) && request.method === 'POST') || (incoming.status === 303 && !['GET', 'HEAD'].includes(request.method));
    const dropped = [...(toGet ? [...CONTENT_HEADERS, 'transfer-encoding'] : []), ...(next.origin !== new URL(request.url).origin ? ['authorization'] : [])];
    request = { ...request, url: next.href, method: toGet ? 'GET' : request.method, ...(toGet ? { data: undefined, multipart: undefined, chunked: undefined } : {}), headers: without(request.headers, dropped) };
  }
}

/** Whether the request sent meanwhile has been started (once() tells), before a hop is sent. */
const startedOf = (meanwhile: Outgoing['meanwhile']) => (meanwhile as { started?: boolean } | undefined)?.started === true;

/**
 * A request by Node's own client, every request of the suite: each hop of a live one (sendFollowing); a multipart body
 * in chunks, without a Content-Length (RFC 9112 §7.1), or one sent in two goes with another request between them
 * (Outgoing.meanwhile), which Playwright's request context cannot send; and every request of replay, which nock
 * answers. The body is encoded as Playwright encodes it: a form by encodeForm, an object as JSON, text as it is. It
 * follows no redirect itself: replay holds the answer the recording ended on, and sendFollowing takes the hops of a
 * live request. Failures read as Playwright's do, for networkFault().
 */
async function sendByNode(out: Outgoing, headers: Record<string, string>, timeoutMs: number, headTakenMs = 0): Promise<Incoming> {
  const sent = { ...headers };
  const has = (name: string) => Object.keys(sent).some((key) => key.toLowerCase() === name);
  // What Playwright's request context asks for where the request does not: a server may compress where asked.
  for (const [name, value] of Object.entries(PLAYWRIGHT_DEFAULTS)) if (!has(name)) sent[name] = value;
  let body: Buffer[] | undefined;
  if (out.multipart) {
    const form = encodeForm(out.multipart, out.spelling);
    body = form.parts;
    sent['content-type'] = form.contentType;
  } else if (out.data !== undefined) {
    const text = typeof out.data === 'string';
    body = [Buffer.from(text ? (out.data as string) : JSON.stringify(out.data), 'utf8')];
    if (!has('content-type')) sent['content-type'] = text ? 'application/octet-stream' : 'application/json';
  }
  const length = body?.reduce((sum, part) => sum + part.length, 0) ?? 0;
  if (body && !out.chunked) sent['content-length'] = String(length);
  const client = out.url.startsWith('https:') ? https : http;
  // Written last, over every header the request carries: what the spelling changes is all that differs.
  const written = spelled(sent, out.spelling);
  // A redirect answered on the head alone, before the request sent meanwhile: that one waits for the next hop.
  let redirected = false;
  return new Promise<Incoming>((resolve, reject) => {
    // In absolute form the request line names the whole URL (RFC 9112 §3.2.2), as a proxy forwards a request.
    const { hostname, port, pathname, search } = new URL(out.url);
    const target = { hostname: hostname.replace(/^\[|\]$/g, ''), port, path: out.spelling?.absoluteForm ? out.url : `${pathname}${search}` };
    const request = client.request({ ...target, method: out.method, headers: written, timeout: timeoutMs }, (response) => {
      redirected = followed(out, response.statusCode ?? 0, response.headers.location);
      const chunks: Buffer[] = [];
      response.on('data', (chunk: Buffer) => chunks.push(chunk));
      response.on('error', reject);
      response.on('end', () => {
        const answered = Object.fromEntries(Object.entries(response.headers).map(([name, value]) => [name, Array.isArray(value) ? value.join(', ') : String(value)]));
        resolve({ url: out.url, status: response.statusCode ?? 0, headers: answered, body: decoded(Buffer.concat(chunks), answered['content-encoding']) });
      });
    });
    request.on('timeout', () => request.destroy(new Error(`Timeout ${timeoutMs}ms exceeded`)));
    request.on('error', reject);
    if (body === undefined) return request.end();
    if (out.meanwhile) return void sendAround(request, body, out.meanwhile, headTakenMs, () => redirected).catch((error: Error) => request.destroy(error));
    // In chunks, two at least: a server that reads only the first sees half a body.
    for (const part of out.chunked ? cut(body, Math.ceil(length / 2)).flat() : body) request.write(part);
    request.end();
  });
}

/**
 * The head and first bytes of a body, then the request sent meanwhile (at most MEANWHILE_LIMIT_MS), then the rest;
 * where a redirect came back on the head alone, the rest at once, the request sent meanwhile kept for the next hop.
 */
async function sendAround(request: http.ClientRequest, body: readonly Buffer[], meanwhile: () => Promise<unknown>, headTakenMs: number, redirected: () => boolean): Promise<void> {
  const [first, rest] = cut(body, FIRST_BYTES);
  await new Promise<void>((resolve, reject) => request.write(Buffer.concat(first), (error) => (error ? reject(error) : resolve())));
  await sleep(headTakenMs);
  if (redirected()) {
    for (const part of rest) request.write(part);
    return void request.end();
  }
  // Its failure is its own request's, which its caller awaits: here it only stops the wait.
  const settled = meanwhile().then(
    () => undefined,
    () => undefined,
  );
  let timer: NodeJS.Timeout | undefined;
  await Promise.race([settled, new Promise((resolve) => (timer = setTimeout(resolve, MEANWHILE_LIMIT_MS)))]);
  clearTimeout(timer);
  for (const part of rest) request.write(part);
  request.end();
}

/** The parts of a body before byte `at` and from it on, the part across it split in two (views, not copies). */
function cut(parts: readonly Buffer[], at: number): [Buffer[], Buffer[]] {
  const before: Buffer[] = [];
  const after: Buffer[] = [];
  let offset = 0;
  for (const part of parts) {
    const within = Math.min(Math.max(at - offset, 0), part.length);
    if (within > 0) before.push(part.subarray(0, within));
    if (within < part.length) after.push(part.subarray(within));
    offset += part.length;
  }
  return [before, after];
}

/** A body as Playwright gives it, decompressed (a server may compress unasked); one that does not decode, as it came. */
function decoded(body: Buffer, encoding: string | undefined): Buffer {
  const decode = { gzip: zlib.gunzipSync, 'x-gzip': zlib.gunzipSync, deflate: zlib.inflateSync, br: zlib.brotliDecompressSync }[encoding?.trim().toLowerCase() ?? ''];
  if (decode === undefined || body.length === 0) return body;
  try {
    return decode(body);
  } catch {
    return body;
  }
}
