// The domain of valid requests, declared once: for each operation, the dimensions along which a request the contract
// allows can vary, each with its values, the simplest first (a failure shrinks towards them); and for each rule that
// is a property, the dimensions it quantifies over. A rule stated over a set ("every file uploaded through this
// endpoint", "each uploaded file", "a new one for each exchange", "from 30 November 2026") must hold for every member
// of the set, so its check covers every pair of values of its dimensions (src/contract/generate.ts), plus samples
// from a seed that changes with each commit. The README explains each dimension in a line.
import type { RuleId } from './rules.ts';

export type Value = string | number;

export interface Dimension {
  /** Where the contract, or HTTP, lets a valid request vary so. */
  readonly why: string;
  readonly values: readonly Value[];
  /** A request at a value holds every smaller one too (a session of six exchanges holds its first five): the cover takes the largest. */
  readonly cumulative?: true;
}

/**
 * Instants of every dated regime, near its start and far after it: `from 30 November 2026` holds at each. The
 * contract names no time zone, so "near the start" is the first instant every reading agrees on.
 */
export const LATER_INSTANTS = {
  // Midnight at UTC−12, the last time zone to reach 30 November: every reading is "from" here.
  '2026-11-30T12:00:00Z': 'the first instant after the change in every time zone',
  '2026-12-01T12:00:00Z': 'a day later',
  '2026-12-30T12:00:00Z': 'a month later',
  // A regime coded as "December 2026" or a year field compared alone stops here.
  '2026-12-31T23:59:59Z': 'the last second of the year of the change',
  '2027-01-01T00:00:00Z': 'the turn of the year',
  '2027-11-30T12:00:00Z': 'a year later',
  // A calendar computed by hand (28 days in February) or a date parsed per field breaks on the 29th.
  '2028-02-29T12:00:00Z': 'a leap day',
  '2036-11-30T12:00:00Z': 'ten years later',
  // 2^31 seconds after 1970: a signed 32-bit timestamp wraps to 1901 here.
  '2038-01-19T03:14:08Z': 'the first second past a signed 32-bit time',
} as const;

/** The first instant a signed 32-bit count of seconds since 1970 cannot hold. */
export const PAST_32_BIT_SECONDS: keyof typeof LATER_INSTANTS = '2038-01-19T03:14:08Z';

/** Ages of a secure attachment at which "afterwards the attachment is private" holds: near the end of its hour and far after. */
export const AFTERWARDS = {
  'an hour and a second': 3601,
  // A window kept in a cache or a day-granular expiry opens again here.
  'a day': 86_400,
  'a year': 365 * 86_400,
  // Far past any retention or cleanup a server might run, and past 2036 for an upload of 2026.
  'ten years': 3652 * 86_400,
} as const;

/** The dimensions of each operation, as the contract (§2, §4, §8) and HTTP let a valid request vary. */
export const DOMAINS = {
  upload: {
    target: { why: '§2.1, §4.1 rule 1: conversationId, contactId or both name where the files go', values: ['conversation', 'contact', 'both'] },
    secureFlag: { why: '§2.1: isSecureAttachment absent (its default, false), "false" or "true"', values: ['absent', 'false', 'true'] },
    regime: { why: "§4.1 rule 6, §9.4: before or after the change of 30 November 2026, by the server's clock", values: ['before', 'after'] },
    optionalFields: { why: '§2.1: workflowId and campaignId, neither, either or both', values: ['none', 'workflowId', 'campaignId', 'both'] },
    count: { why: '§8: 1 to 5 files in one upload', values: [1, 2, 3, 4, 5] },
    position: { why: '§8 "each uploaded file": the file under test first, in the middle or last of the upload', values: ['first', 'middle', 'last'] },
    type: { why: '§8: a file of each category of allowed types (images, videos, audio, documents, archives, other)', values: ['pdf', 'png', 'mp4', 'mp3', 'zip', 'vcf'] },
    // The case of an extension is UPLOAD-EXT-CASE's (SHOULD), so it is not a dimension of MUST rules.
    nameForm: { why: 'RFC 7578 §4.2: the filename parameter is the client\'s: plain, with spaces, with several dots before the extension, or in UTF-8 beyond ASCII', values: ['plain', 'spaces', 'several dots', 'non-ascii'] },
    instant: { why: '§4.1 rule 6 "from 30 November 2026": near its start and far after it (LATER_INSTANTS)', values: Object.keys(LATER_INSTANTS) },
  },
  file: {
    earlierRead: { why: '§4.1 rules 4 and 5, §4.2: what read the file before: nothing, its URL within the hour, a signed URL within or after it', values: ['none', 'anonymous within the hour', 'signed within the hour', 'signed after the hour'] },
    route: { why: '§4.1 rule 4, §5.6: the route a caller without files.readonly takes (rows of specs/cases/anonymous-routes.json)', values: ['the URL as given', 'the API call GET /files/d/{slug} without Authorization', 'the API call GET /files/d/{slug} with a token lacking files.readonly'] },
    age: { why: '§4.1 rule 4 "afterwards the attachment is private": the age of the file when the route is taken (AFTERWARDS)', values: Object.keys(AFTERWARDS) },
  },
  execution: {
    path: { why: '§4.3 rule 4, §9.3: the deprecated path and its replacement', values: ['deprecated', 'replacement'] },
    optionalFields: { why: '§2.3: none, inputVariables, attachments, contactId, or the source query parameter', values: ['none', 'inputVariables', 'attachments', 'contactId', 'source'] },
    turns: { why: '§3: a session of this many exchanges, its first message and continuations, longer than any other check needs', values: [1, 2, 3, 4, 5, 6], cumulative: true },
  },
} as const satisfies Record<string, Record<string, Dimension>>;

