// Recorded fixtures: what record mode writes and replay mode serves back through nock. Recordings are
// normalised as they are written (no tokens, signatures, dates or volatile headers; file bodies by name
// and size; the target's origin as a placeholder), and every request is matched on the same normal form.
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { isDeepStrictEqual } from 'node:util';
import { BASE_PLACEHOLDER, RECORD_COMMAND, type RecordedTarget, type SuiteConfig, targetFile } from '../config/config.ts';
import type { ReplyFnContext, ReplyFnResult } from 'nock';
import { maskForRecording } from '../config/redact.ts';
import { knownTestFile, sha256, testFile, type TestFile } from '../files/test-file.ts';


/** A file part of a multipart body in normal form. */
export type FilePart = { field: string; name: string; size: number; sha256: string };

export type RequestBody =
  | { json: unknown }
  | { multipart: { fields: [string, string][]; files: FilePart[] } }
  | { text: string };

export type ResponseBody = { json: unknown } | { text: string } | { testFile: { name: string; size: number } } | { base64: string } | { sha256: string; size: number };

export interface Interaction {
  request: { method: string; url: string; headers: Record<string, string>; body?: RequestBody };
  response: { status: number; headers: Record<string, string>; body?: ResponseBody };
}

export interface Recording {
  test: string;
  interactions: Interaction[];
}

/** What a request carries that the suite sets on purpose; everything else is the HTTP client's own, or changes every run (traceparent, and User-Agent with the suite's version). */
const MATCHED_REQUEST_HEADERS = ['authorization', 'version', 'content-type'];
/** Response headers that change from run to run or carry session state; nothing the suite judges. */
const VOLATILE_RESPONSE_HEADER =
  /^(date|connection|keep-alive|transfer-encoding|content-length|set-cookie|age|expires|via|server|server-timing|alt-svc|nel|report-to|x-request-id|x-correlation-id|traceparent|x-amzn?-[\w-]+|x-cache[\w-]*|cf-[\w-]+)$/i;
/**
 * Validators change from run to run too, but a replay needs them to be there (FILE-CONDITIONAL sends one back): each
 * is kept as a fixed stand-in, the same whatever the server wrote.
 */
const VALIDATOR_STAND_IN: Readonly<Record<string, string>> = { etag: '"recorded-validator"', 'last-modified': 'Sun, 01 Nov 2026 00:00:00 GMT' };
const INLINE_BINARY_LIMIT = 4096;

/** The normal form of text: the target's origin as a placeholder, tokens by name, signatures masked. */
export class Masker {
  constructor(
    private readonly baseUrl: string,
    /** The secrets by name, or where to read them as they are learned. */
    private readonly secretsByName: Readonly<Record<string, string>> | (() => Readonly<Record<string, string>>),
  ) {}

  text(text: string): string {
    const secrets = typeof this.secretsByName === 'function' ? this.secretsByName() : this.secretsByName;
    return maskForRecording(text.split(this.baseUrl).join(BASE_PLACEHOLDER), secrets);
  }

  json(value: unknown): unknown {
    return JSON.parse(this.text(JSON.stringify(value)));
  }

  /** The inverse for replay: the placeholder back to the replayed origin. */
  unmask(text: string): string {
    return text.split(BASE_PLACEHOLDER).join(this.baseUrl);
  }

  requestHeaders(headers: Record<string, string | string[] | undefined>): Record<string, string> {
    const out: Record<string, string> = {};
    for (const name of MATCHED_REQUEST_HEADERS) {
      const raw = headers[name] ?? headers[name.replace(/^./, (c) => c.toUpperCase())];
      if (raw === undefined) continue;
      const value = Array.isArray(raw) ? raw.join(', ') : raw;
      // The multipart boundary is random: the media type is what matters.
      out[name] = name === 'content-type' ? value.split(';')[0].trim().toLowerCase() : this.text(value);
    }
    return out;
  }

  responseHeaders(headers: Record<string, string>): Record<string, string> {
    return Object.fromEntries(
      Object.entries(headers)
        .filter(([name]) => !VOLATILE_RESPONSE_HEADER.test(name))
        .map(([name, value]) => [name.toLowerCase(), VALIDATOR_STAND_IN[name.toLowerCase()] ?? this.text(value)])
        .sort(([a], [b]) => a.localeCompare(b)),
    );
  }

