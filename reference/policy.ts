// Every behaviour of the reference server that a fault varies, as data. DEFAULT_POLICY is the contract; a fault of
// faults.ts overrides a field or two. So the routes state each rule once, with its parameters, and the ways to
// break them live in one list.
import type { Readable } from 'node:stream';
import {
  ALLOWED_EXTENSION_SET,
  DEPRECATED_EXECUTE_PATH,
  extensionOf,
  MAX_FILE_BYTES_BINARY,
  MAX_FILES_PER_UPLOAD,
  PLATFORM_EXECUTE_PATH,
  REPLACEMENT_EXECUTE_PATH,
  SECURE_CUTOVER_DATE,
  SECURE_PATH_PREFIX,
  SECURE_PUBLIC_WINDOW_SECONDS,
} from '../src/contract/contract.ts';
import type { ClockHabit } from './clock.ts';
import type { Token } from './world.ts';
import type { ApiError } from './errors.ts';
import type { StoredFile } from './file-store.ts';
import { contentTypeOf } from './mime.ts';

/** The replacement execution, where the contract puts it and where the live platform and its SDK send it. */
export const REPLACEMENT_PATHS = [REPLACEMENT_EXECUTE_PATH, PLATFORM_EXECUTE_PATH];

export interface Policy {
  // Choices the contract leaves open, where the styles of style.ts differ (faults leave them alone)
  /** The status a refusal is answered with (refusalOf). */
  readonly refusalStatus: (error: ApiError) => number;
  /** The content type and body of a refusal of that status. */
  readonly refusalBody: (status: number, error: ApiError) => Omit<Refusal, 'status'>;
  /** Fields a JSON error body carries beyond the style's own. */
  readonly errorExtras: (ids: { next(kind: string): string }) => Record<string, unknown>;
  /** A 429 of the THROTTLE option carries Retry-After. */
  readonly retryAfter: boolean;
  /** How the test clock behaves once set (clock.ts). */
  readonly clockHabit: ClockHabit;
  /** How identifiers, slugs and issued tokens look, from a kind, a hex digest and a length. */
  readonly idFormat: (kind: string, hex: string, length: number) => string;
  /** uploadedFiles (§2.2: inner structure not shown) from the stored files and their URLs. */
  readonly uploadedFiles: (files: readonly UploadedFile[]) => Record<string, unknown>;
  /** Fields the upload and execution answers carry beyond the documented ones. */
  readonly extraFields: (ids: { next(kind: string): string }) => Record<string, unknown>;
  /** Files are served by the API's own origin, or by an origin of their own (storage, a CDN). */
  readonly filesOrigin: 'api' | 'assets';
  /** The path of a permanent URL, before `{id}/{name}`. */
  readonly permanentPrefix: string;
  /** How a file's name is written into its permanent URL. */
  readonly nameInUrl: (name: string) => string;
  /** A permanent URL serves its file only under the file's own name (else any name after its id). */
  readonly permanentNameChecked: boolean;
  /** GET /files/d/{slug} hands over the signed URL as a redirect, in a JSON body (flat or nested), a text/uri-list body, or a Link header. */
  readonly signedUrlDelivery: 'redirect' | 'json' | 'json-nested' | 'uri-list' | 'link';
  /** The status of that redirect. */
  readonly signedUrlRedirect: number;
  /** How an answer writes a URL of a file (RFC 3986 §4.1), resolved against the answer's own URL. */
  readonly urlReference: 'absolute' | 'scheme-relative' | 'path-absolute' | 'relative';
  /** A query the URLs of uploaded files carry; the file routes ignore it. */
  readonly fileUrlQuery?: string;
  /** A GET of a non-canonical spelling (a trailing slash) is redirected to the canonical URL with this status, rather than served. */
  readonly canonicalRedirect?: 301 | 302 | 307 | 308;
  /** Every operation's path without a trailing slash is redirected to the path with one, with this status, whatever the method. */
  readonly operationRedirect?: 307 | 308;
  /** A file's own URL answers with a redirect to a short-lived URL of its bytes (storage), with this status, rather than the bytes. */
  readonly fileHandOver?: 302 | 307;
  /** Answers are gzip-encoded for clients that accept it. */
  readonly compress: boolean;
  /** The Cache-Control of every answer. */
  readonly cacheControl?: string;
  /** The form of a signed download URL: `/files/signed/{slug}?expires&signature`, or a CDN's `?Expires&KeyName&Signature`. */
  readonly signedUrlForm: 'plain' | 'cdn';
  readonly signedUrlSeconds: number;
  /** Values of the execution answer's open fields (type, nextExpectedInput, executionStatus, the arrays' items). */
  readonly executionValues: (reply: string) => Record<string, unknown>;
  /** An uploaded file's leading bytes must match its extension, for the types that have a signature. */
  readonly checkLeadingBytes: boolean;

