// The rule catalogue: every testable sentence of the contract, with a stable id and a level.
// MUST: the contract states it. SHOULD: a reasonable reading of what it states (a warning).
// INFO: an observation of what the contract leaves open (never a failure).

export type Level = 'MUST' | 'SHOULD' | 'INFO';

export type Area =
  | 'Upload'
  | 'Permanent URLs'
  | 'Secure attachments'
  | 'Dated change'
  | 'Agent execution'
  | 'Request bodies'
  | 'Deprecation'
  | 'Authentication'
  | 'Token endpoints'
  | 'Versioning'
  | 'HTTP semantics';

/** The operation each area is about: the Allure feature of its rules. */
export const OPERATION_OF_AREA: Record<Area, string> = {
  Upload: 'POST /conversations/messages/upload',
  'Permanent URLs': 'GET of a non-secure upload URL',
  'Secure attachments': 'GET /files/d/{slug}',
  'Dated change': 'POST /conversations/messages/upload',
  'Agent execution': 'POST /agent-studio/public-api/agents/{agentId}/execute',
  'Request bodies': 'POST /conversations/messages/upload and both execute paths',
  Deprecation: 'POST /agent/{agentId}/execute',
  Authentication: 'every authenticated operation',
  'Token endpoints': 'POST /oauth/token, POST /oauth/location-token',
  Versioning: 'every operation',
  'HTTP semantics': 'every operation, and every URL the server hands out',
};

/** Allure severity of a level: a MUST failure is critical, a SHOULD one minor, an INFO one trivial. */
export const SEVERITY_OF_LEVEL: Record<Level, string> = { MUST: 'critical', SHOULD: 'minor', INFO: 'trivial' };

export interface Rule {
  readonly id: string;
  readonly level: Level;
  readonly area: Area;
  /** Contract section(s), e.g. "§4.1 rule 4". */
  readonly section: string;
  /** A plain statement of the fact, in the present tense. */
  readonly title: string;
  /** The contract's own words, verbatim (normal form of src/contract/coverage.ts); `…` joins verbatim parts, each standing in a sentence or table row of a section the rule cites. */
  readonly quote: string;
}