  responseBody(body: Buffer, contentType = ''): ResponseBody | undefined {
    if (body.length === 0) return undefined;
    const file = knownTestFile(body);
    if (file) return { testFile: file };
    const text = body.toString('utf8');
    if (/json/i.test(contentType)) {
      try {
        return { json: this.json(JSON.parse(text)) };
      } catch {
        // Not JSON after all: kept below as text or bytes.
      }
    }
    if (/^text\/|xml|html|javascript|x-www-form-urlencoded/i.test(contentType) && Buffer.from(text, 'utf8').equals(body)) return { text: this.text(text) };
    return body.length <= INLINE_BINARY_LIMIT ? { base64: body.toString('base64') } : { sha256: sha256(body), size: body.length };
  }
}

/** The bytes a recorded response body stands for. */
export function replayBody(body: ResponseBody | undefined, masker: Masker): Buffer {
  if (body === undefined) return Buffer.alloc(0);
  if ('json' in body) return Buffer.from(masker.unmask(JSON.stringify(body.json)));
  if ('text' in body) return Buffer.from(masker.unmask(body.text));
  if ('testFile' in body) return testFile(body.testFile.name, body.testFile.size).bytes;
  if ('base64' in body) return Buffer.from(body.base64, 'base64');
  // Only its digest was kept: the replayed bytes have the size, not the content.
  return Buffer.alloc(body.size);
}

/**
 * What replay sends in place of a file: a file of the same name whose bytes are its size and digest (JSON). The
 * recording keeps no more than that to match on, and 5 MB files pushed through nock cost a replay's worker some
 * 200 MB more.
 */
export function replayFile(file: TestFile): TestFile {
  const bytes = Buffer.from(JSON.stringify({ size: file.bytes.length, sha256: file.sha256 }));
  return { name: file.name, bytes, sha256: sha256(bytes) };
}

/** The same normal form read back from the raw bytes nock received (a multipart body of replayFile's stand-ins, as replay sends it). */
export function describeRaw(contentType: string, raw: Buffer): RequestBody | undefined {
  if (raw.length === 0) return undefined;
  const boundary = /boundary="?([^";]+)"?/i.exec(contentType)?.[1];
  if (/multipart\/form-data/i.test(contentType) && boundary) return parseMultipart(raw, boundary);
  const text = raw.toString('utf8');
  if (/json/i.test(contentType)) {
    try {
      return { json: JSON.parse(text) };
    } catch {
      return { text };
    }
  }
  return { text };
}

function parseMultipart(raw: Buffer, boundary: string): RequestBody {
  const fields: [string, string][] = [];
  const files: FilePart[] = [];
  const delimiter = Buffer.from(`--${boundary}`);
  let at = raw.indexOf(delimiter);
  while (at >= 0) {
    const start = at + delimiter.length;
    if (raw.subarray(start, start + 2).toString() === '--') break;
    const next = raw.indexOf(delimiter, start);
    if (next < 0) break;
    const part = raw.subarray(start + 2, next - 2);
    const headerEnd = part.indexOf('\r\n\r\n');
    const headers = part.subarray(0, headerEnd).toString('utf8');
    const content = part.subarray(headerEnd + 4);
    const field = /name="([^"]*)"/i.exec(headers)?.[1] ?? '';
    const fileName = /filename="([^"]*)"/i.exec(headers)?.[1];
    if (fileName === undefined) fields.push([field, content.toString('utf8')]);
    else files.push({ field, name: fileName, ...(JSON.parse(content.toString('utf8')) as { size: number; sha256: string }) });
    at = next;
  }
  return { multipart: { fields, files } };
}

/** The fixture file of a test: `fixtures/<spec>/<title>-<hash>.json`; the hash keeps titles that differ in case apart. */
export function fixturePath(fixturesDir: string, specFile: string, title: string): string {
  const spec = specFile.split(/[\\/]/).pop()!.replace(/\.spec\.ts$/, '');
  const slug = title.toLowerCase().replace(/[^a-z0-9]+/g, '-').replace(/^-|-$/g, '').slice(0, 80);
  const hash = createHash('sha256').update(title).digest('hex').slice(0, 8);
  return join(fixturesDir, spec, `${slug}-${hash}.json`);
}

/** A recording as its file holds it: one interaction a line, so that a diff shows each exchange and the walks' hundreds stay small. */
export function writeRecording(file: string, recording: Recording): void {
  mkdirSync(dirname(file), { recursive: true });
  const { interactions, ...rest } = recording;
  const head = JSON.stringify(rest).slice(0, -1);
  const lines = interactions.map((interaction) => JSON.stringify(interaction));
  writeFileSync(file, `${head}${head.length > 1 ? ',' : ''}\n"interactions": [\n${lines.join(',\n')}\n]}\n`);
}