  // Upload limits and fields
  readonly requireFile: boolean;
  readonly maxFiles: number;
  readonly maxFileBytes: number;
  /** The files of one upload together; the contract sets no such limit. */
  readonly maxUploadBytes: number;
  /** Compared with the lower-cased extension. */
  readonly allowedExtensions: ReadonlySet<string> | 'any';
  /** How the extension is read from a file name. */
  readonly extensionOf: (fileName: string) => string;
  /** How many of an upload's files, from the first, have their size checked; the others are cut to the limit. */
  readonly sizeCheckedFiles: number;
  /** Whether a file of this name has its size checked (a name the server's check cannot read is let through, cut to the limit). */
  readonly sizeCheckedName: (fileName: string) => boolean;
  /** A limit of §8 the server does not enforce on some kind of upload (by its fields, which arrive before the files). */
  readonly skipsUploadLimit: (limit: UploadLimit, upload: UploadKind) => boolean;
  /** How many of an upload's files, from the first, have their type checked. */
  readonly typeCheckedFiles: number;
  readonly extensionsIgnoreCase: boolean;
  readonly requireLocation: boolean;
  readonly requireAttachmentUrls: boolean;
  /** The most URLs attachmentUrls may list; the contract types it as a list of any length. */
  readonly maxAttachmentUrls: number;
  /** A conversation or a contact; without this, a contact of the location stands in. */
  readonly requireTarget: boolean;
  /** An upload may name a contact and no conversation. */
  readonly acceptContactOnly: boolean;
  readonly uploadRequiresToken: boolean;
  /** Documented optional fields of an upload or an execution that the server refuses as unknown. */
  readonly refusedFields: ReadonlySet<string>;
  /** Each file of a secure upload is stored as secure, or only the first. */
  readonly secureFiles: 'every' | 'first';
  /** Fields the server drops when they come after a file part (it decides from the fields read before the files). */
  readonly droppedAfterFiles: ReadonlySet<string>;
  /** Fields the server drops from a body sent in chunks, without a Content-Length. */
  readonly droppedWhenChunked: ReadonlySet<string>;
  /** Whether a new non-secure file is taken for an earlier non-secure one, whose bytes it then replaces, rather than being a file of its own. */
  readonly overwrites: (incoming: { fileName: string; locationId: string }, earlier: StoredFile) => boolean;
  /** A new file of bytes the location already holds is answered with that file's entry (its URL and kind), rather than being a file of its own. */
  readonly dedupesByBytes: boolean;
  /** The files a refused upload sent before its refusal are stored over the location's files of their names, rather than dropped. */
  readonly storesRefusedFiles: boolean;
  /** The body an upload is answered with, from its own and those of the uploads in flight beside it that answered first. */
  readonly answerOfUpload: (own: Record<string, unknown>, answeredBeside: readonly Record<string, unknown>[]) => Record<string, unknown>;

  // The upload's answer
  readonly uploadResponseKey: 'uploadedFiles' | 'files';
  readonly listEveryFile: boolean;
  /** The URL listed for each file: its own, or the first file's. */
  readonly urlOfFile: 'own' | 'first';
  readonly uploadResponseType: 'json' | 'text';

  // Serving files
  readonly permanentUrlsNeedVersion: boolean;
  /** The instant (epoch ms) a permanent URL of a file uploaded at `uploadedAt` stops serving: never, by the contract. */
  readonly permanentUntil: (uploadedAt: number) => number;
  /** The bytes a permanent URL sends, from the stored ones. */
  readonly permanentBody: (stored: Readable) => Readable;
  readonly servedContentType: (extension: string) => string;
  /** Served with Content-Disposition: inline rather than attachment. */
  readonly inlineExtensions: ReadonlySet<string>;
  readonly nosniff: boolean;

