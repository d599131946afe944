// Tests of the suite's own data (like JSON-Schema-Test-Suite's bin/jsonschema_suite): the rule catalogue,
// the case tables, the tests Playwright would run, and the fault catalogue agree with one another.
// Every check collects all its violations and reports them in one failure.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, test } from 'node:test';
import { Validator } from '@seriousme/openapi-schema-validator';
import { faultCatalogue, FAULTS } from '../../reference/faults.ts';
import { CASES_DIR, loadTable, type TableFile, TABLES } from '../contract/cases.ts';
import { CONTRACT_FILE, contractAnchor } from '../contract/contract.ts';
import { annotate, annotatedContract, contractLines, loadUnchecked, normalForm, quoteParts, quoteProblems, uncheckedProblems, unitsOf } from '../contract/coverage.ts';
import { contractPage } from '../report/contract-page.ts';
import { type Level, RULES, type Rule } from '../contract/rules.ts';
import { openapi } from '../contract/openapi.ts';
import { projectAjv, RULE_IF_ABSENT, SCHEMA_DIR, type SchemaId, validatorFor } from '../contract/schemas.ts';
import { variantsOf } from '../contract/variants.ts';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const CATALOGUE: readonly Rule[] = RULES;
const RULE_IDS: ReadonlySet<string> = new Set(CATALOGUE.map((rule) => rule.id));
const LEVELS: readonly Level[] = ['MUST', 'SHOULD', 'INFO'];
const ID_PATTERN = /^[A-Z]+(-[A-Z0-9]+)+$/;

/** Violations as a failure message: a headline, then one line each. */
function noViolations(violations: readonly string[], headline: string): void {
  assert.ok(violations.length === 0, `${headline} (${violations.length}):\n  - ${violations.join('\n  - ')}`);
}

describe('the rule catalogue (src/contract/rules.ts)', () => {
  test('ids are unique and look like UPLOAD-FILES-MAX', () => {
    const seen = new Set<string>();
    const violations: string[] = [];
    for (const { id } of CATALOGUE) {
      if (!ID_PATTERN.test(id)) violations.push(`${id} does not match ${ID_PATTERN}`);
      if (seen.has(id)) violations.push(`${id} appears more than once`);
      seen.add(id);
    }
    noViolations(violations, 'rule ids');
  });

  test('levels are MUST, SHOULD or INFO and sections start with §', () => {
    const violations = CATALOGUE.flatMap((rule) => [
      ...(LEVELS.includes(rule.level) ? [] : [`${rule.id}: level ${rule.level} is not one of ${LEVELS.join(', ')}`]),
      ...(rule.section.startsWith('§') ? [] : [`${rule.id}: section "${rule.section}" does not start with §`]),
    ]);
    noViolations(violations, 'levels and sections');
  });

  test('titles are plain present-tense statements', () => {
    const violations = CATALOGUE.flatMap((rule) => titleProblems(rule.title).map((problem) => `${rule.id}: "${rule.title}" ${problem}`));
    noViolations(violations, 'rule titles');
  });

  test('titles are unique', () => {
    const byTitle = groupBy(CATALOGUE, (rule) => rule.title);
    const violations = [...byTitle].filter(([, rules]) => rules.length > 1).map(([title, rules]) => `"${title}": ${rules.map((r) => r.id).join(', ')}`);
    noViolations(violations, 'rules sharing a title');
  });

  test("every section cited is a section of contract/platform-api.md, and the contract's page has its anchor", () => {
    const page = contractPage();
    const violations = CATALOGUE.flatMap((rule) =>
      (rule.section.match(/§[\d.]+/g) ?? []).flatMap((citation) => {
        try {
          return page.includes(` id="${contractAnchor(citation)}"`) ? [] : [`${rule.id}: the contract's page has no anchor for ${citation}`];
        } catch (error) {
          return [`${rule.id}: ${(error as Error).message}`];
        }
      }),
    );
    noViolations(violations, 'cited sections');
  });
});