/**
 * A test's recording served by nock; every other request is refused, and nothing opens a socket. One persistent
 * interceptor per origin and method finds a request's answer: each request is put in its normal form once, and
 * compared with the recorded ones not yet used, in their order.
 */
export class Replay {
  readonly #interactions: Interaction[];
  readonly #used = new Set<Interaction>();

  private constructor(
    readonly file: string,
    private readonly masker: Masker,
    private readonly nock: typeof import('nock'),
  ) {
    this.#interactions = existsSync(file) ? (JSON.parse(readFileSync(file, 'utf8')) as Recording).interactions : [];
    nock.cleanAll();
    nock.disableNetConnect();
    const routes = new Set(this.#interactions.map(({ request }) => `${request.method} ${new URL(masker.unmask(request.url)).origin}`));
    for (const route of routes) this.#intercept(route.slice(0, route.indexOf(' ')), route.slice(route.indexOf(' ') + 1));
  }

  /** nock is loaded only here: live runs never have it intercepting their requests. */
  static async load(file: string, masker: Masker): Promise<Replay> {
    return new Replay(file, masker, (await import('nock')).default);
  }

  #intercept(method: string, origin: string): void {
    const replay = this;
    const respond = ({ response }: Interaction): ReplyFnResult => [
      response.status,
      replayBody(response.body, replay.masker),
      Object.fromEntries(Object.entries(response.headers).map(([n, v]) => [n, replay.masker.unmask(v)])),
    ];
    // Every request to this origin by this method reaches the reply, which takes the first unused recording equal to
    // it: requests in flight together each get their own, and each is put in its normal form once.
    this.nock(origin)
      .persist()
      .intercept(() => true, method)
      // Async: nock turns a rejection, not a throw, into the request's error. nock parses a JSON body before calling
      // the reply: a body that is not JSON, sent as JSON, would throw inside nock (no test sends one yet).
      .reply(async function (this: ReplyFnContext, path: string, body: unknown) {
        const found = replay.#find(method, origin + path, this.req.headers, body);
        if (!found) throw new Error(replay.unmatched(method, origin + path));
        replay.#used.add(found);
        return respond(found);
      });
  }

  /** The first unused recorded interaction equal to this request in normal form. */
  #find(method: string, url: string, rawHeaders: Record<string, string>, body: unknown): Interaction | undefined {
    const masked = this.masker.text(url);
    const headers = this.masker.requestHeaders(rawHeaders);
    // What replay sends is text (JSON, a form, replayFile's stand-ins); nock hands it to the reply as it is, JSON parsed.
    const raw = Buffer.from(typeof body === 'string' ? body : JSON.stringify(body), 'utf8');
    const described = maskBody(describeRaw(String(rawHeaders['content-type'] ?? ''), raw), this.masker);
    return this.#interactions.find(
      (i) => !this.#used.has(i) && i.request.method === method && i.request.url === masked && isDeepStrictEqual(headers, i.request.headers) && isDeepStrictEqual(described, i.request.body),
    );
  }

  /** The message of a request with no recorded answer. */
  unmatched(method: string, url: string): string {
    return (
      `Replay has no recorded answer for ${method} ${this.masker.text(url)} in ${relative(process.cwd(), this.file)}` +
      `${existsSync(this.file) ? '' : ' (the file does not exist)'}. The recording no longer matches what the test sends; ` +
      `re-record with ${RECORD_COMMAND}.`
    );
  }

  /** Recorded interactions the test never asked for. */
  unused(): string[] {
    return this.#interactions.filter((i) => !this.#used.has(i)).map((i) => `${i.request.method} ${i.request.url}`);
  }

  close(): void {
    this.nock.cleanAll();
  }
}

export function maskBody(body: RequestBody | undefined, masker: Masker): RequestBody | undefined {
  return body === undefined ? undefined : (masker.json(body) as RequestBody);
}

/** Writes fixtures/target.json; every worker writes the same content. */
export function writeRecordedTarget(config: SuiteConfig, target: RecordedTarget['target']): void {
  const recorded: RecordedTarget = {
    source: config.reference ? `the reference server (seed ${config.reference.seed})` : 'a live target',
    apiVersion: config.apiVersion,
    replacementPath: config.replacementPath,
    locationTokenBody: config.locationTokenBody,
    target,
  };
  mkdirSync(config.fixturesDir, { recursive: true });
  writeFileSync(targetFile(config.fixturesDir), `${JSON.stringify(recorded, null, 2)}\n`);
}
