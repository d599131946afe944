// Negative request variants generated from a request schema (schemas/*-request.schema.json): each property its
// schema marks with x-rule-if-absent left out, each property given each JSON type it does not take, no field at all,
// and a field the contract does not list. A field added to a schema brings its variants with no code. Variants are
// constants, so recordings stay byte-identical.
import type { RuleId } from './rules.ts';
import { pairwise } from './generate.ts';
import { RULE_IF_ABSENT, type SchemaId, validatorFor } from './schemas.ts';

export type Body = Record<string, unknown>;

export interface Variant {
  kind: 'absent' | 'wrong type' | 'empty' | 'unknown field';
  rule: RuleId;
  /** What the variant is and what is expected of it: `an execution without message is refused`. */
  statement: string;
  /** The variant of a valid request body. */
  apply: (valid: Body) => Body;
  expect: 'refused' | 'observed';
  /** A wrong-type variant's field and the JSON type it is sent as. */
  wrong?: { field: string; type: string };
}

interface PropertySchema {
  type?: string | string[];
  [RULE_IF_ABSENT]?: RuleId;
}

/** One value of each JSON type, with the article a statement reads it with. */
const SAMPLES = [
  ['a string', 'string', 'conformance-text'],
  ['a number', 'number', 1.5],
  ['a boolean', 'boolean', true],
  ['an object', 'object', {}],
  ['an array', 'array', []],
  ['null', 'null', null],
] as const;

export const UNKNOWN_FIELD = 'conformanceUnknownField';

const without = (body: Body, name: string): Body => Object.fromEntries(Object.entries(body).filter(([key]) => key !== name));

/**
 * The variants of the request of schema `id`, read as `noun` (`an execution`). `wrongTypes: false` for a body whose
 * fields are all text (multipart), where the schema's types say how the text is read, not what is sent.
 */
export function variantsOf(id: SchemaId, noun: string, { wrongTypes = true } = {}): Variant[] {
  const { properties = {} } = validatorFor(id).schema as { properties?: Record<string, PropertySchema> };
  const entries = Object.entries(properties);
  return [
    ...entries.flatMap(([name, schema]): Variant[] => {
      const rule = schema[RULE_IF_ABSENT];
      return rule ? [{ kind: 'absent', rule, statement: `${noun} without ${name} is refused`, apply: (valid) => without(valid, name), expect: 'refused' }] : [];
    }),
    ...(wrongTypes ? entries : []).flatMap(([name, schema]) => {
      const declared = [schema.type ?? []].flat();
      return SAMPLES.filter(([, type]) => declared.length > 0 && !declared.includes(type)).map(([reading, type, value]): Variant => ({
        kind: 'wrong type',
        rule: 'BODY-WRONG-TYPE',
        statement: `${noun} with ${name} as ${reading} is refused`,
        apply: (valid) => ({ ...valid, [name]: value }),
        expect: 'refused',
        wrong: { field: name, type },
      }));
    }),
    { kind: 'empty', rule: 'BODY-EMPTY', statement: `${noun} with none of its fields is refused`, apply: () => ({}), expect: 'refused' },
    {
      kind: 'unknown field',
      rule: 'BODY-UNKNOWN-FIELD',
      statement: `${noun} with a field the contract does not list is observed`,
      apply: (valid) => ({ ...valid, [UNKNOWN_FIELD]: 'conformance' }),
      expect: 'observed',
    },
  ];
}

/**
 * The places (`where`: the paths of a request, say) each variant is sent to: every one, but for the wrong-type
 * variants, which cover every pair of field, JSON type and place (generate.ts pairwise), not every triple. A body's
 * field is read alike wherever it is sent; each field and each type still goes to every place.
 */
export function variantPlaces<P extends string>(variants: readonly Variant[], where: readonly P[]): { variant: Variant; place: P }[] {
  const wrong = variants.filter((variant) => variant.wrong !== undefined);
  const values = (key: 'field' | 'type') => [...new Set(wrong.map((variant) => variant.wrong?.[key] as string))];
  const find = (field: unknown, type: unknown) => wrong.find((variant) => variant.wrong?.field === field && variant.wrong?.type === type);
  const cover = pairwise({ dimensions: { field: values('field'), type: values('type'), place: where }, valid: (row) => find(row.field, row.type) !== undefined });
  return variants.flatMap((variant) =>
    variant.wrong === undefined
      ? where.map((place) => ({ variant, place }))
      : cover.filter((row) => find(row.field, row.type) === variant).map((row) => ({ variant, place: row.place as P })),
  );
}
