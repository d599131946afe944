// The fault catalogue: FAULT=<name> makes the reference server break exactly one rule of
// src/rules.ts and leaves everything else correct. The suite proves itself by failing on it.
// Each fault is a change to the server's policy (policy.ts), so the routes hold no trace of it.
import { Transform } from 'node:stream';
import {
  ALLOWED_EXTENSION_SET,
  DEPRECATED_EXECUTE_PATH,
  MAX_FILE_BYTES_DECIMAL,
  REPLACEMENT_EXECUTE_PATH,
  SECURE_CUTOVER_DATE,
} from '../src/contract.ts';
import { ruleById, type Level, type RuleId } from '../src/rules.ts';
import type { Policy } from './policy.ts';

interface FaultEntry {
  readonly name: string;
  readonly rule: RuleId;
  /** What the server does wrong, in a few words. */
  readonly breaks: string;
  /** How it does so: the fields of DEFAULT_POLICY it changes. */
  readonly policy: Partial<Policy>;
}

const MIB = 1024 * 1024;
const MINUTE_MS = 60_000;

export const FAULTS = [
  // Upload limits and fields
  { name: 'upload-six-files', rule: 'UPLOAD-FILES-MAX', breaks: 'accepts a sixth file', policy: { maxFiles: 6 } },
  { name: 'upload-four-files', rule: 'UPLOAD-FILES-MAX', breaks: 'refuses a fifth file', policy: { maxFiles: 4 } },
  { name: 'upload-size-unchecked', rule: 'UPLOAD-SIZE-MAX', breaks: 'accepts files of up to 8 MiB', policy: { maxFileBytes: 8 * MIB } },
  { name: 'upload-size-four-mib', rule: 'UPLOAD-SIZE-MAX', breaks: 'refuses files over 4 MiB', policy: { maxFileBytes: 4 * MIB } },
  { name: 'upload-size-decimal', rule: 'UPLOAD-SIZE-UNIT', breaks: 'reads 5 MB as 5,000,000 bytes', policy: { maxFileBytes: MAX_FILE_BYTES_DECIMAL } },
  { name: 'upload-total-cap', rule: 'UPLOAD-SIZE-TOTAL', breaks: 'refuses uploads totalling more than 20 MiB', policy: { maxUploadBytes: 20 * MIB } },
  { name: 'upload-heic-refused', rule: 'UPLOAD-EXT-ALLOWED', breaks: 'refuses the allowed extension .heic', policy: { allowedExtensions: new Set([...ALLOWED_EXTENSION_SET].filter((extension) => extension !== 'heic')) } },
  { name: 'upload-ext-case-sensitive', rule: 'UPLOAD-EXT-CASE', breaks: 'refuses allowed extensions written in upper case', policy: { extensionsIgnoreCase: false } },
  { name: 'upload-any-extension', rule: 'UPLOAD-EXT-OTHER', breaks: 'accepts any extension', policy: { allowedExtensions: 'any' } },
  { name: 'upload-target-optional', rule: 'UPLOAD-TARGET-REQUIRED', breaks: 'accepts an upload with neither conversationId nor contactId', policy: { requireTarget: false } },
  { name: 'upload-conversation-required', rule: 'UPLOAD-CONTACT-ONLY', breaks: 'refuses an upload that names only a contact', policy: { acceptContactOnly: false } },
  { name: 'upload-location-optional', rule: 'UPLOAD-LOCATION-REQUIRED', breaks: 'accepts an upload without locationId', policy: { requireLocation: false } },
  { name: 'upload-attachment-urls-optional', rule: 'UPLOAD-ATTACHMENT-URLS', breaks: 'accepts an upload without attachmentUrls', policy: { requireAttachmentUrls: false } },
  { name: 'upload-no-file-accepted', rule: 'UPLOAD-FILES-MIN', breaks: 'accepts an upload with no file', policy: { requireFile: false } },
  { name: 'upload-text-response', rule: 'UPLOAD-ACCEPTED', breaks: 'answers a valid upload as text/plain', policy: { uploadResponseType: 'text' } },
  { name: 'upload-renamed-field', rule: 'UPLOAD-RESPONSE-SCHEMA', breaks: 'names the response field `files` instead of uploadedFiles', policy: { uploadResponseKey: 'files' } },
  { name: 'upload-missing-url', rule: 'UPLOAD-URL-PER-FILE', breaks: 'leaves the last file out of the response', policy: { listEveryFile: false } },

  // Permanent URLs
  { name: 'permanent-corrupt-bytes', rule: 'PERMANENT-URL-ANONYMOUS', breaks: 'serves a non-secure file with its first byte changed', policy: { permanentBody: (stored) => stored.pipe(flipFirstByte()) } },
  { name: 'permanent-requires-version', rule: 'PERMANENT-URL-ANONYMOUS', breaks: 'serves a non-secure file only with a Version header', policy: { permanentUrlsNeedVersion: true } },
  { name: 'permanent-expires', rule: 'PERMANENT-URL-LASTS', breaks: 'stops serving a non-secure file after one hour', policy: { permanentUrlLifetimeMs: 60 * MINUTE_MS } },
  { name: 'cutover-early', rule: 'PERMANENT-URL-LASTS', breaks: 'stores every upload as secure from 28 November 2026', policy: { cutoverAt: Date.parse('2026-11-28T00:00:00Z') } },
  { name: 'file-octet-stream', rule: 'FILE-CONTENT-TYPE', breaks: 'serves every file as application/octet-stream', policy: { servedContentType: () => 'application/octet-stream' } },
  { name: 'svg-inline', rule: 'SVG-NOT-RENDERED', breaks: 'serves SVG inline as image/svg+xml, with no Content-Security-Policy', policy: { inlineExtensions: new Set(['svg']) } },
  { name: 'no-nosniff', rule: 'FILE-NOSNIFF', breaks: 'sends no X-Content-Type-Options header', policy: { nosniff: false } },

  // Secure attachments
  { name: 'secure-wrong-path', rule: 'SECURE-URL-FORM', breaks: 'returns secure URLs under /files/s/{slug}', policy: { secureUrlPrefix: '/files/s/' } },
  { name: 'secure-private-at-once', rule: 'SECURE-PUBLIC-WINDOW', breaks: 'makes a secure attachment private at upload', policy: { publicWindowMs: 0 } },
  { name: 'secure-window-59-minutes', rule: 'SECURE-PUBLIC-WINDOW', breaks: 'ends the public window after 59 minutes', policy: { publicWindowMs: 59 * MINUTE_MS } },
  { name: 'secure-never-private', rule: 'SECURE-PRIVATE-AFTER', breaks: 'keeps secure attachments public forever', policy: { publicWindowMs: Number.POSITIVE_INFINITY } },
  { name: 'secure-window-61-minutes', rule: 'SECURE-PRIVATE-AFTER', breaks: 'ends the public window after 61 minutes', policy: { publicWindowMs: 61 * MINUTE_MS } },
  { name: 'signed-scope-unchecked', rule: 'SECURE-SCOPE-REQUIRED', breaks: 'gives a signed URL to any valid token', policy: { signedUrlChecksAccess: false } },
  { name: 'signed-truncated-bytes', rule: 'SECURE-SIGNED-URL', breaks: 'serves the signed download without its last byte', policy: { signedDownloadRange: (file) => ({ start: 0, end: file.size - 2 }) } },
  { name: 'signed-scope-refused', rule: 'SECURE-SIGNED-URL', breaks: 'refuses a files.readonly token', policy: { issueSignedUrls: false } },
  { name: 'signed-unknown-slug-500', rule: 'SECURE-UNKNOWN-SLUG', breaks: 'answers 500 for an unknown slug', policy: { crashOnUnknownSlug: true } },
  { name: 'signed-never-expires', rule: 'SECURE-SIGNED-EXPIRES', breaks: 'signs download URLs that never expire', policy: { signedUrlsExpire: false } },
  { name: 'signed-not-bound', rule: 'SECURE-SIGNED-BOUND', breaks: 'signs the expiry only, so a signature serves any slug', policy: { signedUrlBindsSlug: false } },
  { name: 'signed-unverified', rule: 'SECURE-SIGNED-TAMPER', breaks: 'serves signed URLs without checking the signature', policy: { verifySignature: false } },

  // The dated change
  { name: 'cutover-ignored', rule: 'CUTOVER-ALL-SECURE', breaks: 'never switches uploads to secure', policy: { cutoverAt: Number.POSITIVE_INFINITY } },
  { name: 'cutover-late', rule: 'CUTOVER-ALL-SECURE', breaks: 'switches uploads to secure only from 1 December 2026', policy: { cutoverAt: Date.parse('2026-12-01T00:00:00Z') } },
  { name: 'cutover-flag-honoured', rule: 'CUTOVER-FLAG-IGNORED', breaks: 'still honours isSecureAttachment=false after the cutover', policy: { cutoverOverridesFlag: false } },
  { name: 'cutover-pacific', rule: 'CUTOVER-INSTANT', breaks: 'switches at midnight Pacific time (08:00Z)', policy: { cutoverAt: Date.parse(`${SECURE_CUTOVER_DATE}T08:00:00Z`) } },

  // Agent execution and sessions
  { name: 'session-id-required', rule: 'SESSION-START', breaks: 'refuses a message without executionId', policy: { requireExecutionId: true } },
  { name: 'session-not-continued', rule: 'SESSION-CONTINUE', breaks: 'starts a new session on every message', policy: { continueSessions: false } },
  { name: 'session-interaction-reused', rule: 'SESSION-INTERACTION-NEW', breaks: 'reuses the interactionId within a session', policy: { newInteractionPerTurn: false } },
  { name: 'session-fixed-id', rule: 'SESSION-DISTINCT', breaks: 'gives every new session the same executionId', policy: { fixedExecutionId: 'exec-fixed' } },
  { name: 'session-unknown-accepted', rule: 'SESSION-UNKNOWN', breaks: 'starts a new session for an unknown executionId', policy: { rejectUnknownSessions: false } },
  { name: 'exec-field-missing', rule: 'EXEC-RESPONSE-SCHEMA', breaks: 'leaves generativeOutputs out of the response', policy: { sendGenerativeOutputs: false } },
  { name: 'exec-field-wrong-type', rule: 'EXEC-RESPONSE-SCHEMA', breaks: 'sends goalCompletion as a string', policy: { goalCompletion: 'false' } },
  { name: 'exec-text-content-type', rule: 'EXEC-CONTENT-TYPE', breaks: 'answers executions as text/plain', policy: { executionResponseType: 'text' } },
  { name: 'exec-success-false', rule: 'EXEC-SUCCESS', breaks: 'reports success false on a successful execution', policy: { reportedSuccess: false } },
  { name: 'agent-inactive-runs', rule: 'AGENT-INACTIVE', breaks: 'runs agents that are not active', policy: { runInactiveAgents: true } },
  { name: 'agent-location-unchecked', rule: 'AGENT-FOREIGN-LOCATION', breaks: 'runs an agent for a location it does not belong to', policy: { checkAgentLocation: false } },
  { name: 'agent-message-optional', rule: 'AGENT-MESSAGE-REQUIRED', breaks: 'runs an execution without message', policy: { requireMessage: false } },
  { name: 'agent-location-500', rule: 'AGENT-LOCATION-REQUIRED', breaks: 'answers 500 to an execution without locationId', policy: { crashOnMissingLocation: true } },
  { name: 'agent-unknown-runs', rule: 'AGENT-UNKNOWN', breaks: 'runs a default agent for an unknown agentId', policy: { substituteUnknownAgents: true } },
  { name: 'agent-source-refused', rule: 'AGENT-SOURCE', breaks: 'refuses the source query parameter', policy: { acceptSourceParam: false } },

  // Deprecation
  { name: 'deprecated-removed', rule: 'DEPRECATED-STILL-SERVED', breaks: 'answers 404 on the deprecated path', policy: { executePaths: [REPLACEMENT_EXECUTE_PATH] } },
  { name: 'replacement-missing', rule: 'REPLACEMENT-EXISTS', breaks: 'answers 404 on the replacement path', policy: { executePaths: [DEPRECATED_EXECUTE_PATH] } },
  { name: 'replacement-other-shape', rule: 'REPLACEMENT-SAME-SHAPE', breaks: 'takes `input` instead of `message` on the replacement path', policy: { replacementMessageField: 'input' } },
  { name: 'deprecation-headers-absent', rule: 'DEPRECATION-HEADERS', breaks: 'sends no Deprecation or Link header', policy: { deprecationHeaders: false } },

  // Authentication and versioning
  { name: 'auth-optional-upload', rule: 'AUTH-TOKEN-REQUIRED', breaks: 'accepts an upload without a token', policy: { uploadRequiresToken: false } },
  { name: 'auth-scheme-unchecked', rule: 'AUTH-MALFORMED', breaks: 'accepts a token under any scheme or none', policy: { requireBearerScheme: false } },
  { name: 'auth-unknown-token-execute', rule: 'AUTH-UNKNOWN-TOKEN', breaks: 'accepts an unknown bearer token on execution', policy: { executeAcceptsUnknownBearer: true } },
  { name: 'auth-pit-refused', rule: 'AUTH-PIT', breaks: 'refuses private integration tokens', policy: { acceptPrivateIntegrationTokens: false } },
  { name: 'version-optional', rule: 'VERSION-MISSING', breaks: 'accepts requests without a Version header', policy: { requireVersion: false } },
  { name: 'version-any', rule: 'VERSION-UNKNOWN', breaks: 'accepts any Version value', policy: { acceptAnyVersion: true } },
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
