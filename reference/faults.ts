// The fault catalogue: FAULT=<name> makes the reference server break exactly one rule of
// src/rules.ts and leaves everything else correct. The suite proves itself by failing on it.
import { ruleById, type Level, type RuleId } from '../src/rules.ts';

interface FaultEntry {
  readonly name: string;
  readonly rule: RuleId;
  /** What the server does wrong, in a few words. */
  readonly breaks: string;
}

export const FAULTS = [
  // Upload limits and fields
  { name: 'upload-six-files', rule: 'UPLOAD-FILES-MAX', breaks: 'accepts a sixth file' },
  { name: 'upload-four-files', rule: 'UPLOAD-FILES-MAX', breaks: 'refuses a fifth file' },
  { name: 'upload-size-unchecked', rule: 'UPLOAD-SIZE-MAX', breaks: 'accepts files of up to 8 MiB' },
  { name: 'upload-size-four-mib', rule: 'UPLOAD-SIZE-MAX', breaks: 'refuses files over 4 MiB' },
  { name: 'upload-size-decimal', rule: 'UPLOAD-SIZE-UNIT', breaks: 'reads 5 MB as 5,000,000 bytes' },
  { name: 'upload-total-cap', rule: 'UPLOAD-SIZE-TOTAL', breaks: 'refuses uploads totalling more than 20 MiB' },
  { name: 'upload-heic-refused', rule: 'UPLOAD-EXT-ALLOWED', breaks: 'refuses the allowed extension .heic' },
  { name: 'upload-ext-case-sensitive', rule: 'UPLOAD-EXT-CASE', breaks: 'refuses allowed extensions written in upper case' },
  { name: 'upload-any-extension', rule: 'UPLOAD-EXT-OTHER', breaks: 'accepts any extension' },
  { name: 'upload-target-optional', rule: 'UPLOAD-TARGET-REQUIRED', breaks: 'accepts an upload with neither conversationId nor contactId' },
  { name: 'upload-conversation-required', rule: 'UPLOAD-CONTACT-ONLY', breaks: 'refuses an upload that names only a contact' },
  { name: 'upload-location-optional', rule: 'UPLOAD-LOCATION-REQUIRED', breaks: 'accepts an upload without locationId' },
  { name: 'upload-attachment-urls-optional', rule: 'UPLOAD-ATTACHMENT-URLS', breaks: 'accepts an upload without attachmentUrls' },
  { name: 'upload-no-file-accepted', rule: 'UPLOAD-FILES-MIN', breaks: 'accepts an upload with no file' },
  { name: 'upload-text-response', rule: 'UPLOAD-ACCEPTED', breaks: 'answers a valid upload as text/plain' },
  { name: 'upload-renamed-field', rule: 'UPLOAD-RESPONSE-SCHEMA', breaks: 'names the response field `files` instead of uploadedFiles' },
  { name: 'upload-missing-url', rule: 'UPLOAD-URL-PER-FILE', breaks: 'leaves the last file out of the response' },

  // Permanent URLs
  { name: 'permanent-corrupt-bytes', rule: 'PERMANENT-URL-ANONYMOUS', breaks: 'serves a non-secure file with its first byte changed' },
  { name: 'permanent-requires-version', rule: 'PERMANENT-URL-ANONYMOUS', breaks: 'serves a non-secure file only with a Version header' },
  { name: 'permanent-expires', rule: 'PERMANENT-URL-LASTS', breaks: 'stops serving a non-secure file after one hour' },
  { name: 'cutover-early', rule: 'PERMANENT-URL-LASTS', breaks: 'stores every upload as secure from 28 November 2026' },
  { name: 'file-octet-stream', rule: 'FILE-CONTENT-TYPE', breaks: 'serves every file as application/octet-stream' },
  { name: 'svg-inline', rule: 'SVG-NOT-RENDERED', breaks: 'serves SVG inline as image/svg+xml, with no Content-Security-Policy' },
  { name: 'no-nosniff', rule: 'FILE-NOSNIFF', breaks: 'sends no X-Content-Type-Options header' },

  // Secure attachments
  { name: 'secure-wrong-path', rule: 'SECURE-URL-FORM', breaks: 'returns secure URLs under /files/s/{slug}' },
  { name: 'secure-private-at-once', rule: 'SECURE-PUBLIC-WINDOW', breaks: 'makes a secure attachment private at upload' },
  { name: 'secure-window-59-minutes', rule: 'SECURE-PUBLIC-WINDOW', breaks: 'ends the public window after 59 minutes' },
  { name: 'secure-never-private', rule: 'SECURE-PRIVATE-AFTER', breaks: 'keeps secure attachments public forever' },
  { name: 'secure-window-61-minutes', rule: 'SECURE-PRIVATE-AFTER', breaks: 'ends the public window after 61 minutes' },
  { name: 'signed-scope-unchecked', rule: 'SECURE-SCOPE-REQUIRED', breaks: 'gives a signed URL to any valid token' },
  { name: 'signed-truncated-bytes', rule: 'SECURE-SIGNED-URL', breaks: 'serves the signed download without its last byte' },
  { name: 'signed-scope-refused', rule: 'SECURE-SIGNED-URL', breaks: 'refuses a files.readonly token' },
  { name: 'signed-unknown-slug-500', rule: 'SECURE-UNKNOWN-SLUG', breaks: 'answers 500 for an unknown slug' },
  { name: 'signed-never-expires', rule: 'SECURE-SIGNED-EXPIRES', breaks: 'signs download URLs that never expire' },
  { name: 'signed-not-bound', rule: 'SECURE-SIGNED-BOUND', breaks: 'signs the expiry only, so a signature serves any slug' },
  { name: 'signed-unverified', rule: 'SECURE-SIGNED-TAMPER', breaks: 'serves signed URLs without checking the signature' },

  // The dated change
  { name: 'cutover-ignored', rule: 'CUTOVER-ALL-SECURE', breaks: 'never switches uploads to secure' },
  { name: 'cutover-late', rule: 'CUTOVER-ALL-SECURE', breaks: 'switches uploads to secure only from 1 December 2026' },
  { name: 'cutover-flag-honoured', rule: 'CUTOVER-FLAG-IGNORED', breaks: 'still honours isSecureAttachment=false after the cutover' },
  { name: 'cutover-pacific', rule: 'CUTOVER-INSTANT', breaks: 'switches at midnight Pacific time (08:00Z)' },

  // Agent execution and sessions
  { name: 'session-id-required', rule: 'SESSION-START', breaks: 'refuses a message without executionId' },
  { name: 'session-not-continued', rule: 'SESSION-CONTINUE', breaks: 'starts a new session on every message' },
  { name: 'session-interaction-reused', rule: 'SESSION-INTERACTION-NEW', breaks: 'reuses the interactionId within a session' },
  { name: 'session-fixed-id', rule: 'SESSION-DISTINCT', breaks: 'gives every new session the same executionId' },
  { name: 'session-unknown-accepted', rule: 'SESSION-UNKNOWN', breaks: 'starts a new session for an unknown executionId' },
  { name: 'exec-field-missing', rule: 'EXEC-RESPONSE-SCHEMA', breaks: 'leaves generativeOutputs out of the response' },
  { name: 'exec-field-wrong-type', rule: 'EXEC-RESPONSE-SCHEMA', breaks: 'sends goalCompletion as a string' },
  { name: 'exec-text-content-type', rule: 'EXEC-CONTENT-TYPE', breaks: 'answers executions as text/plain' },
  { name: 'exec-success-false', rule: 'EXEC-SUCCESS', breaks: 'reports success false on a successful execution' },
  { name: 'agent-inactive-runs', rule: 'AGENT-INACTIVE', breaks: 'runs agents that are not active' },
  { name: 'agent-location-unchecked', rule: 'AGENT-FOREIGN-LOCATION', breaks: 'runs an agent for a location it does not belong to' },
  { name: 'agent-message-optional', rule: 'AGENT-MESSAGE-REQUIRED', breaks: 'runs an execution without message' },
  { name: 'agent-location-500', rule: 'AGENT-LOCATION-REQUIRED', breaks: 'answers 500 to an execution without locationId' },
  { name: 'agent-unknown-runs', rule: 'AGENT-UNKNOWN', breaks: 'runs a default agent for an unknown agentId' },
  { name: 'agent-source-refused', rule: 'AGENT-SOURCE', breaks: 'refuses the source query parameter' },

  // Deprecation
  { name: 'deprecated-removed', rule: 'DEPRECATED-STILL-SERVED', breaks: 'answers 404 on the deprecated path' },
  { name: 'replacement-missing', rule: 'REPLACEMENT-EXISTS', breaks: 'answers 404 on the replacement path' },
  { name: 'replacement-other-shape', rule: 'REPLACEMENT-SAME-SHAPE', breaks: 'takes `input` instead of `message` on the replacement path' },
  { name: 'deprecation-headers-absent', rule: 'DEPRECATION-HEADERS', breaks: 'sends no Deprecation or Link header' },

  // Authentication and versioning
  { name: 'auth-optional-upload', rule: 'AUTH-TOKEN-REQUIRED', breaks: 'accepts an upload without a token' },
  { name: 'auth-scheme-unchecked', rule: 'AUTH-MALFORMED', breaks: 'accepts a token under any scheme or none' },
  { name: 'auth-unknown-token-execute', rule: 'AUTH-UNKNOWN-TOKEN', breaks: 'accepts an unknown bearer token on execution' },
  { name: 'auth-pit-refused', rule: 'AUTH-PIT', breaks: 'refuses private integration tokens' },
  { name: 'version-optional', rule: 'VERSION-MISSING', breaks: 'accepts requests without a Version header' },
  { name: 'version-any', rule: 'VERSION-UNKNOWN', breaks: 'accepts any Version value' },
] as const satisfies readonly FaultEntry[];

export type FaultName = (typeof FAULTS)[number]['name'];

export interface Fault extends FaultEntry {
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