  // Secure attachments and signed download URLs
  readonly secureUrlPrefix: string;
  /** How long after the upload a secure attachment stays anonymous. */
  readonly publicWindowMs: number;
  /** How long it then stays private, before it is anonymous again. */
  readonly privateForMs: number;
  /** A request to a secure URL after the window that is still served anonymously, by how it is made and what read the file before. */
  readonly publicAfterWindow: (request: { url: string; originalUrl: string; headers: Record<string, unknown> }, before: { signed: boolean }) => boolean;
  /** GET /files/d/{slug} without a token after the window answers with a signed URL. */
  readonly anonymousSignedUrls: boolean;
  /** An anonymous HEAD of a private attachment is answered as a read of its file, without the bytes: its type and length. */
  readonly privateHeadShowsFile: boolean;
  /** Files older than this get no signed URL. */
  readonly signedUrlMaxAgeMs: number;
  readonly issueSignedUrls: boolean;
  /** Whether the token must hold files.readonly and reach the file's location, for this request. */
  readonly signedUrlChecksAccess: (request: { headers: Record<string, unknown> }) => boolean;
  /** A slug signed once is signed again without a check of the token: a grant cached by slug. */
  readonly signedGrantReused: boolean;
  /** The scopes whose operations take any location's token that holds them (tenant isolation). */
  readonly anyLocationFor: ReadonlySet<string>;
  readonly crashOnUnknownSlug: boolean;
  readonly signedUrlsExpire: boolean;
  readonly signedUrlBindsSlug: boolean;
  readonly verifySignature: boolean;
  // HTTP semantics of the URLs that serve a file (RFC 9110): the contract is silent, so each is a choice or a fault.
  /** A one-range `Range` is answered 206 with the bytes shifted by this many (0: exactly the range); undefined ignores Range (RFC 9110 §14.2 allows it). */
  readonly byteRangeShift?: number;
  /** Files carry an ETag and a Last-Modified, and a conditional GET naming them is answered 304 (RFC 9110 §8.8, §13.1). */
  readonly validators: boolean;
  /** Any If-None-Match or If-Modified-Since is answered 304, whatever it names. */
  readonly conditionalAlways304: boolean;
  /** The Cache-Control of an anonymous read of a secure URL in its hour, where it is not the style's. */
  readonly secureReadCacheControl?: string;
  /** A HEAD of a URL that serves a file is answered 405. */
  readonly fileHeadRefused: boolean;
  /** An upload whose boundary parameter is a quoted-string is refused. */
  readonly quotedBoundaryRefused: boolean;
  /** The auth-scheme must be written `Bearer`, in that case. */
  readonly bearerSchemeExact: boolean;
  /** The Authorization field is read only under that name, written so: `authorization` goes unread. */
  readonly authorizationNameExact: boolean;
  /** The part of the file a signed URL sends; undefined for all of it. */
  readonly signedDownloadRange: (file: StoredFile) => { start: number; end: number } | undefined;
  /** The file a signed URL is issued for, from the one asked for and the first file of its upload. */
  readonly signedFileOf: (asked: StoredFile, firstOfUpload: StoredFile) => StoredFile;

  // The dated change
  /** From this instant (epoch ms) every upload is stored as secure. */
  readonly cutoverAt: number;
  /** The instant the all-secure regime stops again; the contract says it lasts. */
  readonly cutoverEndsAt: number;
  /** After the cutover isSecureAttachment=false no longer makes an upload non-secure. */
  readonly cutoverOverridesFlag: boolean;
  /** After the cutover an isSecureAttachment other than true or false is refused, rather than ignored. */
  readonly flagStrictAfterCutover: boolean;
  /** The channels whose uploads the change makes secure (the others' are then stored non-secure); the contract says every one. */
  readonly cutoverChannels: 'every' | 'email';

