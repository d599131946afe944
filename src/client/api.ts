// The one HTTP client of the suite: every request carries Version, every exchange lands in the
// evidence (redacted), every failure to reach the server is an infrastructure error, not a verdict.
// It reports what the test report should show through callbacks; it knows nothing of the test runner.
import type { Credential, SuiteConfig, Target } from '../config/config.ts';
import { DEPRECATED_EXECUTE_PATH, expandPath, FILE_FORM_KEY, LOCATION_TOKEN_PATH, SECURE_PATH_PREFIX, TOKEN_PATH, UPLOAD_PATH } from '../contract/contract.ts';
import { type Evidence, fileRef, linkReply } from './evidence.ts';
import { isDeprecated } from '../contract/openapi.ts';
import { sha256, type TestFile } from '../files/test-file.ts';
import type { FormPart } from './form.ts';
import type { Spelling } from '../contract/spelling.ts';
import { ReplayMismatchError, type Transport } from './transport.ts';

/** Which credential a request sends: a token of the configuration by its setting key, none, a token issued during the test, or a literal header value. */
export type Auth = Credential | 'none' | { bearer: string } | { header: string };

/** A response read whole, so tests can judge it after its connection is gone. */
export interface Reply {
  method: 'GET' | 'POST' | 'HEAD';
  url: string;
  status: number;
  headers: Record<string, string>;
  body: Buffer;
  text(): string;
  /** The parsed JSON body, or undefined when the body is not JSON. */
  json(): unknown;
  /** The body as a report may show it: every secret known so far redacted (a token endpoint's answer holds tokens). */
  shown(): string;
  /** A body sent in two goes that a redirect took elsewhere once it had gone: the request sent meanwhile did not overlap it there (Incoming.meanwhileMissed). */
  meanwhileMissed?: true;
}

/**
 * The server accepted the request: a 2xx, or a GET answered with a redirect. A redirect points the client at what it
 * asked for (a signed download URL handed over as Location, §4.2's shape being not shown); it never refuses.
 */
export const accepted = (reply: Reply) =>
  (reply.status >= 200 && reply.status < 300) || (reply.method === 'GET' && reply.status >= 300 && reply.status < 400 && reply.headers.location !== undefined);

/** A refusal: any 4xx but 429, which refuses nothing in particular (the contract shows no error code). */
export const refused = (reply: Reply) => reply.status >= 400 && reply.status < 500 && reply.status !== 429;

/** A 2xx carrying exactly the bytes of `file` (compared by SHA-256). */
export const serves = (reply: Reply, file: TestFile) => accepted(reply) && sha256(reply.body) === file.sha256;

export class InfrastructureError extends Error {
  constructor(message: string) {
    super(`Infrastructure error (not a contract verdict): ${message}`);
  }
}

export type Fields = Record<string, string | string[]>;

/** How a multipart body is laid out (RFC 7578 leaves it to the client): where the fields stand among the file parts. */
export type PartOrder = 'fields-first' | 'files-first' | 'between';

export interface UploadRequest {
  fields?: Fields;
  files?: TestFile[];
  /** The order of the parts; fields first by default. */
  order?: PartOrder;
  /** Each file part's declared Content-Type; by default the one its name gives (the HTTP client's guess). */
  partType?: (file: TestFile) => string;
  auth?: Auth;
  /** Extra headers; `version: null` leaves the Version header out. */
  headers?: Record<string, string | null>;
  /** Sent in chunks, without a Content-Length. */
  chunked?: boolean;
  /** Another request sent while this body is under way: its head is out, its rest waits for this one (Outgoing.meanwhile). */
  meanwhile?: () => Promise<unknown>;
  /** Another form HTTP and multipart permit (the suite's own by default). */
  spelling?: Spelling;
}

export interface ExecuteRequest {
  /** 'deprecated' (§4.3) or 'replacement' (REPLACEMENT_EXECUTE_PATH). */
  path?: 'deprecated' | 'replacement';
  agentId?: string;
  body?: Record<string, unknown>;
  query?: Record<string, string>;
  auth?: Auth;
  headers?: Record<string, string | null>;
  /** Another form HTTP permits (the suite's own by default). */
  spelling?: Spelling;
}

export interface ApiEvents {
  /** A request to an operation the contract marks deprecated. */
  onDeprecatedOperation(what: string): void;
  /** A verdict needed a URL that could not be reached: no verdict on the rule. */
  onUnreachable(what: string): void;
}

export class Api {
  constructor(
    private readonly transport: Transport,
    readonly target: Target,
    private readonly config: SuiteConfig,
    private readonly events: ApiEvents,
    /** The form every request is written in unless it names its own (the suite's own by default). */
    private readonly spelling?: Spelling,
  ) {}

