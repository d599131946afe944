// Where the contract says "not shown" or nothing, a correct server may choose anything. Each such point is a dimension
// of SPACE, with the values a correct server may choose there, each as the policy fields it sets (the first value is
// DEFAULT_POLICY's own). A style is one value per dimension, written `<named>[+<dimension>=<value>…]`: `default` takes
// the first value everywhere, `alt` the live platform's published habits where it has them, `gateway` the default
// behind a gateway that redirects every operation's path (308 to the path with a trailing slash), and any point of the space
// can be named (`default+urlReference=relative`) or drawn from a seed (sampleStyle, npm run mutation). A fault
// (faults.ts) applies over any style. The README lists the dimensions.
import { createHash } from 'node:crypto';
import { STATUS_CODES } from 'node:http';
import { CLOCK_HABITS, type ClockHabit } from './clock.ts';
import { contentTypeOf } from './mime.ts';
import type { Policy, Refusal } from './policy.ts';
import type { ApiError } from './errors.ts';

type Values = Readonly<Record<string, Partial<Policy>>>;

/** The platform's status for a reason of errors.ts, where it differs from the reason's own. */
const PLATFORM_STATUS: Readonly<Record<string, number>> = {
  version_required: 401,
  unknown_version: 401,
  missing_scope: 401,
  unknown_target: 404,
  agent_not_in_location: 404,
  unsupported_file_type: 415,
  too_many_files: 400,
  private_attachment: 403,
  url_expired: 410,
  unknown_session: 400,
  agent_inactive: 400,
  invalid_body: 422,
};

/** One status for every client error but a throttle's 429 (§7: error status codes are not shown). */
const uniformStatus = (status: number) => (error: ApiError) => (error.statusCode >= 400 && error.statusCode < 500 && error.statusCode !== 429 ? status : error.statusCode);

const json = 'application/json';

/** The platform's error bodies: `{error}` on auth and files, `{status, message}` on size and type, Nest-style validation lists, an HTML 404 for a route it does not have. */
function platformBody(status: number, error: ApiError & { oauth?: boolean }): Omit<Refusal, 'status'> {
  if (error.oauth) return { type: json, body: { error: error.code, error_description: error.message } };
  if (error.code === 'no_route') return { type: 'text/html; charset=utf-8', body: `<!DOCTYPE html>\n<html><body><pre>${error.message}</pre></body></html>\n` };
  if ([401, 403, 404, 410].includes(status)) return { type: json, body: { error: error.message } };
  if ([413, 415, 429].includes(status)) return { type: json, body: { status, message: error.message } };
  if (status >= 500) return { type: json, body: { message: 'Internal server error' } };
  return { type: json, body: { statusCode: status, message: [error.message], error: STATUS_CODES[status] ?? 'Error' } };
}

/** A UUID-shaped identifier from a digest: the same for the same seed, like every identifier of the reference. */
const uuidOf = (hex: string) => `${hex.slice(0, 8)}-${hex.slice(8, 12)}-4${hex.slice(13, 16)}-a${hex.slice(17, 20)}-${hex.slice(20, 32)}`;

const INLINE_IMAGES = new Set(['png', 'jpg', 'jpeg', 'gif', 'svg', 'heic']);