  // Agent execution and sessions
  readonly executePaths: readonly string[];
  /** The body field that holds the message on the replacement path. */
  readonly replacementMessageField: 'message' | 'input';
  readonly deprecationHeaders: boolean;
  readonly executeAcceptsUnknownBearer: boolean;
  /** The checks of §2.3 an execution skips, by path and by kind of request. */
  readonly skipsAgentCheck: (check: AgentCheck, on: { path: 'deprecated' | 'replacement'; continuation: boolean }) => boolean;
  readonly crashOnMissingLocation: boolean;
  /** The message is trimmed before the body is validated, so a message that is not a string crashes the handler. */
  readonly trimMessageUnchecked: boolean;
  /** An execution with an empty body runs with a blank message for the token's location. */
  readonly fillEmptyExecution: boolean;
  /** An unknown agentId runs an agent of the body's location. */
  readonly substituteUnknownAgents: boolean;
  /** Whether an execution's source parameter, where it is sent, is taken. */
  readonly sourceAccepted: (source: string) => boolean;
  readonly requireExecutionId: boolean;
  readonly rejectUnknownSessions: boolean;
  readonly continueSessions: boolean;
  /** A continuation of a session that is not the one with the latest turn continues that latest one instead. */
  readonly continuesLatestSession: boolean;
  /**
   * How long an agent takes before it reads its session and replies: none here, where a platform's agents take
   * seconds; with some, two turns sent together are in flight together (the handler is otherwise synchronous).
   */
  readonly agentReplyMs: number;
  /** A continuation of a known session starts a new session instead, by what it sends and what came before it: never, by §3. */
  readonly forksSession: (turn: ContinuedTurn) => boolean;
  /** A continuation by another token than the one that started the session is refused. */
  readonly sessionBoundToToken: boolean;
  /** Every new session gets this executionId rather than a fresh one. */
  readonly fixedExecutionId?: string;
  /** A first message naming a contactId continues the agent's earlier session of that contact: never, by §3. */
  readonly sessionPerContact: boolean;
  /** Whether the exchange of this turn of a session (1, 2, …) gets a new interactionId rather than the previous one. */
  readonly newInteractionOnTurn: (turn: number) => boolean;
  /** interactionIds count the turns of a session (`int-1`, `int-2`…) instead of being unique. */
  readonly interactionIdsPerSession: boolean;
  /** `success` of an execution that succeeded. */
  readonly reportedSuccess: boolean;
  /** `goalCompletion` of an execution that did not complete its goal. */
  readonly goalCompletion: false | 'false';
  /** Whether the reply to this turn of a session (1, 2, …) carries generativeOutputs. */
  readonly sendGenerativeOutputs: (turn: number) => boolean;
  readonly executionResponseType: 'json' | 'text';

  // Authentication and versioning
  /** Without it, the last word of the Authorization header is the token, whatever the scheme. */
  readonly requireBearerScheme: boolean;
  readonly acceptPrivateIntegrationTokens: boolean;
  /** Whether the upload takes a private integration token (§5.2: two kinds of token are accepted). */
  readonly privateIntegrationTokensUpload: boolean;
  readonly requireVersion: boolean;
  readonly acceptAnyVersion: boolean;

  // Token endpoints
  /** The scopes of an access token issued for a refresh token, from those of its grant. */
  readonly refreshedScopes: (granted: readonly string[]) => string[];
  /** Without it, an unknown refresh token renews the client's seed grant: only the client is checked. */
  readonly refreshChecksToken: boolean;
  /** Without it, the refresh grant takes any client_secret, or none. */
  readonly refreshChecksClientSecret: boolean;
  /** A refresh exchange issues a new refresh token and ends the one it spent. */
  readonly rotateRefreshTokens: boolean;
  /** The location a location token is issued for, from the requested one and the Agency's locations. */
  readonly locationTokenFor: (requested: string, companyLocations: readonly string[]) => string;
  /** A new location token revokes the tokens issued before it for the location. */
  readonly locationTokenRevokesEarlier: boolean;
  /** An access token issued for a refresh token reaches every location, not only its grant's. */
  readonly refreshedTokensReachAnyLocation: boolean;
  /** The scopes whose operations take a token issued by POST /oauth/location-token in any location, not only its own. */
  readonly locationTokensReachAnyLocationFor: ReadonlySet<string>;
}

/** What a client receives for a refusal. */
export interface Refusal {
  readonly status: number;
  readonly type: string;
  readonly body: string | Record<string, unknown>;
}

export interface UploadedFile {
  readonly file: StoredFile;
  readonly url: string;
}

/** The limits of §8 a server enforces per upload. */
export type UploadLimit = 'count' | 'size' | 'type';

