// The fault catalogue: FAULT=<name> makes the reference server break exactly one rule of
// src/contract/rules.ts and leaves everything else correct. The suite proves itself by failing on it.
// Each fault is a change to the server's policy (policy.ts), so the routes hold no trace of it.
import { Transform } from 'node:stream';
import {
  ALLOWED_EXTENSION_SET,
  DEPRECATED_EXECUTE_PATH,
  extensionOf,
  FILES_READONLY_SCOPE,
  MAX_FILE_BYTES_DECIMAL,
  SECURE_CUTOVER_DATE,
} from '../src/contract/contract.ts';
import { ruleById, type Level, type RuleId } from '../src/contract/rules.ts';
import { EXECUTE_SCOPE } from './plugins/agents.ts';
import { UPLOAD_SCOPE } from './plugins/upload.ts';
import { type Policy, REPLACEMENT_PATHS, sameNameInLocation } from './policy.ts';

interface FaultEntry {
  readonly name: string;
  readonly rule: RuleId;
  /** What the server does wrong, in a few words. */
  readonly breaks: string;
  /** How it does so: the fields of DEFAULT_POLICY it changes. */
  readonly policy: Partial<Policy>;
}

const MIB = 1024 * 1024;
const HOUR_MS = 3_600_000;
const DAY_MS = 24 * HOUR_MS;
/** The form fields of §2.1, as a client names them (a list's field with brackets too). */
const UPLOAD_FIELDS = ['conversationId', 'contactId', 'workflowId', 'campaignId', 'locationId', 'attachmentUrls', 'attachmentUrls[]', 'isSecureAttachment'];
/** The change of 30 November 2026 as the default policy reads it. */
const CUTOVER = Date.parse(`${SECURE_CUTOVER_DATE}T00:00:00Z`);

