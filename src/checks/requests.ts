// A request of a rule's domain (src/contract/domains.ts) as it is sent, and the values of each dimension a target
// can reach: a regime only a test clock can move to, a field only a configured id can fill.
import type { Api, ExecuteRequest, Fields } from '../client/api.ts';
import type { Target } from '../config/config.ts';
import { type Case, isValidUpload, type PropertyRule, RULE_DOMAINS, type Value } from '../contract/domains.ts';
import { type Space, spaceOf } from '../contract/generate.ts';
import type { RuleId } from '../contract/rules.ts';
import { testFile, type TestFile } from '../files/test-file.ts';

/** Where a test clock puts the server for a regime: every reading of "from 30 November 2026" agrees there. */
export const REGIME_INSTANTS = { before: '2026-11-29T09:00:00Z', after: '2026-11-30T12:00:00Z' } as const;

/** What the server's clock allows: a test clock reaches every instant; otherwise only the regime it is in, now. */
export interface Reach {
  movable: boolean;
  /** The regime of the dated change at the server's date (before, after, ambiguous). */
  regime: string;
}

/** The ids each value of the upload's optionalFields dimension sends. */
const OPTIONAL_IDS: Record<string, readonly ('workflowId' | 'campaignId')[]> = { workflowId: ['workflowId'], campaignId: ['campaignId'], both: ['workflowId', 'campaignId'] };

/** The space of an upload rule, narrowed to what the target reaches. */
export function uploadSpace(rule: PropertyRule, target: Target, reach: Reach): Space {
  const configured = (value: Value) => (OPTIONAL_IDS[value] ?? []).every((key) => target[key] !== undefined);
  const narrowed: Record<string, readonly Value[]> = { optionalFields: spaceOf(rule).dimensions.optionalFields.filter(configured) };
  if (!reach.movable) {
    // Without a test clock the run stands at one instant, the server's now (a rule of one regime checks it is in
    // it first): each later run after the date is another instant.
    narrowed.regime = [reach.regime];
    narrowed.instant = ['now'];
  }
  // A test clock's move is a request: the cases run grouped by the instant they need.
  return spaceOf(rule, narrowed, isValidUpload, RULE_DOMAINS[rule].over.includes('instant') ? 'instant' : 'regime');
}

/** The form fields of an upload request of the domain. */
export function uploadFieldsOf(api: Api, request: Case): Fields {
  const { conversationId, contactId } = api.target;
  const fields: Fields = { locationId: api.target.locationId };
  if (request.target !== 'contact') fields.conversationId = conversationId;
  if (request.target !== 'conversation') fields.contactId = contactId;
  fields.attachmentUrls = api.uploadFields().attachmentUrls;
  if (request.secureFlag !== 'absent') fields.isSecureAttachment = String(request.secureFlag);
  for (const key of OPTIONAL_IDS[request.optionalFields] ?? []) fields[key] = api.target[key] as string;
  return fields;
}

/** Each optional field of §2.3 with a valid value; versionId names no published version, so its fate is only observed. */
export const EXECUTION_OPTIONAL_FIELDS: { rule: RuleId; field: string; value: (target: Target) => unknown }[] = [
  // Empty: which variables the agent defines is not known, and a server may refuse others.
  { rule: 'EXEC-OPTIONAL-FIELDS', field: 'inputVariables', value: () => ({}) },
  { rule: 'EXEC-OPTIONAL-FIELDS', field: 'attachments', value: () => [] },
  { rule: 'EXEC-OPTIONAL-FIELDS', field: 'contactId', value: (target) => target.contactId },
  { rule: 'EXEC-VERSION-ID', field: 'versionId', value: () => 'conformance-unknown-version' },
];

/** The optional parts of §2.3 an execution sends (values of the execution's optionalFields, or versionId): body fields, and the source query parameter. */
export function executionOptionalParts(optional: readonly Value[], target: Target): Pick<ExecuteRequest, 'query'> & { fields: Record<string, unknown> } {
  const rows = EXECUTION_OPTIONAL_FIELDS.filter((row) => optional.includes(row.field));
  return { ...(optional.includes('source') ? { query: { source: 'public_api' } } : {}), fields: Object.fromEntries(rows.map((row) => [row.field, row.value(target)])) };
}

/** The index of the file under test among `count`, by the request's position. */
export const indexOf = (request: Case, count: number) => (request.position === 'last' ? count - 1 : request.position === 'middle' ? Math.floor(count / 2) : 0);

/** A file name of the request's type and name form, distinct per stem and index. */
function nameOf(request: Case, stem: string, index: number): string {
  const type = String(request.type);
  if (request.nameForm === 'spaces') return `${stem} ${index + 1} copy.${type}`;
  if (request.nameForm === 'several dots') return `${stem}.${index + 1}.final.${type}`;
  if (request.nameForm === 'non-ascii') return `${stem}-${index + 1}-résumé-日本.${type}`;
  return `${stem}-${index + 1}.${type}`;
}

/** `count` files of the request's type and name form, of 256 bytes; the one at `odd.index` of `odd.bytes`, or of another extension. */
export function uploadFilesOf(request: Case, stem: string, count: number, odd?: { index: number; bytes?: number; extension?: string }): TestFile[] {
  return Array.from({ length: count }, (_, i) => {
    const other = i === odd?.index ? odd : undefined;
    return testFile(nameOf(other?.extension ? { ...request, type: other.extension } : request, stem, i), other?.bytes ?? 256);
  });
}