/** What kind of upload it is, from the fields sent before its files and how its body came. */
export interface UploadKind {
  readonly isSecureAttachment?: string;
  readonly conversation: boolean;
  readonly contact: boolean;
  /** The body came in chunks, without a Content-Length. */
  readonly chunked: boolean;
}

/** A token (a continuation may take its session's), the message, the agent's location, the agent's status. */
export type AgentCheck = 'token' | 'message' | 'agent-location' | 'active';

/** A continuation as the execute route sees it, before it decides which session answers it. */
export interface ContinuedTurn {
  /** The session it continues: who started it, and its exchanges so far. */
  readonly session: { readonly token: Token; readonly turns: number };
  readonly token: Token;
  /** The body's fields beyond message, locationId and executionId. */
  readonly fields: readonly string[];
  /** Continuations of the session refused so far. */
  readonly refusedBefore: number;
  /** Another continuation of the session was in flight at some moment of this one's time, and was read first. */
  readonly beside: boolean;
}

export const DEFAULT_POLICY: Policy = {
  refusalStatus: (error) => error.statusCode,
  refusalBody: (status, error) => ({ type: 'application/json; charset=utf-8', body: { statusCode: status, error: error.code, message: error.message } }),
  errorExtras: () => ({}),
  retryAfter: true,
  clockHabit: 'frozen',
  idFormat: (kind, hex, length) => `${kind}-${hex.slice(0, length)}`,
  // Keyed by file name; a second file of the same name becomes `name (2).ext`.
  uploadedFiles: (files) => {
    const byName: Record<string, string> = {};
    for (const { file, url } of files) byName[uniqueKey(byName, file.fileName)] = url;
    return byName;
  },
  extraFields: () => ({}),
  filesOrigin: 'api',
  permanentPrefix: '/files/p/',
  nameInUrl: encodeURIComponent,
  permanentNameChecked: false,
  signedUrlDelivery: 'redirect',
  signedUrlRedirect: 302,
  urlReference: 'absolute',
  fileUrlQuery: undefined,
  canonicalRedirect: undefined,
  operationRedirect: undefined,
  fileHandOver: undefined,
  compress: false,
  cacheControl: undefined,
  signedUrlForm: 'plain',
  signedUrlSeconds: 300,
  executionValues: () => ({ type: 'text', nextExpectedInput: 'text', executionStatus: 'completed', attachments: [], generativeOutputs: [] }),
  checkLeadingBytes: false,

  requireFile: true,
  maxFiles: MAX_FILES_PER_UPLOAD,
  maxFileBytes: MAX_FILE_BYTES_BINARY,
  maxUploadBytes: Number.POSITIVE_INFINITY,
  allowedExtensions: ALLOWED_EXTENSION_SET,
  extensionOf,
  sizeCheckedFiles: Number.POSITIVE_INFINITY,
  sizeCheckedName: () => true,
  skipsUploadLimit: () => false,
  typeCheckedFiles: Number.POSITIVE_INFINITY,
  extensionsIgnoreCase: true,
  requireLocation: true,
  requireAttachmentUrls: true,
  maxAttachmentUrls: Number.POSITIVE_INFINITY,
  requireTarget: true,
  acceptContactOnly: true,
  uploadRequiresToken: true,
  refusedFields: new Set(),
  secureFiles: 'every',
  droppedAfterFiles: new Set(),
  droppedWhenChunked: new Set(),
  overwrites: () => false,
  dedupesByBytes: false,
  storesRefusedFiles: false,
  answerOfUpload: (own) => own,

  uploadResponseKey: 'uploadedFiles',
  listEveryFile: true,
  urlOfFile: 'own',
  uploadResponseType: 'json',

  permanentUrlsNeedVersion: false,
  permanentUntil: () => Number.POSITIVE_INFINITY,
  permanentBody: (stored) => stored,
  servedContentType: contentTypeOf,
  inlineExtensions: new Set(),
  nosniff: true,

  secureUrlPrefix: SECURE_PATH_PREFIX,
  publicWindowMs: SECURE_PUBLIC_WINDOW_SECONDS * 1000,
  privateForMs: Number.POSITIVE_INFINITY,
  publicAfterWindow: () => false,
  anonymousSignedUrls: false,
  privateHeadShowsFile: false,
  signedUrlMaxAgeMs: Number.POSITIVE_INFINITY,
  issueSignedUrls: true,
  signedUrlChecksAccess: () => true,
  signedGrantReused: false,
  anyLocationFor: new Set(),
  crashOnUnknownSlug: false,
  signedUrlsExpire: true,
  signedUrlBindsSlug: true,
  verifySignature: true,
  byteRangeShift: undefined,
  validators: true,
  conditionalAlways304: false,
  fileHeadRefused: false,
  quotedBoundaryRefused: false,
  bearerSchemeExact: false,
  authorizationNameExact: false,
  signedDownloadRange: () => undefined,
  signedFileOf: (asked) => asked,

  cutoverAt: Date.parse(`${SECURE_CUTOVER_DATE}T00:00:00Z`),
  cutoverEndsAt: Number.POSITIVE_INFINITY,
  cutoverOverridesFlag: true,
  flagStrictAfterCutover: false,
  cutoverChannels: 'every',

  executePaths: [DEPRECATED_EXECUTE_PATH, ...REPLACEMENT_PATHS],
  replacementMessageField: 'message',
  deprecationHeaders: true,
  executeAcceptsUnknownBearer: false,
  skipsAgentCheck: () => false,
  crashOnMissingLocation: false,
  trimMessageUnchecked: false,
  fillEmptyExecution: false,
  substituteUnknownAgents: false,
  sourceAccepted: () => true,
  requireExecutionId: false,
  rejectUnknownSessions: true,
  continueSessions: true,
  continuesLatestSession: false,
  sessionPerContact: false,
  agentReplyMs: 0,
  forksSession: () => false,
  sessionBoundToToken: false,
  newInteractionOnTurn: () => true,
  interactionIdsPerSession: false,
  reportedSuccess: true,
  goalCompletion: false,
  sendGenerativeOutputs: () => true,
  executionResponseType: 'json',

  requireBearerScheme: true,
  acceptPrivateIntegrationTokens: true,
  privateIntegrationTokensUpload: true,
  requireVersion: true,
  acceptAnyVersion: false,

  refreshedScopes: (granted) => [...granted],
  refreshChecksToken: true,
  refreshChecksClientSecret: true,
  rotateRefreshTokens: true,
  locationTokenFor: (requested) => requested,
  locationTokenRevokesEarlier: false,
  refreshedTokensReachAnyLocation: false,
  locationTokensReachAnyLocationFor: new Set(),
};

