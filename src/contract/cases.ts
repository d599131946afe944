// Case tables (specs/cases/*.json), each validated against its own schema before a test is emitted.
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { ALLOWED_EXTENSIONS, type ExtensionCategory } from './contract.ts';
import type { RuleId } from './rules.ts';
import { bodiless, type Spelling } from './spelling.ts';
import { describeErrors, type SchemaId, validatorFor } from './schemas.ts';

export const CASES_DIR = fileURLToPath(new URL('../../specs/cases/', import.meta.url));

/** Files of one name and size, `count` of them in a row. */
export interface FileGroup {
  name: string;
  bytes: number;
  count?: number;
}

export interface UploadCase {
  rule: RuleId;
  statement: string;
  upload: FileGroup[];
  expect: 'accepted' | 'refused' | 'observed';
  /** For a refused row: the same upload without the property under test, which must be accepted. */
  control?: FileGroup[];
}

/** Each case table and the schema it is validated against; the meta-test refuses a table missing here. */
export const TABLES = {
  'upload-limits.json': 'upload-cases',
  'anonymous-routes.json': 'anonymous-route-cases',
  'request-forms.json': 'request-form-cases',
} as const satisfies Record<string, SchemaId>;

export type TableFile = keyof typeof TABLES;

export function loadTable<T>(file: TableFile): T[] {
  const schema = TABLES[file];
  const data = JSON.parse(readFileSync(CASES_DIR + file, 'utf8')) as { cases: T[] };
  const validate = validatorFor(schema);
  if (!validate(data)) throw new Error(`specs/cases/${file} does not match schemas/${schema}.schema.json: ${describeErrors(validate.errors)}`);
  return data.cases;
}

export const uploadLimitCases = () => loadTable<UploadCase>('upload-limits.json');

/** A valid request written in another form the protocols permit (specs/cases/request-forms.json). */
export interface RequestFormCase {
  statement: string;
  operation: 'upload' | 'execute';
  spelling: Spelling;
  rfc: string;
}

export const requestFormCases = () => loadTable<RequestFormCase>('request-forms.json');

/** The forms of that table a GET can take (it has no body: its header names, auth-scheme, request-target), each once. */
export function getRequestForms(): Spelling[] {
  const forms = new Map(requestFormCases().filter((row) => bodiless(row.spelling)).map((row) => [JSON.stringify(row.spelling), row.spelling]));
  return [...forms.values()];
}

/**
 * The upload forms of that table merged into `count` spellings, each form in one, the i-th in the (i mod count)-th
 * where it writes nothing that spelling writes already (header names in Title-Case and in upper case go apart): the
 * model's histories send each as one value of a dimension of their covering array, every form beside every value of
 * the others at no extra row. A refusal names the merged form; the table's own rows pin it to one.
 */
export function mergedUploadForms(count: number): Spelling[] {
  const merged: Spelling[] = Array.from({ length: count }, () => ({}));
  for (const [i, { spelling }] of requestFormCases().filter((row) => row.operation === 'upload').entries()) {
    const free = (group: Spelling) => Object.keys(spelling).every((key) => !(key in group));
    const home = [...merged.slice(i % count), ...merged.slice(0, i % count)].find(free);
    if (home) Object.assign(home, spelling);
    else merged.push({ ...spelling });
  }
  return merged.filter((group) => Object.keys(group).length > 0);
}

export interface ExtensionCase {
  category: ExtensionCategory;
  extension: string;
  rule: Extract<RuleId, 'UPLOAD-EXT-ALLOWED' | 'UPLOAD-EXT-CASE'>;
}

/** Every allowed extension of §8 in lower case (MUST) and in upper case (SHOULD). */
export function allowedExtensionCases(): ExtensionCase[] {
  return (Object.entries(ALLOWED_EXTENSIONS) as [ExtensionCategory, readonly string[]][]).flatMap(([category, list]) =>
    list.flatMap((extension) => [
      { category, extension, rule: 'UPLOAD-EXT-ALLOWED' as const },
      { category, extension: extension.toUpperCase(), rule: 'UPLOAD-EXT-CASE' as const },
    ]),
  );
}