export const FAULTS = [
  // Upload limits and fields
  { name: 'upload-six-files', rule: 'UPLOAD-FILES-MAX', breaks: 'accepts a sixth file', policy: { maxFiles: 6 } },
  { name: 'upload-four-files', rule: 'UPLOAD-FILES-MAX', breaks: 'refuses a fifth file', policy: { maxFiles: 4 } },
  { name: 'upload-size-unchecked', rule: 'UPLOAD-SIZE-MAX', breaks: 'accepts files of up to 8 MiB', policy: { maxFileBytes: 8 * MIB } },
  { name: 'upload-size-four-mib', rule: 'UPLOAD-SIZE-MAX', breaks: 'refuses files over 4 MiB', policy: { maxFileBytes: 4 * MIB } },
  { name: 'upload-size-first-file-only', rule: 'UPLOAD-SIZE-MAX', breaks: 'checks the size of the first file and cuts the others to 5 MiB', policy: { sizeCheckedFiles: 1 } },
  { name: 'upload-size-decimal', rule: 'UPLOAD-SIZE-UNIT', breaks: 'reads 5 MB as 5,000,000 bytes', policy: { maxFileBytes: MAX_FILE_BYTES_DECIMAL } },
  { name: 'upload-body-cap', rule: 'UPLOAD-SIZE-MAX', breaks: 'holds the whole upload to 5 MiB, as a cap on the request body in front of it would: two files of 3 MB are refused', policy: { maxUploadBytes: 5 * MIB } },
  { name: 'upload-total-cap', rule: 'UPLOAD-SIZE-TOTAL', breaks: 'refuses uploads totalling more than 20 MiB', policy: { maxUploadBytes: 20 * MIB } },
  { name: 'upload-heic-refused', rule: 'UPLOAD-EXT-ALLOWED', breaks: 'refuses the allowed extension .heic', policy: { allowedExtensions: new Set([...ALLOWED_EXTENSION_SET].filter((extension) => extension !== 'heic')) } },
  { name: 'upload-ext-case-sensitive', rule: 'UPLOAD-EXT-CASE', breaks: 'refuses allowed extensions written in upper case', policy: { extensionsIgnoreCase: false } },
  { name: 'upload-any-extension', rule: 'UPLOAD-EXT-OTHER', breaks: 'accepts any extension', policy: { allowedExtensions: 'any' } },
  { name: 'upload-ext-first-file-only', rule: 'UPLOAD-EXT-OTHER', breaks: 'checks the type of the first file only', policy: { typeCheckedFiles: 1 } },
  { name: 'upload-ext-first-dot', rule: 'UPLOAD-EXT-OTHER', breaks: 'reads the extension after the first dot, so report.pdf.exe passes', policy: { extensionOf: (name) => name.split('.')[1]?.toLowerCase() ?? '' } },
  { name: 'upload-ext-suffix', rule: 'UPLOAD-EXT-OTHER', breaks: 'accepts any name ending in an allowed extension, dot or not', policy: { extensionOf: (name) => [...ALLOWED_EXTENSION_SET].find((allowed) => name.toLowerCase().endsWith(allowed)) ?? extensionOf(name) } },
  { name: 'upload-target-optional', rule: 'UPLOAD-TARGET-REQUIRED', breaks: 'accepts an upload with neither conversationId nor contactId', policy: { requireTarget: false } },
  { name: 'upload-conversation-required', rule: 'UPLOAD-CONTACT-ONLY', breaks: 'refuses an upload that names only a contact', policy: { acceptContactOnly: false } },
  { name: 'upload-location-optional', rule: 'UPLOAD-LOCATION-REQUIRED', breaks: 'accepts an upload without locationId', policy: { requireLocation: false } },
  { name: 'upload-attachment-urls-optional', rule: 'UPLOAD-ATTACHMENT-URLS', breaks: 'accepts an upload without attachmentUrls', policy: { requireAttachmentUrls: false } },
  { name: 'upload-attachment-urls-single', rule: 'UPLOAD-ATTACHMENT-URLS-LIST', breaks: 'refuses an upload whose attachmentUrls lists two URLs or more', policy: { maxAttachmentUrls: 1 } },
  { name: 'upload-fields-after-files-dropped', rule: 'UPLOAD-FIELDS-AFTER-FILES', breaks: 'drops the form fields that come after a file part, so such an upload lacks its locationId', policy: { droppedAfterFiles: new Set(UPLOAD_FIELDS) } },
  { name: 'upload-workflow-refused', rule: 'UPLOAD-OPTIONAL-FIELDS', breaks: 'refuses the documented field workflowId as unknown', policy: { refusedFields: new Set(['workflowId']) } },
  { name: 'upload-no-file-accepted', rule: 'UPLOAD-FILES-MIN', breaks: 'accepts an upload with no file', policy: { requireFile: false } },
  { name: 'upload-text-response', rule: 'UPLOAD-ACCEPTED', breaks: 'answers a valid upload as text/plain', policy: { uploadResponseType: 'text' } },
  { name: 'upload-renamed-field', rule: 'UPLOAD-RESPONSE-SCHEMA', breaks: 'names the response field `files` instead of uploadedFiles', policy: { uploadResponseKey: 'files' } },
  { name: 'upload-urls-of-first-file', rule: 'UPLOAD-URL-PER-FILE', breaks: "lists the first file's URL for every file", policy: { urlOfFile: 'first' } },
  { name: 'upload-missing-url', rule: 'UPLOAD-URL-PER-FILE', breaks: 'leaves the last file out of the response', policy: { listEveryFile: false } },

  // Permanent URLs
  { name: 'permanent-corrupt-bytes', rule: 'PERMANENT-URL-ANONYMOUS', breaks: 'serves a non-secure file with its first byte changed', policy: { permanentBody: (stored) => stored.pipe(flipFirstByte()) } },
  { name: 'permanent-requires-version', rule: 'PERMANENT-URL-ANONYMOUS', breaks: 'serves a non-secure file only with a Version header', policy: { permanentUrlsNeedVersion: true } },
  { name: 'permanent-expires', rule: 'PERMANENT-URL-LASTS', breaks: 'stops serving a non-secure file after a week', policy: { permanentUntil: (uploadedAt) => uploadedAt + 7 * DAY_MS } },
  { name: 'cutover-early', rule: 'PERMANENT-URL-LASTS', breaks: 'stores every upload as secure from 28 November 2026', policy: { cutoverAt: Date.parse('2026-11-28T00:00:00Z') } },
  { name: 'file-octet-stream', rule: 'FILE-CONTENT-TYPE', breaks: 'serves every file as application/octet-stream', policy: { servedContentType: () => 'application/octet-stream' } },
  { name: 'svg-inline', rule: 'SVG-NOT-RENDERED', breaks: 'serves SVG inline as image/svg+xml, with no Content-Security-Policy', policy: { inlineExtensions: new Set(['svg']) } },
  { name: 'no-nosniff', rule: 'FILE-NOSNIFF', breaks: 'sends no X-Content-Type-Options header', policy: { nosniff: false } },

  // HTTP semantics of requests and of the URLs that serve files
  { name: 'quoted-boundary-refused', rule: 'HTTP-REQUEST-FORMS', breaks: 'refuses an upload whose multipart boundary is a quoted-string', policy: { quotedBoundaryRefused: true } },
  { name: 'authorization-name-exact', rule: 'UPLOAD-ACCEPTED', breaks: 'reads the Authorization field only when its name is written Authorization, so the suite\'s own authorization goes unread', policy: { authorizationNameExact: true } },
  { name: 'bearer-scheme-exact', rule: 'HTTP-REQUEST-FORMS', breaks: 'refuses an auth-scheme written otherwise than Bearer', policy: { bearerSchemeExact: true } },
  { name: 'range-shifted', rule: 'FILE-RANGE', breaks: 'answers a byte range 206 with the bytes one past those it names', policy: { byteRangeShift: 1 } },
  { name: 'file-head-refused', rule: 'FILE-HEAD', breaks: 'answers a HEAD of a file URL 405', policy: { fileHeadRefused: true } },
  { name: 'conditional-always-304', rule: 'FILE-CONDITIONAL', breaks: 'answers any If-None-Match or If-Modified-Since 304, whatever validator it names', policy: { conditionalAlways304: true } },

  // Secure attachments
  { name: 'secure-wrong-path', rule: 'SECURE-URL-FORM', breaks: 'returns secure URLs under /files/s/{slug}', policy: { secureUrlPrefix: '/files/s/' } },
  { name: 'secure-first-file-only', rule: 'SECURE-URL-FORM', breaks: 'stores only the first file of a secure upload as secure', policy: { secureFiles: 'first' } },
  { name: 'secure-private-at-once', rule: 'SECURE-PUBLIC-WINDOW', breaks: 'makes a secure attachment private at upload', policy: { publicWindowMs: 0 } },
  { name: 'secure-window-5-seconds-short', rule: 'SECURE-PUBLIC-WINDOW', breaks: 'ends the public window 5 seconds before the hour', policy: { publicWindowMs: HOUR_MS - 5_000 } },
  { name: 'secure-never-private', rule: 'SECURE-PRIVATE-AFTER', breaks: 'keeps secure attachments public forever', policy: { publicWindowMs: Number.POSITIVE_INFINITY } },
  { name: 'secure-window-5-seconds-long', rule: 'SECURE-PRIVATE-AFTER', breaks: 'ends the public window 5 seconds after the hour', policy: { publicWindowMs: HOUR_MS + 5_000 } },
  { name: 'secure-public-again', rule: 'SECURE-PRIVATE-AFTER', breaks: 'makes a secure attachment public again 12 hours after its window', policy: { privateForMs: 12 * HOUR_MS } },
  { name: 'secure-trailing-slash-public', rule: 'SECURE-PRIVATE-AFTER', breaks: 'still serves a private attachment anonymously under its URL with a trailing slash', policy: { publicAfterWindow: (request) => request.url.split('?')[0].endsWith('/') } },
  { name: 'secure-upper-case-path-public', rule: 'SECURE-PRIVATE-AFTER', breaks: 'still serves a private attachment anonymously under its path in upper case (/FILES/D/{slug})', policy: { publicAfterWindow: (request) => request.url.includes('/FILES/D/') } },
  { name: 'secure-range-public', rule: 'SECURE-PRIVATE-AFTER', breaks: 'still serves a private attachment anonymously to a Range request', policy: { publicAfterWindow: (request) => request.headers.range !== undefined } },
  { name: 'secure-cacheable-past-hour', rule: 'SECURE-NOT-CACHED', breaks: 'lets shared caches keep a secure file read in its hour for a day (Cache-Control: public, max-age=86400)', policy: { secureReadCacheControl: 'public, max-age=86400' } },
  { name: 'secure-absolute-form-public', rule: 'SECURE-PRIVATE-AFTER', breaks: 'still serves a private attachment anonymously to a request-target in absolute form (GET http://host/files/d/{slug})', policy: { publicAfterWindow: (request) => /^https?:\/\//i.test(request.originalUrl) } },
  { name: 'signed-url-anonymous', rule: 'SECURE-PRIVATE-AFTER', breaks: 'answers GET /files/d/{slug} without a token with a signed URL', policy: { anonymousSignedUrls: true } },
  { name: 'secure-head-shows-file', rule: 'SECURE-PRIVATE-HEAD', breaks: "answers an anonymous HEAD of a private attachment with the file's Content-Type and Content-Length", policy: { privateHeadShowsFile: true } },
  { name: 'signed-scope-unchecked', rule: 'SECURE-SCOPE-REQUIRED', breaks: 'gives a signed URL to any valid token', policy: { signedUrlChecksAccess: () => false } },
  // A check written where the scheme is matched as the documentation spells it (RFC 9110 §11.1 makes it case-insensitive), behind an authentication that is not.
  { name: 'signed-scope-canonical-scheme-only', rule: 'SECURE-SCOPE-REQUIRED', breaks: "checks the token's scope and location only where the auth-scheme is written Bearer", policy: { signedUrlChecksAccess: (request) => /^Bearer /.test(String(request.headers.authorization ?? '')) } },
  { name: 'signed-grant-reused', rule: 'SECURE-SCOPE-REQUIRED', breaks: 'once a slug was signed for a files.readonly token, gives its signed URL to any valid token', policy: { signedGrantReused: true } },
  { name: 'signed-truncated-bytes', rule: 'SECURE-SIGNED-URL', breaks: 'serves the signed download without its last byte', policy: { signedDownloadRange: (file) => ({ start: 0, end: file.size - 2 }) } },
  { name: 'signed-scope-refused', rule: 'SECURE-SIGNED-URL', breaks: 'refuses a files.readonly token', policy: { issueSignedUrls: false } },
  { name: 'signed-refused-after-a-week', rule: 'SECURE-SIGNED-URL', breaks: 'gives no signed URL for a file older than a week', policy: { signedUrlMaxAgeMs: 7 * DAY_MS } },
  { name: 'signed-unknown-slug-500', rule: 'SECURE-UNKNOWN-SLUG', breaks: 'answers 500 for an unknown slug', policy: { crashOnUnknownSlug: true } },
  { name: 'signed-never-expires', rule: 'SECURE-SIGNED-EXPIRES', breaks: 'signs download URLs that never expire', policy: { signedUrlsExpire: false } },
  { name: 'signed-not-bound', rule: 'SECURE-SIGNED-BOUND', breaks: 'signs the expiry only, so a signature serves any slug', policy: { signedUrlBindsSlug: false } },
  { name: 'signed-unverified', rule: 'SECURE-SIGNED-TAMPER', breaks: 'serves signed URLs without checking the signature', policy: { verifySignature: false } },

  // The dated change
  { name: 'cutover-ignored', rule: 'CUTOVER-ALL-SECURE', breaks: 'never switches uploads to secure', policy: { cutoverAt: Number.POSITIVE_INFINITY } },
  { name: 'cutover-late', rule: 'CUTOVER-ALL-SECURE', breaks: 'switches uploads to secure only from 1 December 2026', policy: { cutoverAt: Date.parse('2026-12-01T00:00:00Z') } },
  { name: 'cutover-flag-honoured', rule: 'CUTOVER-FLAG-IGNORED', breaks: 'still honours isSecureAttachment=false after the cutover', policy: { cutoverOverridesFlag: false } },
  { name: 'cutover-flag-strict', rule: 'CUTOVER-FLAG-ANY-VALUE', breaks: 'refuses an isSecureAttachment other than true or false after the cutover', policy: { flagStrictAfterCutover: true } },
  { name: 'cutover-pacific', rule: 'CUTOVER-INSTANT', breaks: 'switches at midnight Pacific time (08:00Z)', policy: { cutoverAt: Date.parse(`${SECURE_CUTOVER_DATE}T08:00:00Z`) } },

  // Agent execution and sessions
  { name: 'session-id-required', rule: 'SESSION-START', breaks: 'refuses a message without executionId', policy: { requireExecutionId: true } },
  { name: 'session-not-continued', rule: 'SESSION-CONTINUE', breaks: 'starts a new session on every message', policy: { continueSessions: false } },
  { name: 'session-interaction-counted', rule: 'SESSION-INTERACTION-UNIQUE', breaks: 'numbers interactionIds per session, so sessions share them', policy: { interactionIdsPerSession: true } },
  { name: 'session-interaction-reused', rule: 'SESSION-INTERACTION-NEW', breaks: 'reuses the interactionId within a session', policy: { newInteractionOnTurn: () => false } },
  { name: 'session-per-contact', rule: 'SESSION-START', breaks: "continues the agent's earlier session of a contact when a first message names that contactId", policy: { sessionPerContact: true } },
  { name: 'session-fixed-id', rule: 'SESSION-START', breaks: 'gives every new session the same executionId', policy: { fixedExecutionId: 'exec-fixed' } },
  { name: 'session-unknown-accepted', rule: 'SESSION-UNKNOWN', breaks: 'starts a new session for an unknown executionId', policy: { rejectUnknownSessions: false } },
  { name: 'exec-field-missing', rule: 'EXEC-RESPONSE-SCHEMA', breaks: 'leaves generativeOutputs out of the response', policy: { sendGenerativeOutputs: () => false } },
  { name: 'exec-field-wrong-type', rule: 'EXEC-RESPONSE-SCHEMA', breaks: 'sends goalCompletion as a string', policy: { goalCompletion: 'false' } },
  { name: 'exec-text-content-type', rule: 'EXEC-CONTENT-TYPE', breaks: 'answers executions as text/plain', policy: { executionResponseType: 'text' } },
  { name: 'exec-success-false', rule: 'EXEC-SUCCESS', breaks: 'reports success false on a successful execution', policy: { reportedSuccess: false } },
  { name: 'agent-inactive-runs', rule: 'AGENT-INACTIVE', breaks: 'runs agents that are not active', policy: { skipsAgentCheck: (check) => check === 'active' } },
  { name: 'agent-inactive-runs-on-replacement', rule: 'AGENT-INACTIVE', breaks: 'runs agents that are not active on the replacement path', policy: { skipsAgentCheck: (check, on) => check === 'active' && on.path === 'replacement' } },
  { name: 'agent-location-unchecked', rule: 'AGENT-FOREIGN-LOCATION', breaks: 'runs an agent for a location it does not belong to', policy: { skipsAgentCheck: (check) => check === 'agent-location' } },
  { name: 'agent-location-unchecked-on-continuation', rule: 'AGENT-FOREIGN-LOCATION', breaks: "checks the agent's location on a session's first message only", policy: { skipsAgentCheck: (check, on) => check === 'agent-location' && on.continuation } },
  { name: 'agent-message-optional', rule: 'AGENT-MESSAGE-REQUIRED', breaks: 'runs an execution without message', policy: { skipsAgentCheck: (check) => check === 'message' } },
  { name: 'agent-message-optional-on-continuation', rule: 'AGENT-MESSAGE-REQUIRED', breaks: 'runs a continuation without message', policy: { skipsAgentCheck: (check, on) => check === 'message' && on.continuation } },
  { name: 'agent-location-500', rule: 'AGENT-LOCATION-REQUIRED', breaks: 'answers 500 to an execution without locationId', policy: { crashOnMissingLocation: true } },
  { name: 'agent-unknown-runs', rule: 'AGENT-UNKNOWN', breaks: 'runs a default agent for an unknown agentId', policy: { substituteUnknownAgents: true } },
  { name: 'exec-input-variables-refused', rule: 'EXEC-OPTIONAL-FIELDS', breaks: 'refuses the documented field inputVariables as unknown', policy: { refusedFields: new Set(['inputVariables']) } },
  { name: 'body-wrong-type-500', rule: 'BODY-WRONG-TYPE', breaks: 'trims message before validating it, so a number crashes it with a 500', policy: { trimMessageUnchecked: true } },
  { name: 'body-empty-runs', rule: 'BODY-EMPTY', breaks: "runs an empty execution body with a blank message for the token's location", policy: { fillEmptyExecution: true } },
  { name: 'permanent-name-unescaped', rule: 'UPLOAD-URL-PER-FILE', breaks: "writes a file's name into its permanent URL with encodeURI, which leaves '#', '?', '&' and '+' as they are, and serves a permanent URL only under its file's name: a name with '#' or '?' gets a URL that reaches no file", policy: { nameInUrl: encodeURI, permanentNameChecked: true } },
  { name: 'agent-source-refused', rule: 'AGENT-SOURCE', breaks: 'refuses the source query parameter', policy: { sourceAccepted: () => false } },
  { name: 'agent-source-internal-refused', rule: 'AGENT-SOURCE-INTERNAL', breaks: 'refuses source=internal from a public caller, as a server guarding the internal channel might', policy: { sourceAccepted: (source) => source === 'public_api' } },

  // Deprecation
  { name: 'deprecated-removed', rule: 'DEPRECATED-STILL-SERVED', breaks: 'answers 404 on the deprecated path', policy: { executePaths: REPLACEMENT_PATHS } },
  { name: 'replacement-missing', rule: 'REPLACEMENT-EXISTS', breaks: 'answers 404 on the replacement paths', policy: { executePaths: [DEPRECATED_EXECUTE_PATH] } },
  { name: 'replacement-other-shape', rule: 'REPLACEMENT-SAME-SHAPE', breaks: 'takes `input` instead of `message` on the replacement path', policy: { replacementMessageField: 'input' } },
  { name: 'deprecation-headers-absent', rule: 'DEPRECATION-HEADERS', breaks: 'sends no Deprecation or Link header', policy: { deprecationHeaders: false } },

  // Authentication and versioning
  { name: 'auth-optional-upload', rule: 'AUTH-TOKEN-REQUIRED', breaks: 'accepts an upload without a token', policy: { uploadRequiresToken: false } },
  { name: 'auth-continuation-takes-session-token', rule: 'AUTH-TOKEN-REQUIRED', breaks: "continues a session without a token, as the session's own", policy: { skipsAgentCheck: (check, on) => check === 'token' && on.continuation } },
  { name: 'auth-scheme-unchecked', rule: 'AUTH-MALFORMED', breaks: 'accepts a token under any scheme or none', policy: { requireBearerScheme: false } },
  { name: 'auth-unknown-token-execute', rule: 'AUTH-UNKNOWN-TOKEN', breaks: 'accepts an unknown bearer token on execution', policy: { executeAcceptsUnknownBearer: true } },
  { name: 'pit-upload-refused', rule: 'AUTH-PIT-UPLOAD', breaks: 'refuses a private integration token on the upload only', policy: { privateIntegrationTokensUpload: false } },
  { name: 'auth-pit-refused', rule: 'AUTH-PIT', breaks: 'refuses private integration tokens', policy: { acceptPrivateIntegrationTokens: false } },
  { name: 'tenant-upload-unchecked', rule: 'AUTH-TENANT-UPLOAD', breaks: "takes any location's token for an upload", policy: { anyLocationFor: new Set([UPLOAD_SCOPE]) } },
  { name: 'tenant-execute-unchecked', rule: 'AUTH-TENANT-EXECUTE', breaks: "takes any location's token for an execution", policy: { anyLocationFor: new Set([EXECUTE_SCOPE]) } },
  { name: 'location-token-any-location', rule: 'AUTH-TENANT-UPLOAD', breaks: 'lets a token issued by POST /oauth/location-token upload into every location', policy: { locationTokensReachAnyLocationFor: new Set([UPLOAD_SCOPE]) } },
  { name: 'tenant-files-unchecked', rule: 'AUTH-TENANT-FILES', breaks: "signs download URLs for any location's files.readonly token", policy: { anyLocationFor: new Set([FILES_READONLY_SCOPE]) } },
  { name: 'version-optional', rule: 'VERSION-MISSING', breaks: 'accepts requests without a Version header', policy: { requireVersion: false } },
  { name: 'version-any', rule: 'VERSION-UNKNOWN', breaks: 'accepts any Version value', policy: { acceptAnyVersion: true } },

  // Token endpoints
  { name: 'refresh-drops-scopes', rule: 'OAUTH-REFRESH', breaks: 'issues a refreshed access token without the scopes of its grant', policy: { refreshedScopes: () => [] } },
  { name: 'refresh-token-unchecked', rule: 'OAUTH-REFRESH-UNKNOWN', breaks: "renews the client's grant for any refresh token", policy: { refreshChecksToken: false } },
  { name: 'refresh-client-secret-unchecked', rule: 'OAUTH-REFRESH-CLIENT', breaks: 'checks the client_secret on the code grant only', policy: { refreshChecksClientSecret: false } },
  { name: 'refresh-not-rotated', rule: 'OAUTH-REFRESH-ROTATION', breaks: 'keeps the refresh token valid and hands it back', policy: { rotateRefreshTokens: false } },
  { name: 'location-token-superseded', rule: 'OAUTH-TOKEN-LIFETIME', breaks: 'revokes the location tokens issued before a new one for the location, well within their expires_in', policy: { locationTokenRevokesEarlier: true } },
  { name: 'location-token-wrong-location', rule: 'OAUTH-LOCATION-TOKEN', breaks: "issues the location token for another location of the Agency", policy: { locationTokenFor: (requested, all) => all.find((id) => id !== requested) ?? requested } },

  // Rules broken on one value of a dimension of the request's domain only (src/contract/domains.ts)
  { name: 'upload-count-unchecked-when-secure', rule: 'UPLOAD-FILES-MAX', breaks: 'accepts a sixth file when isSecureAttachment=true', policy: { skipsUploadLimit: (limit, upload) => limit === 'count' && upload.isSecureAttachment === 'true' } },
  { name: 'upload-size-unchecked-contact-only', rule: 'UPLOAD-SIZE-MAX', breaks: 'does not check the size of the files of an upload that names only a contact, and cuts them to 5 MiB', policy: { skipsUploadLimit: (limit, upload) => limit === 'size' && upload.contact && !upload.conversation } },
  { name: 'upload-size-unchecked-non-ascii-name', rule: 'UPLOAD-SIZE-MAX', breaks: 'does not check the size of a file whose name is not ASCII (RFC 7578 lets a name be UTF-8), and cuts it to 5 MiB', policy: { sizeCheckedName: (name) => /^[\x20-\x7e]*$/.test(name) } },
  { name: 'cutover-ends-new-year', rule: 'CUTOVER-ALL-SECURE', breaks: 'stops storing every upload as secure at the turn of the year 2027', policy: { cutoverEndsAt: Date.parse('2027-01-01T00:00:00Z') } },
  { name: 'secure-public-once-signed', rule: 'SECURE-PRIVATE-AFTER', breaks: 'serves a private attachment anonymously once a signed URL was issued for it', policy: { publicAfterWindow: (_request, before) => before.signed } },
  { name: 'permanent-until-2038', rule: 'PERMANENT-URL-LASTS', breaks: 'stops serving non-secure files when a signed 32-bit count of seconds runs out (2038-01-19T03:14:08Z)', policy: { permanentUntil: () => 2 ** 31 * 1000 } },
  { name: 'permanent-lost-at-cutover', rule: 'PERMANENT-URL-LASTS', breaks: 'stops serving the non-secure files uploaded before 30 November 2026 at the change (re-stored as secure)', policy: { permanentUntil: (uploadedAt) => (uploadedAt < CUTOVER ? CUTOVER : Number.POSITIVE_INFINITY) } },
  { name: 'upload-size-unchecked-chunked', rule: 'UPLOAD-SIZE-MAX', breaks: 'does not check the size of the files of a body sent in chunks, without a Content-Length, and cuts them to 5 MiB', policy: { skipsUploadLimit: (limit, upload) => limit === 'size' && upload.chunked } },
  { name: 'upload-ext-unchecked-both-targets', rule: 'UPLOAD-EXT-OTHER', breaks: 'does not check the type of the files of an upload naming both a conversation and a contact', policy: { skipsUploadLimit: (limit, upload) => limit === 'type' && upload.conversation && upload.contact } },
  { name: 'exec-field-missing-turn-5', rule: 'EXEC-RESPONSE-SCHEMA', breaks: 'leaves generativeOutputs out from the fifth exchange of a session', policy: { sendGenerativeOutputs: (turn) => turn < 5 } },
  { name: 'session-interaction-reused-turn-4', rule: 'SESSION-INTERACTION-NEW', breaks: 'gives the fourth exchange of a session the interactionId of the third', policy: { newInteractionOnTurn: (turn) => turn !== 4 } },

  // Rules broken only in a sequence, an overlap or a wire form (the model's runs of src/model/, specs/model.spec.ts)
  { name: 'signed-url-first-file-of-upload', rule: 'SECURE-SIGNED-URL', breaks: 'signs, for a later file of an upload, the URL of its first file', policy: { signedFileOf: (_asked, first) => first } },
  { name: 'upload-name-overwrites', rule: 'PERMANENT-URL-ANONYMOUS', breaks: "stores a non-secure file of a name the location already holds over that file, so the earlier upload's URL serves the new bytes", policy: { overwrites: sameNameInLocation } },
  { name: 'cutover-email-only', rule: 'CUTOVER-ALL-SECURE', breaks: 'stores the uploads to conversations of channels other than email non-secure from 30 November 2026, whatever the flag', policy: { cutoverChannels: 'email' } },
  { name: 'session-continues-latest', rule: 'SESSION-CONTINUE', breaks: 'continues the session with the latest turn, whichever executionId a continuation sends', policy: { continuesLatestSession: true } },
  { name: 'secure-flag-dropped-after-file', rule: 'SECURE-URL-FORM', breaks: 'drops isSecureAttachment when it comes after the file parts', policy: { droppedAfterFiles: new Set(['isSecureAttachment']) } },
  { name: 'upload-answers-crossed', rule: 'UPLOAD-URL-PER-FILE', breaks: 'answers the second of two uploads in flight together with the answer of the first', policy: { answerOfUpload: (own, answeredBeside) => answeredBeside[0] ?? own } },
  { name: 'secure-flag-dropped-chunked', rule: 'SECURE-URL-FORM', breaks: 'drops isSecureAttachment from a body sent in chunks, without a Content-Length', policy: { droppedWhenChunked: new Set(['isSecureAttachment']) } },
  { name: 'refreshed-token-any-location', rule: 'AUTH-TENANT-EXECUTE', breaks: 'lets an access token issued for a refresh token reach every location', policy: { refreshedTokensReachAnyLocation: true } },
  { name: 'session-forks-on-optional-field', rule: 'SESSION-CONTINUE', breaks: 'answers a continuation that carries contactId or inputVariables in a new session', policy: { forksSession: ({ fields }) => fields.includes('contactId') || fields.includes('inputVariables') } },
  { name: 'session-bound-to-other-token-forks', rule: 'SESSION-CONTINUE', breaks: 'answers a continuation by another token of the location than the one that started the session in a new session', policy: { forksSession: ({ session, token }) => token.value !== session.token.value } },
  { name: 'session-bound-to-token', rule: 'SESSION-OTHER-TOKEN', breaks: 'refuses a continuation by another token of the location than the one that started the session (403)', policy: { sessionBoundToToken: true } },
  { name: 'session-ended-by-refused-turn', rule: 'SESSION-CONTINUE', breaks: 'ends a session once a continuation of it is refused: the next continuation is answered in a new session', policy: { forksSession: ({ refusedBefore }) => refusedBefore > 0 } },
  { name: 'session-restarts-after-six-turns', rule: 'SESSION-CONTINUE', breaks: 'answers the seventh exchange of a session in a new session', policy: { forksSession: ({ session }) => session.turns >= 6 } },
  { name: 'secure-query-public-once-signed', rule: 'SECURE-PRIVATE-AFTER', breaks: 'serves a private attachment anonymously under its URL with a query string once a signed URL was issued for it', policy: { publicAfterWindow: (request, before) => before.signed && request.url.includes('?') } },
  { name: 'session-concurrent-fork', rule: 'SESSION-CONTINUE', breaks: 'answers the second of two continuations of one session in flight together in a new session', policy: { agentReplyMs: 50, forksSession: ({ beside }) => beside } },
  // Broken only where an upload's data relates to an earlier upload's (src/contract/relations.ts)
  {
    name: 'upload-name-folded-overwrites',
    rule: 'PERMANENT-URL-ANONYMOUS',
    breaks: "keeps two files of one name apart but stores a non-secure file over the location's file whose name differs only in letter case, Unicode form, surrounding spaces or percent-encoding (its storage folds names)",
    policy: { overwrites: (incoming, earlier) => earlier.locationId === incoming.locationId && earlier.fileName !== incoming.fileName && foldedName(earlier.fileName) === foldedName(incoming.fileName) },
  },
  { name: 'upload-dedupe-by-bytes', rule: 'SECURE-URL-FORM', breaks: "answers a file of bytes the location already holds with that file's entry, its URL and its kind, so a secure upload of bytes first uploaded without the flag gets a permanent URL", policy: { dedupesByBytes: true } },
  {
    name: 'upload-store-ignores-location',
    rule: 'PERMANENT-URL-ANONYMOUS',
    breaks: "stores a non-secure file over another location's file of the same name (its storage is keyed by name, without the location), so that file's URL serves the new bytes",
    policy: { overwrites: (incoming, earlier) => earlier.locationId !== incoming.locationId && earlier.fileName === incoming.fileName },
  },
  { name: 'upload-refused-still-stored', rule: 'PERMANENT-URL-ANONYMOUS', breaks: "stores the files a refused upload sent before its refusal (five of six, those before a .exe) over the location's files of their names", policy: { storesRefusedFiles: true } },
] as const satisfies readonly FaultEntry[];

export type FaultName = (typeof FAULTS)[number]['name'];

export interface Fault extends Omit<FaultEntry, 'policy'> {
  readonly level: Level;
}

/** The catalogue with each fault's level taken from the rule it breaks. */
export function faultCatalogue(): Fault[] {
  return FAULTS.map((fault) => ({ ...fault, level: ruleById(fault.rule).level }));
}

export function parseFault(name: string | undefined): FaultName | undefined {
  if (name === undefined || name === '') return undefined;
  const found = FAULTS.find((fault) => fault.name === name);
  if (!found) {
    throw new Error(`FAULT=${name} is not in reference/faults.ts; known faults: ${FAULTS.map((f) => f.name).join(', ')}`);
  }
  return found.name;
}

/** A file name as a storage that folds names keys it: percent-decoded, trimmed, in NFC, in lower case. */
function foldedName(name: string): string {
  let decoded = name;
  try {
    decoded = decodeURIComponent(name);
  } catch {
    // Not percent-encoded after all: kept as it is.
  }
  return decoded.trim().normalize('NFC').toLowerCase();
}

/** Sends a file's bytes with the first one inverted. */
function flipFirstByte(): Transform {
  let first = true;
  return new Transform({
    transform(chunk: Buffer, _encoding, done) {
      if (first && chunk.length > 0) {
        chunk = Buffer.from(chunk);
        chunk[0] ^= 0xff;
        first = false;
      }
      done(null, chunk);
    },
  });
}