describe('the contract sentence by sentence (src/contract/coverage.ts, contract/unchecked.json)', () => {
  const text = readFileSync(CONTRACT_FILE, 'utf8');
  const units = unitsOf(contractLines(text));

  test("every rule's quote is the contract's own words, standing in a section the rule cites", () => {
    noViolations(quoteProblems(CATALOGUE, units), "quotes that no longer stand in contract/platform-api.md");
  });

  test('a changed word of a quoted sentence or row is named with its rule', () => {
    const drifted = text.replace('| Maximum files per upload | 5 |', '| Maximum files per upload | 10 |').replace('Afterwards the attachment is private.', 'Afterwards the attachment is removed.');
    // Only what the change broke, whatever else the contract's copy may have broken (the test above names that).
    const before = new Set(quoteProblems(CATALOGUE, units));
    const problems = quoteProblems(CATALOGUE, unitsOf(contractLines(drifted))).filter((problem) => !before.has(problem));
    assert.deepEqual(
      problems,
      [
        'UPLOAD-FILES-MAX: "Maximum files per upload | 5" no longer stands in §8 of contract/platform-api.md (the contract drifted: the catalogue must follow)',
        'UPLOAD-SIZE-TOTAL: "Maximum files per upload | 5" no longer stands in §8 of contract/platform-api.md (the contract drifted: the catalogue must follow)',
        'SECURE-PRIVATE-AFTER: "Afterwards the attachment is private." no longer stands in §4.1 of contract/platform-api.md (the contract drifted: the catalogue must follow)',
        'SECURE-PRIVATE-HEAD: "Afterwards the attachment is private." no longer stands in §4.1 of contract/platform-api.md (the contract drifted: the catalogue must follow)',
        'SECURE-NOT-CACHED: "Afterwards the attachment is private." no longer stands in §4.1 of contract/platform-api.md (the contract drifted: the catalogue must follow)',
      ],
    );
  });

  test('a quote standing only outside the sections its rule cites, or too short to prove anything, is named', () => {
    const rule = (quote: string): Rule => ({ ...CATALOGUE[0], id: 'X-RULE', section: '§8', quote });
    assert.deepEqual(quoteProblems([rule('Afterwards the attachment is private.'), rule('Rate limits … Maximum files per upload | 5')], units), [
      'X-RULE: "Afterwards the attachment is private." no longer stands in §8 of contract/platform-api.md (the contract drifted: the catalogue must follow)',
      'X-RULE: "Rate limits" is shorter than 3 words, too short to show the sentence still stands',
    ]);
  });

  test('one normal form for the contract and the quotes: no code marks, whitespace collapsed, cells joined by " | ", list markers dropped', () => {
    assert.equal(normalForm('Files are sent under the key  `fileAttachment`.'), 'Files are sent under the key fileAttachment.');
    assert.deepEqual(quoteParts('Images | JPG, JPEG, PNG, …'), ['Images | JPG, JPEG, PNG,']);
    const sample = ['## 8. Limits', '', '| Limit | Value |', '|---|---|', '| Maximum files per upload | 5 |', '', '- Rules:', '  1. One `a`. Two b 2.0 c.'].join('\n');
    assert.deepEqual(
      unitsOf(contractLines(sample)).map((unit) => [unit.kind, unit.section, unit.anchor, unit.text]),
      [
        ['row', '8', '8-limits', 'Maximum files per upload | 5'],
        ['sentence', '8', '8-limits', 'One a.'],
        ['sentence', '8', '8-limits', 'Two b 2.0 c.'],
      ],
    );
  });

  test('contract/unchecked.json validates against its schema, and gives a reason for every sentence and row no rule quotes, and for nothing else', () => {
    const unchecked = loadUnchecked();
    noViolations(uncheckedProblems(annotate(units, CATALOGUE, unchecked), unchecked), 'contract/unchecked.json against the contract and the catalogue');
  });

  test('a sentence neither checked nor explained, an explained sentence a rule checks, and an entry naming no sentence are each named', () => {
    const unchecked = [
      { section: '8', words: 'Rate limits: not shown.', reason: 'untestable' as const, why: 'x' },
      { section: '4.1', words: 'Afterwards the attachment is private.', reason: 'gap' as const, why: 'x' },
      { section: '4.1', words: 'Afterwards nothing.', reason: 'gap' as const, why: 'x' },
    ];
    const problems = uncheckedProblems(annotate(units, CATALOGUE, unchecked), unchecked);
    assert.ok(problems.includes('§6 "Events, webhooks and notifications: not shown.": no rule quotes it and contract/unchecked.json gives no reason'), problems.join('\n'));
    assert.ok(problems.includes('§4.1 "Afterwards the attachment is private.": checked by SECURE-PRIVATE-AFTER, SECURE-PRIVATE-HEAD, SECURE-NOT-CACHED, yet contract/unchecked.json lists it as gap'), problems.join('\n'));
    assert.ok(problems.includes('contract/unchecked.json: §4.1 "Afterwards nothing." is no sentence or row of the contract'), problems.join('\n'));
  });

  test('every rule of the catalogue stands beside at least one sentence or row', () => {
    const placed = new Set(annotatedContract().annotated.flatMap(({ rules }) => rules.map((rule) => rule.id)));
    noViolations(CATALOGUE.filter((rule) => !placed.has(rule.id)).map((rule) => rule.id), 'rules beside no sentence');
  });
});