export type Operation = keyof typeof DOMAINS;
export type DimensionOf<O extends Operation> = keyof (typeof DOMAINS)[O] & string;

export interface RuleDomain {
  readonly operation: Operation;
  /** The dimensions the rule quantifies over; the others stay at their first value. */
  readonly over: readonly string[];
  /** Values a dimension is held to for this rule (the rule's own set is narrower than the operation's). */
  readonly only?: Readonly<Partial<Record<string, readonly Value[]>>>;
}

/** A rule's domain, its dimensions checked against its operation's. */
const domain = <O extends Operation>(operation: O, over: readonly DimensionOf<O>[], only?: Partial<Record<DimensionOf<O>, readonly Value[]>>): RuleDomain => ({
  operation,
  over,
  only,
});

/** Each rule checked as a property, and its domain. */
export const RULE_DOMAINS = {
  'UPLOAD-FILES-MAX': domain('upload', ['target', 'secureFlag', 'regime', 'optionalFields']),
  // The file under test alone, or first, in the middle or last of five: a check of the first file only, of all but the
  // last, or of the ends only, leaves one of those unchecked (the model's refused uploads put a .exe after one to three files).
  'UPLOAD-EXT-OTHER': domain('upload', ['target', 'secureFlag', 'regime', 'optionalFields', 'count', 'position'], { count: [1, 5] }),
  'UPLOAD-SIZE-MAX': domain('upload', ['target', 'secureFlag', 'regime', 'count', 'position', 'type', 'nameForm'], { count: [1, 5] }),
  // The flag "false" after the change is CUTOVER-FLAG-IGNORED's set. One file or five: five hold every position.
  'CUTOVER-ALL-SECURE': domain('upload', ['instant', 'target', 'secureFlag', 'count'], { secureFlag: ['absent', 'true'], regime: ['after'], count: [1, 5] }),
  'CUTOVER-FLAG-IGNORED': domain('upload', ['instant', 'target', 'count'], { secureFlag: ['false'], regime: ['after'], count: [1, 5] }),
  'SECURE-PRIVATE-AFTER': domain('file', ['earlierRead', 'route', 'age']),
  // On the deprecated path only (the first value of path): the replacement's response shape is not shown. The optional
  // fields of every turn are the model's: it judges both rules on every reply of its sessions (src/model/sessions.ts),
  // which carry any of them at any turn, and each on each path in every closing step.
  'EXEC-RESPONSE-SCHEMA': domain('execution', ['turns']),
  'SESSION-INTERACTION-NEW': domain('execution', ['path', 'turns']),
} as const satisfies Partial<Record<RuleId, RuleDomain>>;

export type PropertyRule = keyof typeof RULE_DOMAINS;

/** A request of an operation's domain: one value per dimension. */
export type Case = Readonly<Record<string, Value>>;

/** A dimension's values for one rule: held to the rule's own set, or its first value when the rule does not vary it. */
export function valuesFor(rule: PropertyRule, dimension: string): readonly Value[] {
  const declared: RuleDomain = RULE_DOMAINS[rule];
  const all = (DOMAINS[declared.operation] as Record<string, Dimension>)[dimension].values;
  return declared.only?.[dimension] ?? (declared.over.includes(dimension) ? all : all.slice(0, 1));
}

/**
 * Requests the contract allows. Before the change only the email channel takes a secure upload (§2.1), and a
 * contact alone names no channel; after it the flag is ignored, so every target takes it.
 */
export function isValidUpload(request: Case): boolean {
  return !(request.secureFlag === 'true' && request.regime !== 'after' && request.target === 'contact');
}
