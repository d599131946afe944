import { readFileSync, readdirSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { Ajv2020, type ErrorObject, type ValidateFunction } from 'ajv/dist/2020.js';
import addFormatsModule from 'ajv-formats';

// ajv-formats ships CommonJS; under ESM its callable sits on `default`. The HAR validator uses it too.
export const addFormats = addFormatsModule as unknown as typeof addFormatsModule.default;

export const SCHEMA_DIR = fileURLToPath(new URL('../../schemas/', import.meta.url));

export type SchemaId = 'aged-upload' | 'unchecked-sentences' | 'upload-request' | 'upload-response' | 'execution-request' | 'execution-response' | 'upload-cases' | 'anonymous-route-cases' | 'request-form-cases';

/** Annotation of a request property: the rule a request breaks when the property is left out of a valid one (src/contract/variants.ts). */
export const RULE_IF_ABSENT = 'x-rule-if-absent';

/** An ajv of the project: strict, every error, the formats and the annotation keyword of its schemas. */
export function projectAjv(options: { validateSchema: boolean }): Ajv2020 {
  const instance = new Ajv2020({ strict: true, allErrors: true, validateSchema: options.validateSchema });
  addFormats(instance);
  instance.addKeyword({ keyword: RULE_IF_ABSENT, schemaType: 'string', metaSchema: { type: 'string', pattern: '^[A-Z]+(-[A-Z0-9]+)+$' } });
  return instance;
}

/**
 * One ajv instance for the whole project: every `schemas/*.schema.json` is compiled once, here. It does not check
 * them against the 2020-12 meta-schema: compiling that costs every process (each worker of the mutation run) a
 * tenth of a second, and src/test/catalogue.test.ts checks them once.
 */
export const ajv = projectAjv({ validateSchema: false });
for (const file of readdirSync(SCHEMA_DIR).filter((name) => name.endsWith('.schema.json')).sort()) {
  ajv.addSchema(JSON.parse(readFileSync(SCHEMA_DIR + file, 'utf8')));
}

export function validatorFor(id: SchemaId): ValidateFunction {
  const validate = ajv.getSchema(id);
  if (!validate) throw new Error(`schema ${id} is not in ${SCHEMA_DIR}`);
  return validate;
}

/** ajv errors as one readable line, e.g. `/message must be string; must have required property 'locationId'`. */
export function describeErrors(errors: ErrorObject[] | null | undefined): string {
  return (errors ?? []).map((e) => `${e.instancePath || '(root)'} ${e.message ?? 'is invalid'}`).join('; ');
}