export const RULES = [
  // Upload: POST /conversations/messages/upload
  { id: 'UPLOAD-ACCEPTED', level: 'MUST', area: 'Upload', section: '§4.1', title: 'a valid upload answers 200 with JSON', quote: 'Response 200: application/json with the object of 2.2 (it carries the URLs).' },
  { id: 'UPLOAD-RESPONSE-SCHEMA', level: 'MUST', area: 'Upload', section: '§2.2', title: 'the upload response holds an uploadedFiles object', quote: 'uploadedFiles | object | yes | Holds the URLs of the uploaded files.' },
  { id: 'UPLOAD-URL-PER-FILE', level: 'MUST', area: 'Upload', section: '§2.2, §4.1', title: 'the upload response carries a URL for every file', quote: 'Holds the URLs of the uploaded files.' },
  { id: 'UPLOAD-URL-FORM', level: 'INFO', area: 'Upload', section: '§2.2, §4.1', title: "the form in which the upload's URLs are written is observed", quote: 'Holds the URLs of the uploaded files. Its inner structure: not shown.' },
  { id: 'UPLOAD-FILES-MAX', level: 'MUST', area: 'Upload', section: '§8', title: 'five files are accepted and a sixth is refused', quote: 'Maximum files per upload | 5' },
  { id: 'UPLOAD-FILES-MIN', level: 'SHOULD', area: 'Upload', section: '§4.1 rule 2', title: 'an upload with no file is refused', quote: 'Files are sent under the key fileAttachment.' },
  { id: 'UPLOAD-SIZE-MAX', level: 'MUST', area: 'Upload', section: '§8', title: 'a 5 MB file is accepted and a larger one is refused', quote: 'Maximum file size | 5 MB | each uploaded file' },
  { id: 'UPLOAD-SIZE-UNIT', level: 'INFO', area: 'Upload', section: '§8', title: 'sizes between 5,000,000 bytes and 5 MiB are observed', quote: 'Maximum file size | 5 MB' },
  { id: 'UPLOAD-SIZE-TOTAL', level: 'SHOULD', area: 'Upload', section: '§8', title: 'five files of the maximum size are accepted together', quote: 'Maximum file size | 5 MB | each uploaded file … Maximum files per upload | 5' },
  { id: 'UPLOAD-EXT-ALLOWED', level: 'MUST', area: 'Upload', section: '§8', title: 'every allowed extension is accepted', quote: 'Allowed upload file types (by extension) … Images | JPG, JPEG … Videos | MP4, MPEG … Audio | MP3, WAV … Documents | PDF, DOC … Archives | ZIP, RAR … Other | VCF, VCARD' },
  { id: 'UPLOAD-EXT-CASE', level: 'SHOULD', area: 'Upload', section: '§8', title: 'allowed extensions are accepted in upper case', quote: 'Images | JPG, JPEG, PNG, …' },
  { id: 'UPLOAD-EXT-OTHER', level: 'MUST', area: 'Upload', section: '§8', title: 'an extension outside the allowed table is refused', quote: 'Allowed upload file types (by extension)' },
  { id: 'UPLOAD-TARGET-REQUIRED', level: 'MUST', area: 'Upload', section: '§4.1 rule 1, §7', title: 'an upload without conversationId and contactId is refused', quote: 'One of conversationId or contactId must be provided. … a request with neither violates the contract' },
  { id: 'UPLOAD-CONTACT-ONLY', level: 'MUST', area: 'Upload', section: '§2.1', title: 'an upload with contactId alone is accepted', quote: 'At least one of conversationId or contactId must be supplied. … contactId | string | conditionally' },
  { id: 'UPLOAD-LOCATION-REQUIRED', level: 'MUST', area: 'Upload', section: '§2.1', title: 'an upload without locationId is refused', quote: 'locationId | string | yes' },
  { id: 'UPLOAD-OPTIONAL-FIELDS', level: 'MUST', area: 'Upload', section: '§2.1', title: 'an upload with workflowId and campaignId is accepted', quote: 'workflowId | string | no … campaignId | string | no' },
  { id: 'UPLOAD-ATTACHMENT-URLS', level: 'SHOULD', area: 'Upload', section: '§2.1', title: 'an upload without attachmentUrls is refused', quote: 'attachmentUrls | array of string | yes' },
  { id: 'UPLOAD-ATTACHMENT-URLS-LIST', level: 'MUST', area: 'Upload', section: '§2.1', title: 'an upload whose attachmentUrls lists several URLs is accepted', quote: 'attachmentUrls | array of string | yes | List of attachment URLs.' },
  { id: 'UPLOAD-FIELDS-AFTER-FILES', level: 'SHOULD', area: 'Upload', section: '§4.1', title: 'an upload whose fields follow its files is accepted', quote: 'Request: multipart/form-data with the fields of 2.1.' },

  // Permanent URLs of non-secure uploads
  { id: 'PERMANENT-URL-ANONYMOUS', level: 'MUST', area: 'Permanent URLs', section: '§4.1 rule 3', title: 'a non-secure upload URL serves the exact bytes with no headers', quote: 'Without the secure flag, the returned URL stays permanently accessible.' },
  { id: 'PERMANENT-URL-LASTS', level: 'MUST', area: 'Permanent URLs', section: '§4.1 rule 3', title: 'a non-secure upload URL still serves after the hour', quote: 'the returned URL stays permanently accessible' },
  { id: 'SVG-NOT-RENDERED', level: 'SHOULD', area: 'Permanent URLs', section: '§8', title: "an uploaded SVG is served so that a browser does not run it in the API's origin", quote: 'Images | JPG, JPEG, PNG, GIF, SVG, HEIC, AI' },
  { id: 'FILE-NOSNIFF', level: 'INFO', area: 'Permanent URLs', section: '§8', title: 'whether served files carry X-Content-Type-Options nosniff is observed', quote: 'Allowed upload file types (by extension)' },
  { id: 'FILE-CONTENT-TYPE', level: 'INFO', area: 'Permanent URLs', section: '§8', title: 'the content type of served files is observed', quote: 'Allowed upload file types (by extension)' },

  // Secure attachments
  { id: 'SECURE-URL-FORM', level: 'MUST', area: 'Secure attachments', section: '§4.1 rule 4', title: 'a secure upload URL has the form /files/d/{slug}', quote: 'the returned URL has the form /files/d/{slug}' },
  { id: 'SECURE-PUBLIC-WINDOW', level: 'MUST', area: 'Secure attachments', section: '§4.1 rule 4, §8', title: 'a secure URL serves anonymously within the hour', quote: 'publicly reachable for one hour after the upload … Public window of a secure attachment URL | 1 hour after upload' },
  { id: 'SECURE-PRIVATE-AFTER', level: 'MUST', area: 'Secure attachments', section: '§4.1 rule 4', title: 'a secure URL refuses anonymous reads after the hour', quote: 'Afterwards the attachment is private.' },
  { id: 'SECURE-PRIVATE-HEAD', level: 'SHOULD', area: 'Secure attachments', section: '§4.1 rule 4', title: 'a secure URL tells an anonymous HEAD nothing of the file after the hour', quote: 'Afterwards the attachment is private.' },
  // RFC 9111 §3, §5.2.2: a shared cache keeps what the answer lets it, and would serve it anonymously past the hour.
  { id: 'SECURE-NOT-CACHED', level: 'SHOULD', area: 'Secure attachments', section: '§4.1 rule 4', title: "a secure URL's answer in its hour lets no shared cache keep it past the hour", quote: 'Afterwards the attachment is private.' },
  { id: 'SECURE-SIGNED-URL', level: 'MUST', area: 'Secure attachments', section: '§4.1 rule 5, §4.2', title: 'a files.readonly token gets a signed URL serving the exact bytes', quote: 'it returns a short-lived signed download URL' },
  { id: 'SECURE-SCOPE-REQUIRED', level: 'MUST', area: 'Secure attachments', section: '§4.2, §5.6', title: 'a token lacking files.readonly gets no signed URL', quote: 'Downloading a private secure attachment requires the scope files.readonly. … Auth: bearer token with scope files.readonly.' },
  { id: 'SECURE-UNKNOWN-SLUG', level: 'SHOULD', area: 'Secure attachments', section: '§4.2', title: 'an unknown slug is refused', quote: 'slug (string), taken from the secure attachment URL' },
  { id: 'SECURE-SIGNED-EXPIRES', level: 'SHOULD', area: 'Secure attachments', section: '§4.2', title: 'a signed URL stops serving within the hour', quote: 'Returns a short-lived signed download URL.' },
  { id: 'SECURE-SIGNED-BOUND', level: 'SHOULD', area: 'Secure attachments', section: '§4.2', title: 'a signed URL does not serve another slug', quote: 'a short-lived signed download URL' },
  { id: 'SECURE-SIGNED-TAMPER', level: 'SHOULD', area: 'Secure attachments', section: '§4.2', title: 'a tampered signed URL is refused', quote: 'a short-lived signed download URL' },

  // The dated change of 30 November 2026
  { id: 'CUTOVER-ALL-SECURE', level: 'MUST', area: 'Dated change', section: '§4.1 rule 6, §9.4', title: 'from 30 November 2026 an upload without the flag is secure', quote: 'every file uploaded through this endpoint is stored as a secure attachment … all uploads are stored as secure attachments' },
  { id: 'CUTOVER-FLAG-IGNORED', level: 'MUST', area: 'Dated change', section: '§4.1 rule 6, §2.1', title: 'from 30 November 2026 isSecureAttachment=false is ignored', quote: 'isSecureAttachment is ignored … Ignored from 30 November 2026' },
  { id: 'CUTOVER-FLAG-ANY-VALUE', level: 'SHOULD', area: 'Dated change', section: '§4.1 rule 6, §2.1', title: 'from 30 November 2026 an upload with any isSecureAttachment value is accepted', quote: 'isSecureAttachment is ignored … Ignored from 30 November 2026' },
  { id: 'CUTOVER-INSTANT', level: 'INFO', area: 'Dated change', section: '§9.4', title: 'the instant the regime changes is observed', quote: 'from 30 November 2026 all uploads are stored as secure attachments' },

  // Agent execution and sessions
  { id: 'EXEC-RESPONSE-SCHEMA', level: 'MUST', area: 'Agent execution', section: '§2.4', title: 'the execution response has all eleven fields with their types', quote: 'All fields are required. … success | boolean … executionId | string … interactionId | string … response | string … type | string … nextExpectedInput | string … goalCompletion | boolean … executionStatus | string … flowSwitch | boolean … attachments | array … generativeOutputs | array' },
  { id: 'EXEC-CONTENT-TYPE', level: 'MUST', area: 'Agent execution', section: '§4.3', title: 'the execution response is application/json', quote: 'Runs the agent and returns the full output as one non-streaming JSON document. … Response 200: application/json, fields of 2.4.' },
  { id: 'EXEC-SUCCESS', level: 'SHOULD', area: 'Agent execution', section: '§2.4', title: 'a successful execution reports success true', quote: 'success | boolean | Success status.' },
  { id: 'SESSION-START', level: 'MUST', area: 'Agent execution', section: '§3', title: 'a message without executionId starts a session', quote: 'a session starts with a request without executionId; the reply carries an executionId; requests that send it continue that session' },
  { id: 'SESSION-CONTINUE', level: 'MUST', area: 'Agent execution', section: '§3, §2.3', title: 'sending executionId continues that session', quote: 'requests that send it continue that session' },
  { id: 'SESSION-INTERACTION-NEW', level: 'MUST', area: 'Agent execution', section: '§2.4', title: 'every exchange gets a new interactionId', quote: 'a new one for each exchange' },
  // Whether "new" reaches across sessions is a reading, not a sentence: a server that numbers each session's
  // exchanges from one still gives every exchange of a session a new id.
  { id: 'SESSION-INTERACTION-UNIQUE', level: 'SHOULD', area: 'Agent execution', section: '§2.4', title: 'no two sessions share an interactionId', quote: 'Identifier of one interaction' },
  // §3 binds a session to its executionId, not to the token that started it; a server may bind it for security: a warning.
  { id: 'SESSION-OTHER-TOKEN', level: 'SHOULD', area: 'Agent execution', section: '§3', title: 'a session is continued by another valid token of its location', quote: 'requests that send it continue that session' },
  { id: 'SESSION-UNKNOWN', level: 'SHOULD', area: 'Agent execution', section: '§2.3', title: 'an unknown executionId is refused', quote: 'send the value returned earlier to continue it' },
  { id: 'AGENT-INACTIVE', level: 'MUST', area: 'Agent execution', section: '§4.3 rule 1, §3', title: 'an agent that is not active is refused', quote: 'The agent must be active … an agent must be in it to be executed' },
  { id: 'AGENT-FOREIGN-LOCATION', level: 'MUST', area: 'Agent execution', section: '§4.3 rule 1', title: 'an agent of another location is refused', quote: 'and belong to the locationId in the body' },
  { id: 'AGENT-MESSAGE-REQUIRED', level: 'MUST', area: 'Agent execution', section: '§4.3 rule 2', title: 'an execution without message is refused', quote: 'locationId and message are required' },
  { id: 'AGENT-LOCATION-REQUIRED', level: 'MUST', area: 'Agent execution', section: '§4.3 rule 2', title: 'an execution without locationId is refused', quote: 'locationId and message are required' },
  { id: 'AGENT-UNKNOWN', level: 'SHOULD', area: 'Agent execution', section: '§2.3', title: 'an unknown agent is refused', quote: 'agentId | string | yes | Managed agent identifier' },
  { id: 'AGENT-SOURCE', level: 'SHOULD', area: 'Agent execution', section: '§2.3', title: 'an execution with source=public_api is accepted', quote: 'source | string | no … examples of values: public_api, internal' },
  { id: 'AGENT-SOURCE-INTERNAL', level: 'SHOULD', area: 'Agent execution', section: '§2.3', title: 'an execution with source=internal, a value §2.3 names, is accepted', quote: 'source | string | no … examples of values: public_api, internal' },
  { id: 'EXEC-OPTIONAL-FIELDS', level: 'MUST', area: 'Agent execution', section: '§2.3', title: 'an execution with each optional field of §2.3 is accepted', quote: 'inputVariables | object | no … attachments | array of object | no … contactId | string | no' },
  { id: 'EXEC-VERSION-ID', level: 'INFO', area: 'Agent execution', section: '§2.3', title: 'the reaction to an unknown versionId is observed', quote: 'versionId | string | no | Published version to run.' },

  // Request bodies of upload and execution, variants generated from schemas/*-request.schema.json (src/contract/variants.ts)
  { id: 'BODY-EMPTY', level: 'MUST', area: 'Request bodies', section: '§4.1 rule 1, §4.3 rule 2', title: 'a request with none of its fields is refused', quote: 'One of conversationId or contactId must be provided … locationId and message are required' },
  { id: 'BODY-WRONG-TYPE', level: 'SHOULD', area: 'Request bodies', section: '§2.3', title: 'a field of the wrong JSON type is refused with a 4xx, never a 5xx', quote: 'message | string | yes … inputVariables | object | no … attachments | array of object | no' },
  { id: 'BODY-UNKNOWN-FIELD', level: 'INFO', area: 'Request bodies', section: '§2.1, §2.3, §4.1, §4.3', title: 'the reaction to a field the contract does not list is observed', quote: 'Request: multipart/form-data with the fields of 2.1 … Request: application/json, fields of 2.3' },

  // Deprecation
  { id: 'DEPRECATED-STILL-SERVED', level: 'MUST', area: 'Deprecation', section: '§4.3, §9.3', title: 'the deprecated path still executes in v3', quote: 'it may be replaced or removed in future versions' },
  { id: 'REPLACEMENT-EXISTS', level: 'MUST', area: 'Deprecation', section: '§4.3 rule 4, §9.3', title: 'the replacement path exists', quote: 'the replacement is POST /agent/{agentId}/execute' },
  { id: 'REPLACEMENT-SAME-SHAPE', level: 'INFO', area: 'Deprecation', section: '§4.3 rule 4', title: 'whether the replacement takes the deprecated shape is observed', quote: 'Request and response shape of the replacement: not shown.' },
  { id: 'DEPRECATION-HEADERS', level: 'INFO', area: 'Deprecation', section: '§9.3', title: 'the Deprecation, Sunset and Link headers are observed', quote: 'the agent-execution path under /agent-studio/public-api/ is deprecated in favour of POST /agent/{agentId}/execute' },

  // Authentication
  { id: 'AUTH-TOKEN-REQUIRED', level: 'MUST', area: 'Authentication', section: '§5.1', title: 'a request without a token is refused', quote: 'Every authenticated request sends the header Authorization: Bearer <ACCESS_TOKEN>.' },
  { id: 'AUTH-MALFORMED', level: 'MUST', area: 'Authentication', section: '§5.1', title: 'a malformed Authorization header is refused', quote: 'Authorization: Bearer <ACCESS_TOKEN>' },
  { id: 'AUTH-UNKNOWN-TOKEN', level: 'MUST', area: 'Authentication', section: '§5.2', title: 'an unknown token is refused', quote: 'Two kinds of token are accepted' },
  { id: 'AUTH-TENANT-UPLOAD', level: 'SHOULD', area: 'Authentication', section: '§2.1, §5.2', title: "another location's token cannot upload into this location", quote: 'it is issued either for a Sub-Account (location) or for an Agency (company)' },
  { id: 'AUTH-TENANT-EXECUTE', level: 'SHOULD', area: 'Authentication', section: '§4.3 rule 1, §5.2', title: "another location's token cannot run this location's agent", quote: 'The agent must be active and belong to the locationId in the body.' },
  { id: 'AUTH-TENANT-FILES', level: 'SHOULD', area: 'Authentication', section: '§4.2, §5.2', title: "another location's token gets no signed URL for this location's file", quote: 'it is issued either for a Sub-Account (location) or for an Agency (company)' },
  { id: 'AUTH-PIT-UPLOAD', level: 'MUST', area: 'Authentication', section: '§5.2, §5.8', title: 'a private integration token uploads as an access token does', quote: 'Two kinds of token are accepted' },
  { id: 'AUTH-PIT', level: 'INFO', area: 'Authentication', section: '§5.2, §5.8', title: 'private integration token acceptance is observed', quote: 'it is sent in the same way as an access token … whether the execute endpoint accepts PITs: not shown' },

  // Token endpoints
  { id: 'OAUTH-REFRESH', level: 'MUST', area: 'Token endpoints', section: '§4.4, §5.2', title: 'a refresh token is exchanged for an access token that uploads and executes', quote: 'A refresh token can be exchanged for a new one at POST /oauth/token.' },
  { id: 'OAUTH-REFRESH-ROTATION', level: 'INFO', area: 'Token endpoints', section: '§4.4, §5.2', title: 'whether a refresh token rotates and the spent one still works is observed', quote: 'Payload shapes of both: not shown.' },
  { id: 'OAUTH-REFRESH-UNKNOWN', level: 'SHOULD', area: 'Token endpoints', section: '§4.4', title: 'an unknown refresh token is refused', quote: 'POST /oauth/token: exchanges an authorization code, or a refresh token, for an access token.' },
  { id: 'OAUTH-REFRESH-CLIENT', level: 'SHOULD', area: 'Token endpoints', section: '§4.4, §5.2', title: 'a refresh with wrong client credentials is refused', quote: 'OAuth 2.0 access token: issued to an app through the authorization-code flow' },
  { id: 'OAUTH-LOCATION-TOKEN', level: 'MUST', area: 'Token endpoints', section: '§4.4, §5.4', title: 'an Agency token is exchanged for a Sub-Account token of the location', quote: 'An Agency access token can be exchanged for a Sub-Account token at POST /oauth/location-token.' },
  { id: 'OAUTH-AGENCY-ON-API', level: 'INFO', area: 'Token endpoints', section: '§5.4, §5.8', title: "the answers to an Agency token's upload and execution are observed", quote: 'Each endpoint states which token type it accepts (Sub-Account or Agency).' },
  { id: 'OAUTH-TOKEN-LIFETIME', level: 'SHOULD', area: 'Token endpoints', section: '§4.4, §5.4', title: 'an issued token keeps working within its lifetime, after later exchanges', quote: 'An Agency access token can be exchanged for a Sub-Account token at POST /oauth/location-token.' },
  { id: 'OAUTH-LOCATION-TOKEN-SUBACCOUNT', level: 'INFO', area: 'Token endpoints', section: '§4.4, §5.4', title: 'the answer to a Sub-Account token asking for a location token is observed', quote: 'exchanges an Agency access token for a Sub-Account token' },

  // Versioning
  { id: 'VERSION-MISSING', level: 'INFO', area: 'Versioning', section: '§9.1', title: 'the reaction to a missing Version header is observed', quote: 'Every request must send the Version header' },
  { id: 'VERSION-UNKNOWN', level: 'INFO', area: 'Versioning', section: '§9.1', title: 'the reaction to an unknown Version is observed', quote: 'The only published version is v3' },

  // HTTP semantics (RFC 9110, 9112, 7578, 2046, 6750, 8259): the contract is silent on each, so each is a SHOULD, its
  // RFC sections in its tests' titles and in specs/cases/request-forms.json.
  { id: 'HTTP-REQUEST-FORMS', level: 'SHOULD', area: 'HTTP semantics', section: '§1', title: 'a request in another form HTTP permits is accepted as the usual form is', quote: 'The service is an HTTP REST API of a business-communication platform.' },
  { id: 'FILE-RANGE', level: 'SHOULD', area: 'HTTP semantics', section: '§1, §4.1 rule 3', title: 'a file URL answers a byte range with exactly those bytes, or with the whole file', quote: 'The service is an HTTP REST API of a business-communication platform.' },
  { id: 'FILE-HEAD', level: 'SHOULD', area: 'HTTP semantics', section: '§1, §4.1 rule 3', title: 'a file URL answers HEAD as it answers GET, without the body', quote: 'The service is an HTTP REST API of a business-communication platform.' },
  { id: 'FILE-CONDITIONAL', level: 'SHOULD', area: 'HTTP semantics', section: '§1, §4.1 rule 3', title: 'a file URL answers a conditional GET by the validator it gave', quote: 'The service is an HTTP REST API of a business-communication platform.' },
] as const satisfies readonly Rule[];

export type RuleId = (typeof RULES)[number]['id'];

const BY_ID: ReadonlyMap<string, Rule> = new Map(RULES.map((rule) => [rule.id, rule]));

/** Matches the title path of a test of the rule: its title is `ID statement` (rule() in src/suite.ts). */
export const testsOfRule = (id: RuleId) => new RegExp(`(^|\\s)${id}\\s`);

export function ruleById(id: string): Rule {
  const rule = BY_ID.get(id);
  if (!rule) throw new Error(`unknown rule id ${id}; the catalogue is src/contract/rules.ts`);
  return rule;
}