describe('contract anchors', () => {
  // GitHub's own anchors of these headings (github-slugger 2.0.0), so a link opens the section on GitHub too.
  const ANCHORS: Record<string, string> = {
    '§4.1 rule 4, §8': '41-post-conversationsmessagesupload',
    '§2.2': '22-upload-response-200-applicationjson',
    '§4.2': '42-get-filesdslug',
    '§4.3': '43-post-agent-studiopublic-apiagentsagentidexecute-deprecated',
    '§8': '8-limits',
    '§5.2': '5-authentication',
  };
  for (const [citation, anchor] of Object.entries(ANCHORS)) {
    test(`${citation} opens at #${anchor}`, () => assert.equal(contractAnchor(citation), anchor));
  }

  test('a section the contract does not have is named', () => {
    assert.throws(() => contractAnchor('§12'), /"§12" cites no numbered section of .*contract\/platform-api\.md/);
  });
});

/** What is wrong with a title; empty when it is a plain present-tense statement. */
function titleProblems(title: string): string[] {
  const problems: string[] = [];
  if (!/^[a-z0-9]/.test(title)) problems.push('does not start in lower case');
  const modal = /\b(should|must|shall|will)\b/i.exec(title);
  if (modal) problems.push(`uses "${modal[1]}" (state the fact in the present tense)`);
  if (title.length > 80) problems.push(`is ${title.length} characters long (at most 80)`);
  if (/[.!?;:,\s]$/.test(title)) problems.push('ends with punctuation or a space');
  if (title.trim() === '') problems.push('is empty');
  return problems;
}

const TABLE_SCHEMAS: Record<string, SchemaId> = TABLES;

interface Row {
  rule?: unknown;
  statement?: unknown;
  [field: string]: unknown;
}

describe('the case tables (specs/cases/*.json)', () => {
  const tables = readdirSync(CASES_DIR).filter((file) => file.endsWith('.json')).sort();

  test('every table has a schema', () => {
    const violations = tables.filter((file) => !(file in TABLE_SCHEMAS)).map((file) => `specs/cases/${file} has no entry in TABLES of src/contract/cases.ts`);
    const gone = Object.keys(TABLE_SCHEMAS).filter((file) => !tables.includes(file)).map((file) => `TABLE_SCHEMAS names specs/cases/${file}, which does not exist`);
    noViolations([...violations, ...gone], 'case tables and schemas');
  });

  for (const file of tables.filter((name) => name in TABLE_SCHEMAS)) {
    describe(file, () => {
      const rows = (): Row[] => loadTable<Row>(file as TableFile);

      test(`validates against schemas/${TABLE_SCHEMAS[file]}.schema.json`, () => {
        assert.doesNotThrow(rows);
      });

      // A table of checks names a rule in every row; a table of routes or values serves the checks of several rules.
      const ofChecks = (validatorFor(TABLE_SCHEMAS[file]).schema as { properties: { cases: { items: { required: string[] } } } }).properties.cases.items.required.includes('rule');

      if (ofChecks) {
        test('every row names a rule of the catalogue', () => {
          const violations = rows().flatMap((row, i) =>
            typeof row.rule === 'string' && RULE_IDS.has(row.rule) ? [] : [`row ${i + 1} names ${JSON.stringify(row.rule)}, which is not in src/contract/rules.ts`],
          );
          noViolations(violations, 'rows with an unknown rule');
        });
      }

      test('statements are unique and read like rule titles', () => {
        const list = rows();
        const said = (row: Row) => String(row.statement ?? row.route);
        const violations = [
          ...[...groupBy(list, said)].filter(([, same]) => same.length > 1).map(([statement, same]) => `"${statement}" is the statement of ${same.length} rows`),
          ...list.flatMap((row) => titleProblems(said(row)).map((problem) => `"${said(row)}" ${problem}`)),
        ];
        noViolations(violations, 'statements');
      });

      test('rows are unique (a row differing only in its statement is a duplicate)', () => {
        const byContent = groupBy(rows(), ({ statement: _statement, route: _route, ...rest }) => canonical(rest));
        const violations = [...byContent.values()].filter((same) => same.length > 1).map((same) => same.map((row) => `"${String(row.statement ?? row.route)}"`).join(' = '));
        noViolations(violations, 'duplicate rows');
      });
    });
  }
});