/** Every point the contract leaves open and the values a correct server may choose there; the first is DEFAULT_POLICY's. */
export const SPACE = {
  refusalStatus: {
    reason: {},
    platform: { refusalStatus: (error) => PLATFORM_STATUS[error.code] ?? error.statusCode },
    'all-400': { refusalStatus: uniformStatus(400) },
    'all-422': { refusalStatus: uniformStatus(422) },
  },
  refusalBody: {
    json: {},
    platform: { refusalBody: platformBody },
    // RFC 9457 problem details.
    problem: { refusalBody: (status, error) => ({ type: 'application/problem+json', body: { type: 'about:blank', title: STATUS_CODES[status] ?? 'Error', status, detail: error.message } }) },
    text: { refusalBody: (_status, error) => ({ type: 'text/plain; charset=utf-8', body: `${error.message}\n` }) },
    html: { refusalBody: (status, error) => ({ type: 'text/html; charset=utf-8', body: `<!DOCTYPE html>\n<html><body><h1>${status}</h1><p>${error.message}</p></body></html>\n` }) },
  },
  errorExtras: {
    none: {},
    // A documentation link the client cannot reach: on this machine's discard port, so no traffic leaves it.
    trace: { errorExtras: (ids) => ({ requestId: ids.next('req'), documentation: 'http://127.0.0.1:9/docs/errors' }) },
  },
  uploadedFiles: {
    'by-name': {},
    list: {
      uploadedFiles: (files) => ({
        files: files.map(({ file, url }) => ({ id: file.id, name: file.fileName, url, contentType: contentTypeOf(file.extension), size: file.size, secure: file.slug !== undefined })),
      }),
    },
    nested: { uploadedFiles: (files) => ({ data: { items: files.map(({ file, url }) => ({ file: { name: file.fileName, links: { download: url } } })) } }) },
    'by-index': { uploadedFiles: (files) => Object.fromEntries(files.map(({ url }, index) => [String(index), url])) },
  },
  answerExtras: {
    none: {},
    trace: { extraFields: (ids) => ({ traceId: ids.next('trace') }) },
  },
  // An origin of the files' own may show images inline: a script there does not run in the API's origin.
  filesOrigin: {
    api: {},
    'own-inline': { filesOrigin: 'assets', inlineExtensions: INLINE_IMAGES },
    'own-attachment': { filesOrigin: 'assets' },
  },
  // A file's own URL serves its bytes, or hands over to storage with a redirect to a short-lived URL of them.
  fileHandOver: { direct: {}, 'redirect-302': { fileHandOver: 302 }, 'redirect-307': { fileHandOver: 307 } },
  permanentPrefix: { '/files/p/': {}, '/media/': { permanentPrefix: '/media/' }, '/f/': { permanentPrefix: '/f/' } },
  // RFC 3986 §4.1: how a URL of a file is written in an answer, resolved by the client against that answer's URL.
  urlReference: {
    absolute: {},
    'scheme-relative': { urlReference: 'scheme-relative' },
    'path-absolute': { urlReference: 'path-absolute' },
    relative: { urlReference: 'relative' },
  },
  fileUrlQuery: { none: {}, version: { fileUrlQuery: 'v=1' }, download: { fileUrlQuery: 'download=1&source=upload' } },
  // Keys are never integer-like: JavaScript would put them first, and the first value is the default's.
  canonicalRedirect: {
    serve: {},
    'redirect-301': { canonicalRedirect: 301 },
    'redirect-302': { canonicalRedirect: 302 },
    'redirect-307': { canonicalRedirect: 307 },
    'redirect-308': { canonicalRedirect: 308 },
  },
  // A gateway's habit: every operation's path is redirected to the same path with a trailing slash, method and body kept.
  operationRedirect: { none: {}, 'slash-308': { operationRedirect: 308 }, 'slash-307': { operationRedirect: 307 } },
  signedUrlDelivery: {
    'redirect-302': {},
    'redirect-303': { signedUrlDelivery: 'redirect', signedUrlRedirect: 303 },
    'redirect-307': { signedUrlDelivery: 'redirect', signedUrlRedirect: 307 },
    json: { signedUrlDelivery: 'json' },
    'json-nested': { signedUrlDelivery: 'json-nested' },
    'uri-list': { signedUrlDelivery: 'uri-list' },
    link: { signedUrlDelivery: 'link' },
  },
  signedUrlForm: { plain: {}, cdn: { signedUrlForm: 'cdn' } },
  // "short-lived" (§4.2): within the hour of SECURE-SIGNED-EXPIRES.
  signedUrlSeconds: { '300s': {}, '60s': { signedUrlSeconds: 60 }, '900s': { signedUrlSeconds: 900 }, '1800s': { signedUrlSeconds: 1800 } },
  idFormat: {
    prefixed: {},
    uuid: { idFormat: (kind, hex) => (kind === 'att' ? hex.slice(0, 32) : uuidOf(hex)) },
    numeric: { idFormat: (_kind, hex, length) => BigInt(`0x${hex.slice(0, Math.min(length, 13))}`).toString() },
    base64url: { idFormat: (_kind, hex, length) => Buffer.from(hex.slice(0, length), 'hex').toString('base64url') },
  },
  compression: { none: {}, gzip: { compress: true } },
  // RFC 9110 §14.2: a server may ignore Range, or answer a one-range request 206 with those bytes.
  byteRanges: { ignored: {}, served: { byteRangeShift: 0 } },
  cacheControl: { none: {}, 'no-store': { cacheControl: 'no-store' }, private: { cacheControl: 'private, max-age=60' } },
  executionValues: {
    plain: {},
    platform: {
      executionValues: (reply) => ({
        type: 'message',
        nextExpectedInput: 'user_message',
        executionStatus: 'waiting_for_input',
        attachments: [],
        generativeOutputs: [{ type: 'text', content: reply }],
      }),
    },
  },
  leadingBytes: { unchecked: {}, checked: { checkLeadingBytes: true } },
  servedType: {
    charset: {},
    // Text types without a charset, and no nosniff.
    bare: { servedContentType: (extension) => contentTypeOf(extension).replace(/; charset=utf-8$/, ''), nosniff: false },
  },
  // Only under THROTTLE: whether a 429 says when to come back.
  retryAfter: { seconds: {}, absent: { retryAfter: false } },
  // The test clock: frozen, or running on once set (an offset from real time), with whole seconds, or skewed weeks ahead.
  clock: Object.fromEntries(CLOCK_HABITS.map((habit) => [habit, habit === 'frozen' ? {} : { clockHabit: habit }])) as Record<ClockHabit, Partial<Policy>>,
} as const satisfies Readonly<Record<string, Values>>;

