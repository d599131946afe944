// Negative request variants generated from a request schema (schemas/*-request.schema.json): each property its
// schema marks with x-rule-if-absent left out, each property given each JSON type it does not take, no field at all,
// and a field the contract does not list. A field added to a schema brings its variants with no code. Variants are
// constants, so recordings stay byte-identical.
import type { RuleId } from './rules.ts';
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
      return SAMPLES.filter(([, type]) => declared.length > 0 && !declared.includes(type)).map(([reading, , value]): Variant => ({
        kind: 'wrong type',
        rule: 'BODY-WRONG-TYPE',
        statement: `${noun} with ${name} as ${reading} is refused`,
        apply: (valid) => ({ ...valid, [name]: value }),
        expect: 'refused',
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