/** JSON with sorted keys, so equal rows give equal text. */
function canonical(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonical).join(',')}]`;
  if (value !== null && typeof value === 'object') {
    return `{${Object.keys(value).sort().map((key) => `${JSON.stringify(key)}:${canonical((value as Record<string, unknown>)[key])}`).join(',')}}`;
  }
  return JSON.stringify(value);
}

function groupBy<T>(items: readonly T[], key: (item: T) => string): Map<string, T[]> {
  const groups = new Map<string, T[]>();
  for (const item of items) groups.set(key(item), [...(groups.get(key(item)) ?? []), item]);
  return groups;
}

// The tests Playwright would run, from `playwright test --list --reporter=json`.

interface JsonAnnotation {
  type: string;
  description?: string;
}
interface JsonSpec {
  title: string;
  file: string;
  line: number;
  tests: { projectName: string; annotations: JsonAnnotation[] }[];
}
interface JsonSuite {
  specs?: JsonSpec[];
  suites?: JsonSuite[];
}
interface JsonReport {
  suites?: JsonSuite[];
  errors?: { message?: string }[];
}

interface Listing {
  specs: JsonSpec[];
  errors: string[];
}

let listed: Listing | undefined;

/** Lists the suite once; the JSON goes to a file, so whatever a spec prints cannot corrupt it. */
function listing(): Listing {
  if (listed) return listed;
  const dir = mkdtempSync(join(tmpdir(), 'suite-list-'));
  try {
    const output = join(dir, 'list.json');
    const env: NodeJS.ProcessEnv = { ...process.env, SUITE_MODE: 'live', REFERENCE_SERVER: '1', PLAYWRIGHT_JSON_OUTPUT_FILE: output };
    delete env.NODE_TEST_CONTEXT; // set by node --test; not meant for the child
    const run = spawnSync('npx', ['playwright', 'test', '--list', '--reporter=json'], { cwd: ROOT, env, encoding: 'utf8', timeout: 120_000 });
    if (run.error) throw run.error;
    let report: JsonReport;
    try {
      report = JSON.parse(readFileSync(output, 'utf8')) as JsonReport;
    } catch (error) {
      throw new Error(`playwright test --list gave no JSON (exit ${run.status}): ${(error as Error).message}\n${run.stderr}`);
    }
    const specs: JsonSpec[] = [];
    const walk = (suite: JsonSuite): void => {
      specs.push(...(suite.specs ?? []));
      for (const child of suite.suites ?? []) walk(child);
    };
    for (const suite of report.suites ?? []) walk(suite);
    listed = { specs, errors: (report.errors ?? []).map((e) => (e.message ?? '').split('\n')[0]) };
    return listed;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

const where = (spec: JsonSpec) => `${spec.file}:${spec.line}`;
const ruleAnnotations = (run: JsonSpec['tests'][number]) => run.annotations.filter((a) => a.type === 'rule').map((a) => a.description ?? '');

/** Tests without exactly one known rule, with its level, whose id does not open the title. */
function annotationProblems(specs: readonly JsonSpec[]): string[] {
  const violations: string[] = [];
  for (const spec of specs) {
    for (const run of spec.tests) {
      const label = `${where(spec)} "${spec.title}" [${run.projectName}]`;
      const rules = ruleAnnotations(run);
      if (rules.length !== 1) {
        violations.push(`${label} has ${rules.length} rule annotations${rules.length ? ` (${rules.join(', ')})` : ''}; use ...rule(id, statement)`);
        continue;
      }
      const rule = CATALOGUE.find((r) => r.id === rules[0]);
      if (!rule) {
        violations.push(`${label} names ${rules[0]}, which is not in src/contract/rules.ts`);
        continue;
      }
      if (!spec.title.startsWith(`${rule.id} `)) violations.push(`${label} does not start with "${rule.id} "`);
      const levels = run.annotations.filter((a) => a.type === 'level').map((a) => a.description);
      if (levels.length !== 1 || levels[0] !== rule.level) violations.push(`${label} has level annotation ${levels.join(', ') || 'none'}; ${rule.id} is ${rule.level}`);
    }
  }
  return violations;
}

/** Statements (the title after the rule id) that do not read like rule titles. */
function statementProblems(specs: readonly JsonSpec[]): string[] {
  return specs.flatMap((spec) => {
    const statement = spec.title.replace(/^\S+ /, '');
    return titleProblems(statement).map((problem) => `${where(spec)} "${spec.title}": the statement ${problem}`);
  });
}

function duplicateTitles(specs: readonly JsonSpec[]): string[] {
  return [...groupBy(specs, (spec) => spec.title)].filter(([, same]) => same.length > 1).map(([title, same]) => `"${title}" at ${same.map(where).join(', ')}`);
}

/** MUST and SHOULD rules no test names, each with its level and title. */
function untestedRules(specs: readonly JsonSpec[]): string[] {
  const tested = new Set(specs.flatMap((spec) => spec.tests.flatMap(ruleAnnotations)));
  return CATALOGUE.filter((rule) => rule.level !== 'INFO' && !tested.has(rule.id)).map((rule) => `${rule.level.padEnd(6)} ${rule.id}: ${rule.title}`);
}

describe('the tests of the suite (playwright test --list)', () => {
  test('every spec file loads', () => {
    noViolations(listing().errors, 'errors while listing the tests');
  });

  test('every test names exactly one rule of the catalogue, with its level, in its title', () => {
    noViolations(annotationProblems(listing().specs), 'tests without exactly one known rule');
  });

  test('test statements read like rule titles', () => {
    noViolations(statementProblems(listing().specs), 'test statements');
  });

  test('test titles are unique', () => {
    noViolations(duplicateTitles(listing().specs), 'duplicate test titles');
  });

  test('every MUST and SHOULD rule has a test', () => {
    noViolations(untestedRules(listing().specs), 'MUST and SHOULD rules without a test');
  });
});

// The checks above pass when the suite is complete, so they are shown failing here on made-up listings.
describe('the listing checks catch what they are for', () => {
  const annotated = (title: string, annotations: JsonAnnotation[], line = 1): JsonSpec => ({
    title,
    file: 'made-up.spec.ts',
    line,
    tests: [{ projectName: 'conformance', annotations }],
  });
  const of = (id: string, level: string): JsonAnnotation[] => [
    { type: 'rule', description: id },
    { type: 'level', description: level },
  ];

  test('a test with no rule, two rules, an unknown rule, a wrong title or a wrong level', () => {
    const problems = annotationProblems([
      annotated('UPLOAD-FILES-MAX five files are accepted', of('UPLOAD-FILES-MAX', 'MUST')),
      annotated('five files are accepted', [], 2),
      annotated('UPLOAD-FILES-MAX two rules', [...of('UPLOAD-FILES-MAX', 'MUST'), ...of('UPLOAD-SIZE-MAX', 'MUST')], 3),
      annotated('NO-SUCH-RULE exists', of('NO-SUCH-RULE', 'MUST'), 4),
      annotated('UPLOAD-SIZE-MAX a sixth file is refused', of('UPLOAD-FILES-MAX', 'MUST'), 5),
      annotated('UPLOAD-FILES-MIN an upload with no file is refused', of('UPLOAD-FILES-MIN', 'MUST'), 6),
    ]);
    assert.deepEqual(problems, [
      'made-up.spec.ts:2 "five files are accepted" [conformance] has 0 rule annotations; use ...rule(id, statement)',
      'made-up.spec.ts:3 "UPLOAD-FILES-MAX two rules" [conformance] has 2 rule annotations (UPLOAD-FILES-MAX, UPLOAD-SIZE-MAX); use ...rule(id, statement)',
      'made-up.spec.ts:4 "NO-SUCH-RULE exists" [conformance] names NO-SUCH-RULE, which is not in src/contract/rules.ts',
      'made-up.spec.ts:5 "UPLOAD-SIZE-MAX a sixth file is refused" [conformance] does not start with "UPLOAD-FILES-MAX "',
      'made-up.spec.ts:6 "UPLOAD-FILES-MIN an upload with no file is refused" [conformance] has level annotation MUST; UPLOAD-FILES-MIN is SHOULD',
    ]);
  });

  test('duplicate titles, bad statements, and every untested MUST and SHOULD rule at once', () => {
    const specs = [
      annotated('UPLOAD-FILES-MAX five files are accepted', of('UPLOAD-FILES-MAX', 'MUST'), 1),
      annotated('UPLOAD-FILES-MAX five files are accepted', of('UPLOAD-FILES-MAX', 'MUST'), 9),
      annotated('UPLOAD-FILES-MIN A sixth file should be refused.', of('UPLOAD-FILES-MIN', 'SHOULD'), 10),
    ];
    assert.deepEqual(duplicateTitles(specs), ['"UPLOAD-FILES-MAX five files are accepted" at made-up.spec.ts:1, made-up.spec.ts:9']);
    assert.deepEqual(statementProblems(specs), [
      'made-up.spec.ts:10 "UPLOAD-FILES-MIN A sixth file should be refused.": the statement does not start in lower case',
      'made-up.spec.ts:10 "UPLOAD-FILES-MIN A sixth file should be refused.": the statement uses "should" (state the fact in the present tense)',
      'made-up.spec.ts:10 "UPLOAD-FILES-MIN A sixth file should be refused.": the statement ends with punctuation or a space',
    ]);
    const untested = untestedRules(specs);
    const expected = CATALOGUE.filter((rule) => rule.level !== 'INFO' && rule.id !== 'UPLOAD-FILES-MAX' && rule.id !== 'UPLOAD-FILES-MIN');
    assert.deepEqual(untested.map((line) => line.split(':')[0].trim().split(/\s+/)[1]), expected.map((rule) => rule.id));
    assert.ok(untested.includes('SHOULD UPLOAD-SIZE-TOTAL: five files of the maximum size are accepted together'));
  });
});

describe('the fault catalogue (reference/faults.ts)', () => {
  test('every fault breaks a rule of the catalogue', () => {
    const violations = FAULTS.filter((fault) => !RULE_IDS.has(fault.rule)).map((fault) => `${fault.name} breaks ${fault.rule}, which is not in src/contract/rules.ts`);
    noViolations(violations, 'faults of unknown rules');
    const catalogue = faultCatalogue();
    assert.equal(catalogue.length, FAULTS.length);
    for (const fault of catalogue) assert.equal(fault.level, CATALOGUE.find((rule) => rule.id === fault.rule)?.level, fault.name);
  });

  test('every MUST and SHOULD rule is broken by at least one fault, so the mutation run proves it is watched', () => {
    const exercised = new Set<string>(FAULTS.map((fault) => fault.rule));
    const unexercised = CATALOGUE.filter((rule) => rule.level !== 'INFO' && !exercised.has(rule.id)).map((rule) => `${rule.level} ${rule.id}`);
    noViolations(unexercised, 'rules no fault exercises');
  });

  test('fault names are unique', () => {
    const byName = groupBy(FAULTS, (fault) => fault.name);
    noViolations([...byName].filter(([, same]) => same.length > 1).map(([name]) => name), 'fault names used more than once');
  });
});

describe('request variants (src/contract/variants.ts)', () => {
  for (const id of ['upload-request', 'execution-request'] as const) {
    const schema = validatorFor(id).schema as { required: string[]; examples: Record<string, unknown>[]; properties: Record<string, Record<string, unknown>> };

    test(`every required property of ${id} names a catalogued rule its absence breaks`, () => {
      const violations = [
        ...schema.required.filter((name) => schema.properties[name]?.[RULE_IF_ABSENT] === undefined).map((name) => `${name} is required but has no ${RULE_IF_ABSENT}`),
        ...Object.entries(schema.properties)
          .filter(([, property]) => property[RULE_IF_ABSENT] !== undefined && !RULE_IDS.has(String(property[RULE_IF_ABSENT])))
          .map(([name, property]) => `${name}: ${RULE_IF_ABSENT} ${String(property[RULE_IF_ABSENT])} is not in src/contract/rules.ts`),
      ];
      noViolations(violations, `properties of schemas/${id}.schema.json`);
    });

    test(`every refused variant of each example of ${id} is invalid, and only those`, () => {
      const validate = validatorFor(id);
      const violations = schema.examples.flatMap((example, i) =>
        variantsOf(id, 'a request').flatMap((variant) => {
          const valid = validate(variant.apply(example)) === true;
          return valid === (variant.expect === 'refused') ? [`example ${i + 1}: "${variant.statement}" gives a body the schema calls ${valid ? 'valid' : 'invalid'}`] : [];
        }),
      );
      assert.ok(schema.examples.every((example) => validate(example)), `the examples of ${id} are valid`);
      noViolations(violations, 'variants the schema disagrees with');
    });
  }
});

describe('schemas/*.schema.json', () => {
  // The suite's ajv skips this check (src/contract/schemas.ts): it is made here, once.
  const files = readdirSync(SCHEMA_DIR).filter((name) => name.endsWith('.schema.json')).sort();
  const metaValid = (schema: object) => {
    const checker = projectAjv({ validateSchema: true });
    return checker.validateSchema(schema) === true ? [] : [checker.errorsText(checker.errors)];
  };

  for (const file of files) {
    test(`${file} is a valid JSON Schema 2020-12`, () => {
      noViolations(metaValid(JSON.parse(readFileSync(join(SCHEMA_DIR, file), 'utf8'))), `meta-schema violations of schemas/${file}`);
    });
  }

  test('the check catches a schema the meta-schema refuses', () => {
    assert.equal(metaValid({ $id: 'broken', type: 'object', required: 'locationId', [RULE_IF_ABSENT]: 'lowercase' }).length, 1);
  });
});

describe('schemas/openapi.json', () => {
  const DOCUMENT = join(SCHEMA_DIR, 'openapi.json');
  /** Its references to other files: each names a schema of schemas/ relative to the document, as any tool reads it. */
  const fileRefs = () => [...new Set([...readFileSync(DOCUMENT, 'utf8').matchAll(/"\$ref": "([^"#][^"]*)"/g)].map((m) => m[1]))];

  test('names every documented operation', () => {
    const paths = Object.keys(openapi.paths ?? {}).sort();
    assert.deepEqual(paths, ['/agent-studio/public-api/agents/{agentId}/execute', '/agent/{agentId}/execute', '/conversations/messages/upload', '/files/d/{slug}', '/oauth/location-token', '/oauth/token']);
  });

  test('refers to the schemas by their files, ./<name>.schema.json', () => {
    const refs = fileRefs();
    assert.ok(refs.length >= 4, `the request and response bodies refer to their schemas: ${refs.join(', ')}`);
    noViolations(refs.filter((ref) => !/^\.\/[a-z-]+\.schema\.json$/.test(ref) || !existsSync(join(SCHEMA_DIR, ref))), 'references that name no schema file');
  });

  // @seriousme/openapi-schema-validator checks the document against the OpenAPI 3.1 schema and resolves every
  // reference; it reads no file of its own accord, so each file reference is handed the file it names.
  const validate = async (files: readonly string[]) => {
    const validator = new Validator();
    for (const ref of files) await validator.addSpecRef(join(SCHEMA_DIR, ref), ref);
    return { result: await validator.validate(DOCUMENT), version: validator.version };
  };

  test('is a valid OpenAPI 3.1 document whose references all resolve', async () => {
    assert.deepEqual(await validate(fileRefs()), { result: { valid: true }, version: '3.1' });
  });

  test('a reference to a file the validator was not given is caught', async () => {
    const [missing, ...rest] = fileRefs();
    const { result } = await validate(rest);
    assert.equal(result.valid, false);
    assert.match(String(result.errors), new RegExp(`Can't resolve ${missing.replace(/\./g, '\\.')}`));
  });
});