  /** The same client, writing every request in `spelling` unless it names its own: for a server that refuses the suite's own form. */
  spelledAs(spelling: Spelling): Api {
    return new Api(this.transport, this.target, this.config, this.events, spelling);
  }

  /** Every exchange of the test, the server clock's too: the transport records them. */
  get evidence(): Evidence {
    return this.transport.evidence;
  }

  /** The form fields of a valid upload to the configured email conversation. */
  uploadFields(extra: Fields = {}): Fields {
    return {
      locationId: this.target.locationId,
      conversationId: this.target.conversationId,
      // attachmentUrls is required by §2.1 but its multipart encoding is not shown: an empty JSON list is the mildest value.
      attachmentUrls: '[]',
      ...extra,
    };
  }

  async upload(label: string, request: UploadRequest): Promise<Reply> {
    const form: FormPart[] = [];
    const fields = request.fields ?? this.uploadFields();
    const files = request.files ?? [];
    const appendFields = () => {
      for (const [name, value] of Object.entries(fields)) {
        for (const item of Array.isArray(value) ? value : [value]) form.push({ name, value: item });
      }
    };
    const appendFiles = (from: number, to: number) => {
      for (const file of files.slice(from, to)) form.push({ name: FILE_FORM_KEY, file, type: request.partType?.(file) });
    };
    const fieldsAt = { 'fields-first': 0, between: Math.max(1, Math.ceil(files.length / 2)), 'files-first': files.length }[request.order ?? 'fields-first'];
    appendFiles(0, fieldsAt);
    appendFields();
    appendFiles(fieldsAt, files.length);
    const summary = { fields, files: files.map(fileRef), ...(request.order ? { order: request.order } : {}), ...(request.chunked ? { chunked: true } : {}) };
    return this.send(label, 'POST', UPLOAD_PATH, {
      headers: this.headers(request.auth ?? 'access', request.headers),
      multipart: form,
      fileBytes: files.reduce((sum, file) => sum + file.bytes.length, 0),
      chunked: request.chunked,
      meanwhile: request.meanwhile,
      spelling: request.spelling,
      summary,
    });
  }

  async execute(label: string, request: ExecuteRequest = {}): Promise<Reply> {
    const template = request.path === 'replacement' ? this.config.replacementPath : DEPRECATED_EXECUTE_PATH;
    if (isDeprecated('post', template)) this.events.onDeprecatedOperation(`POST ${template} (deprecated, §4.3 rule 4)`);
    const query = request.query ? `?${new URLSearchParams(request.query)}` : '';
    const body = request.body ?? { message: 'Hello from the conformance suite', locationId: this.target.locationId };
    return this.send(label, 'POST', expandPath(template, { agentId: request.agentId ?? this.target.agentId }) + query, {
      headers: { ...this.headers(request.auth ?? 'access', request.headers), 'content-type': 'application/json' },
      data: body,
      summary: body,
      spelling: request.spelling,
    });
  }

  /** §4.2: GET /files/d/{slug} with a token. Redirects are not followed, so a Location answer stays visible. */
  async signedUrlFor(label: string, slug: string, auth: Auth, spelling?: Spelling): Promise<Reply> {
    return this.send(label, 'GET', `${SECURE_PATH_PREFIX}${encodeURIComponent(slug)}`, { headers: this.headers(auth), maxRedirects: 0, ...(spelling ? { spelling } : {}) });
  }

  /** §4.4: POST /oauth/token with a form-encoded body (RFC 6749 §6 for a refresh token); the client authenticates in the body. */
  async oauthToken(label: string, form: Record<string, string>): Promise<Reply> {
    const body = new URLSearchParams(form).toString();
    return this.send(label, 'POST', TOKEN_PATH, {
      headers: { ...this.headers('none'), 'content-type': 'application/x-www-form-urlencoded' },
      data: body,
      summary: body,
    });
  }

  /** §4.4: POST /oauth/location-token for LOCATION_ID, LOCATION_TOKEN_BODY filled in: JSON when it starts with `{`, else form-encoded. */
  async locationToken(label: string, auth: Auth): Promise<Reply> {
    const values: Record<string, string | undefined> = { companyId: this.target.companyId, locationId: this.target.locationId };
    const template = this.config.locationTokenBody.trim();
    const json = template.startsWith('{');
    const fill = (encode: (value: string) => string) => template.replace(/\{(companyId|locationId)\}/g, (_, name: string) => encode(values[name] ?? ''));
    // Values are form-encoded as URLSearchParams encodes them, as replay encodes the form again.
    const data: unknown = json ? JSON.parse(fill((value) => JSON.stringify(value).slice(1, -1))) : fill((value) => new URLSearchParams({ v: value }).toString().slice(2));
    return this.send(label, 'POST', LOCATION_TOKEN_PATH, {
      headers: { ...this.headers(auth), 'content-type': json ? 'application/json' : 'application/x-www-form-urlencoded' },
      data,
      summary: data,
    });
  }