export type Dimension = keyof typeof SPACE;
export const DIMENSIONS = Object.keys(SPACE) as Dimension[];
/** A point of the space: one value per dimension. */
export type StylePoint = { readonly [D in Dimension]: string };

const first = (dimension: Dimension) => Object.keys(SPACE[dimension])[0];

/** The named points: `default` chooses the first value everywhere; `alt` the platform's habits; `gateway` the default behind a redirecting gateway. */
const NAMED = {
  default: {},
  alt: {
    refusalStatus: 'platform',
    refusalBody: 'platform',
    answerExtras: 'trace',
    uploadedFiles: 'list',
    filesOrigin: 'own-inline',
    permanentPrefix: '/media/',
    signedUrlDelivery: 'json',
    signedUrlForm: 'cdn',
    signedUrlSeconds: '900s',
    idFormat: 'uuid',
    executionValues: 'platform',
    leadingBytes: 'checked',
    servedType: 'bare',
    retryAfter: 'absent',
  },
  // A gateway before the default: every operation's path redirected to the path with a trailing slash (issue 46).
  gateway: { operationRedirect: 'slash-308' },
} as const satisfies Record<string, Partial<Record<Dimension, string>>>;

export type StyleName = keyof typeof NAMED;
export const STYLE_NAMES = Object.keys(NAMED) as StyleName[];

/** Reads a style: a named point, then `+dimension=value` changes; the message names the variable and what it takes. */
export function parseStyle(spec: string | undefined, variable = 'STYLE'): StylePoint {
  const [name, ...changes] = (spec === undefined || spec === '' ? 'default' : spec).split('+');
  if (!(name in NAMED)) throw new Error(`${variable}=${spec} is not a reference style; known: ${STYLE_NAMES.join(', ')} (each may be followed by +dimension=value)`);
  const point: Record<string, string> = { ...Object.fromEntries(DIMENSIONS.map((dimension) => [dimension, first(dimension)])), ...NAMED[name as StyleName] };
  for (const change of changes) {
    const [dimension, value] = change.split('=');
    if (!(dimension in SPACE)) throw new Error(`${variable}=${spec}: ${dimension} is not a dimension of the style space; known: ${DIMENSIONS.join(', ')}`);
    if (!(value in SPACE[dimension as Dimension])) throw new Error(`${variable}=${spec}: ${dimension} takes ${Object.keys(SPACE[dimension as Dimension]).join(', ')}`);
    point[dimension] = value;
  }
  return point as StylePoint;
}

/** The policy fields of a point. */
export function policyOfStyle(point: StylePoint): Partial<Policy> {
  return Object.assign({}, ...DIMENSIONS.map((dimension) => (SPACE[dimension] as Values)[point[dimension]]));
}

/** A point written as `default+…`, naming only the values that differ from the default. */
export function styleSpec(point: StylePoint): string {
  const changes = DIMENSIONS.filter((dimension) => point[dimension] !== first(dimension)).map((dimension) => `+${dimension}=${point[dimension]}`);
  return `default${changes.join('')}`;
}

/** The point a seed draws: each dimension's value picked from a digest of the seed and the dimension, so a seed names one point for good. */
export function sampleStyle(seed: string): StylePoint {
  const pick = (dimension: Dimension) => {
    const values = Object.keys(SPACE[dimension]);
    return values[createHash('sha256').update(`${seed}:${dimension}`).digest().readUInt32BE(0) % values.length];
  };
  return Object.fromEntries(DIMENSIONS.map((dimension) => [dimension, pick(dimension)])) as StylePoint;
}