/** An earlier file of the same name in the same location: what a store keyed by name takes for the same file. */
export const sameNameInLocation: Policy['overwrites'] = (incoming, earlier) => earlier.locationId === incoming.locationId && earlier.fileName === incoming.fileName;

/** What a client receives for a refusal: the style's status, then its body for that status, with its extras. */
export function refusalOf(policy: Policy, error: ApiError, ids: { next(kind: string): string }): Refusal {
  const status = policy.refusalStatus(error);
  const { type, body } = policy.refusalBody(status, error);
  return { status, type, body: typeof body === 'string' ? body : { ...body, ...policy.errorExtras(ids) } };
}

/**
 * How an answer to `request` writes `url` (RFC 3986 §4.1): absolute; without its scheme; as a path from the root; or
 * relative to the answer's own URL. A URL on another origin keeps that origin: without its scheme at the most.
 */
export function referenceTo(url: string, request: string, form: Policy['urlReference']): string {
  const [target, base] = [new URL(url), new URL(request)];
  if (form === 'absolute') return url;
  if (form === 'scheme-relative' || target.origin !== base.origin) return url.slice(target.protocol.length);
  const path = `${target.pathname}${target.search}`;
  if (form === 'path-absolute') return path;
  const from = base.pathname.split('/').slice(1, -1);
  const to = target.pathname.split('/').slice(1);
  let shared = 0;
  while (shared < from.length && shared < to.length - 1 && from[shared] === to[shared]) shared++;
  return `${'../'.repeat(from.length - shared) || './'}${to.slice(shared).join('/')}${target.search}`;
}

function uniqueKey(taken: Record<string, string>, fileName: string): string {
  const dot = fileName.lastIndexOf('.');
  const [stem, ext] = dot > 0 ? [fileName.slice(0, dot), fileName.slice(dot)] : [fileName, ''];
  let key = fileName;
  for (let n = 2; key in taken; n++) key = `${stem} (${n})${ext}`;
  return key;
}