  /** An anonymous request to an absolute URL: no token, no Version, nothing but what any HTTP client sends, and `headers`. */
  async anonymous(label: string, url: string, options: { method?: Reply['method']; headers?: Record<string, string>; spelling?: Spelling } = {}): Promise<Reply> {
    return this.send(label, options.method ?? 'GET', url, { headers: options.headers ?? {}, spelling: options.spelling });
  }

  /**
   * A URL an answer offered, read anonymously. Answers may name URLs of any host (documentation, a CDN): one off the
   * target's origin that cannot be reached serves nothing and is undefined here, and only a check that needed it
   * says so (unreachable()); on the target's origin it is an infrastructure error, as for any request.
   */
  async offered(label: string, url: string): Promise<Reply | undefined> {
    const elsewhere = new URL(url).origin !== new URL(this.target.baseUrl).origin;
    try {
      return await this.send(label, 'GET', url, { headers: {}, offered: elsewhere });
    } catch (error) {
      if (elsewhere && error instanceof InfrastructureError) return undefined;
      throw error;
    }
  }

  /** A check could not be judged without URLs it could not reach. */
  unreachable(what: string): void {
    this.events.onUnreachable(what);
  }

  /** Version, then Authorization for the credential; `null` in extra removes a header. */
  headers(auth: Auth, extra: Record<string, string | null> = {}): Record<string, string> {
    const headers: Record<string, string | null> = { version: this.config.apiVersion, ...authorization(auth, this.target), ...extra };
    return Object.fromEntries(Object.entries(headers).filter((entry): entry is [string, string] => entry[1] !== null));
  }

  private async send(
    label: string,
    method: Reply['method'],
    url: string,
    options: { headers: Record<string, string>; multipart?: FormPart[]; fileBytes?: number; chunked?: boolean; meanwhile?: () => Promise<unknown>; spelling?: Spelling; data?: unknown; summary?: unknown; maxRedirects?: number; offered?: boolean },
  ): Promise<Reply> {
    const absolute = /^https?:\/\//.test(url) ? url : `${this.target.baseUrl}${url}`;
    const spelling = options.spelling ?? this.spelling;
    try {
      const incoming = await this.transport.fetch({
        method,
        url: absolute,
        headers: options.headers,
        multipart: options.multipart,
        fileBytes: options.fileBytes,
        ...(options.chunked || (spelling?.chunked && (options.multipart ?? options.data) !== undefined) ? { chunked: true as const } : {}),
        ...(options.meanwhile ? { meanwhile: options.meanwhile } : {}),
        ...(spelling ? { spelling } : {}),
        data: options.data,
        maxRedirects: options.maxRedirects,
        offered: options.offered,
        label,
        summary: options.summary,
      });
      const answer = { ...reply(method, incoming.url, incoming.status, incoming.headers, incoming.body, (text) => this.evidence.redact(text)), ...(incoming.meanwhileMissed ? { meanwhileMissed: true as const } : {}) };
      if (incoming.exchange) linkReply(answer, incoming.exchange);
      return answer;
    } catch (error) {
      if (error instanceof ReplayMismatchError) throw error;
      throw new InfrastructureError(`${method} ${this.evidence.redact(absolute)}: ${this.evidence.redact((error as Error).message.split('\n')[0])}`);
    }
  }
}

function authorization(auth: Auth, target: Target): Record<string, string> {
  if (auth === 'none') return {};
  if (typeof auth === 'object') return { authorization: 'bearer' in auth ? `Bearer ${auth.bearer}` : auth.header };
  const token = target.tokens[auth];
  if (token === undefined) throw new Error(`no token configured for ${auth}`);
  return { authorization: `Bearer ${token}` };
}

function reply(method: Reply['method'], url: string, status: number, headers: Record<string, string>, body: Buffer, redact: (text: string) => string): Reply {
  return {
    method,
    url,
    status,
    headers,
    body,
    text: () => body.toString('utf8'),
    shown: () => redact(body.toString('utf8')),
    json: () => {
      try {
        return JSON.parse(body.toString('utf8'));
      } catch {
        return undefined;
      }
    },
  };
}
