// One verdict in every format, read as its readers read it: runs of a few tests against reference servers, their
// junit.xml parsed by a JUnit parser (junit2json, as CI tools parse it) and their Allure results read as Allure reads
// them. A SHOULD fault leaves the run passing and no test failed in Playwright's line, in JUnit or in Allure, the
// finding a warning in each (and its reproducer written); a MUST fault fails its test in each; a test that cannot
// judge its rule is skipped with its reason in each.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { parse, type TestCase } from 'junit2json';
import { ANNOTATION } from '../report/annotations.ts';
import type { ConformanceReport } from '../report/conformance-reporter.ts';

const ROOT = new URL('../../', import.meta.url).pathname;
const PLAYWRIGHT = join(ROOT, 'node_modules', '@playwright', 'test', 'cli.js');
const work = mkdtempSync(join(tmpdir(), 'verdict-formats-'));
after(() => rmSync(work, { recursive: true, force: true }));

/** The reference world without WORKFLOW_ID: the test of UPLOAD-OPTIONAL-FIELDS skips, saying so. */
function seedWithoutWorkflow(): string {
  const seed = JSON.parse(readFileSync(join(ROOT, 'reference', 'seed.json'), 'utf8')) as { workflows: { env?: string }[]; tokens: { value: string }[] };
  for (const workflow of seed.workflows) delete workflow.env;
  const file = join(work, 'seed.json');
  writeFileSync(file, JSON.stringify(seed));
  return file;
}

const SEED_TOKENS = (JSON.parse(readFileSync(join(ROOT, 'reference', 'seed.json'), 'utf8')) as { tokens: { value: string }[] }).tokens.map((token) => token.value);

interface Run {
  status: number | null;
  output: string;
  reports: string;
  /** Every test case of junit.xml, as the parser gives it. */
  cases: TestCase[];
  totals: { tests?: number; failures?: number; errors?: number };
  /** Allure's results of the run: the test's name, status, labels, message and the names of its attachments. */
  allure: { name: string; status: string; tags: string[]; message?: string; attachments: string[] }[];
}

/**
 * Runs these tests of these spec files against a reference server with `fault`, and reads the reports it wrote. One
 * worker: the formats are the point, not parallelism, and a second worker costs its start and its reference server.
 */
async function runTests(name: string, fault: string, files: string[], grep: string, env: Record<string, string> = {}): Promise<Run> {
  const reports = join(work, name);
  const ran = spawnSync(process.execPath, [PLAYWRIGHT, 'test', ...files, '--grep', grep, '--workers=1'], {
    cwd: ROOT,
    env: { ...process.env, SUITE_MODE: 'live', REFERENCE_SERVER: '1', FAULT: fault, CI: '1', ...env, REPORTS_DIR: reports },
    encoding: 'utf8',
  });
  const parsed = await parse(readFileSync(join(reports, 'junit.xml'), 'utf8'));
  assert.ok(parsed && 'testsuite' in parsed, 'junit.xml holds <testsuites>');
  const cases = (parsed.testsuite ?? []).flatMap((suite) => suite.testcase ?? []);
  type Step = { name?: string; attachments?: { name: string }[]; steps?: Step[] };
  const attachmentsOf = (step: Step): string[] => [...(step.attachments ?? []).map((a) => a.name), ...(step.steps ?? []).flatMap(attachmentsOf)];
  const resultsDir = join(reports, 'allure-results');
  const allure = readdirSync(resultsDir)
    .filter((file) => file.endsWith('-result.json'))
    .map((file) => JSON.parse(readFileSync(join(resultsDir, file), 'utf8')) as Step & { name: string; status: string; labels: { name: string; value: string }[]; statusDetails?: { message?: string } })
    .map((result) => ({ name: result.name, status: result.status, tags: result.labels.filter((l) => l.name === 'tag').map((l) => l.value), message: result.statusDetails?.message, attachments: attachmentsOf(result) }));
  return { status: ran.status, output: `${ran.stdout}${ran.stderr}`, reports, cases, totals: parsed, allure };
}

/** Playwright's own summary of the run (its dot reporter): `4 passed (9.2s)`, `1 skipped`, `1 failed`. */
const playwrightLine = (output: string, outcome: 'passed' | 'failed' | 'skipped') => Number(new RegExp(`^ {2}(\\d+) ${outcome}\\b`, 'm').exec(output)?.[1] ?? 0);

/**
 * The one verdict every reader of a run gets: the exit status, Playwright's line, the last lines, junit.xml and
 * Allure's results count the same failed tests, and the run fails exactly when one did.
 */
function assertOneVerdict(run: Run): void {
  const failed = playwrightLine(run.output, 'failed');
  const junit = run.cases.filter((c) => c.failure || c.error).length;
  const allure = run.allure.filter((r) => r.status === 'failed' || r.status === 'broken').length;
  const lastLine = Number(/^Tests: \d+ passed, (\d+) failed/m.exec(run.output)?.[1] ?? -1);
  const mustFailed = !/^Failed: no MUST rule$/m.test(run.output);
  assert.deepEqual(
    { exit: run.status, junit, allure, lastLine, mustFailed },
    { exit: failed > 0 ? 1 : 0, junit: failed, allure: failed, lastLine: failed, mustFailed: failed > 0 },
    `Playwright's line counts ${failed} failed: ${run.output.slice(-1500)}`,
  );
}

const property = (testCase: TestCase, name: string) => ((testCase as TestCase & { properties?: { name?: string; value?: string }[] }).properties ?? []).filter((p) => p.name === name).map((p) => p.value ?? '');

const JPG = 'UPLOAD-EXT-CASE a .JPG file is accepted';
const OPTIONAL = 'UPLOAD-OPTIONAL-FIELDS an upload with workflowId and campaignId is accepted';

describe('a SHOULD finding is a warning in every format, never a failed test', () => {
  let run: Run;
  before(async () => {
    run = await runTests('should', 'upload-ext-case-sensitive', ['specs/upload-limits.spec.ts', 'specs/upload-fields.spec.ts'], 'UPLOAD-EXT-CASE a \\.JPG file|UPLOAD-OPTIONAL-FIELDS|UPLOAD-FILES-MAX', {
      SEED_FILE: seedWithoutWorkflow(),
    });
  }, { timeout: 120_000 });

  test("the run exits 0 and Playwright's line counts no failed test; the last lines count the warning", () => {
    assertOneVerdict(run);
    assert.equal(run.status, 0, run.output.slice(-3000));
    assert.ok(playwrightLine(run.output, 'passed') >= 2, run.output.slice(0, 2000));
    assert.equal(playwrightLine(run.output, 'failed'), 0);
    assert.equal(playwrightLine(run.output, 'skipped'), 1);
    assert.match(run.output, /^Tests: \d+ passed, 0 failed, 1 skipped; 1 of the passed carry a SHOULD warning\nFailed: no MUST rule\nWarnings: 1 SHOULD rule, on 1 distinct observation$/m);
  });

  test('junit.xml, parsed: no <failure> or <error>; the warned test passed, its finding in a property and in <system-out>', () => {
    assert.equal(run.totals.failures, 0);
    assert.equal(run.totals.errors, 0);
    assert.deepEqual(run.cases.filter((c) => c.failure || c.error).map((c) => c.name), []);
    const warned = run.cases.find((c) => c.name?.endsWith(JPG));
    assert.ok(warned, `${JPG} in junit.xml`);
    assert.equal(warned.skipped, undefined);
    assert.match(property(warned, ANNOTATION.shouldWarning)[0], /^Error: toBeAcceptance\s+Expected: a 2xx acceptance\s+Received: 400 /);
    const out = warned['system-out']?.join('') ?? '';
    assert.match(out, /^SHOULD warning of UPLOAD-EXT-CASE \(the test passes\): Error: toBeAcceptance\n\nExpected: a 2xx acceptance\nReceived: 400 /);
    // The reproducer and its HAR still written, and named in the output as attachments.
    assert.match(out, /\[\[ATTACHMENT\|[^\]]*reproduce-sh-UPLOAD-EXT-CASE/);
    const written = join(run.reports, 'reproducers', 'UPLOAD-EXT-CASE');
    assert.ok(existsSync(written), written);
    const [dir] = readdirSync(written);
    for (const file of ['reproduce.sh', 'exchanges.har']) assert.ok(existsSync(join(written, dir, file)), `${file} of UPLOAD-EXT-CASE`);
  });

  test('junit.xml, parsed: the test that could not judge its rule is skipped with its reason', () => {
    const skipped = run.cases.filter((c) => c.skipped);
    assert.deepEqual(skipped.map((c) => [c.name?.split(' › ').at(-1), c.skipped?.[0].message]), [[OPTIONAL, 'WORKFLOW_ID is not set']]);
  });

  test("Allure's results: no test failed or broken; the warned test passed with the tag warning and its finding attached; the skipped one gives its reason", () => {
    assert.deepEqual(run.allure.filter((r) => r.status === 'failed' || r.status === 'broken').map((r) => r.name), []);
    const warned = run.allure.find((r) => r.name === JPG);
    assert.ok(warned);
    assert.equal(warned.status, 'passed');
    assert.deepEqual(warned.tags.sort(), ['SHOULD', 'warning']);
    for (const name of ['evidence', 'SHOULD warning', 'reproduce.sh (UPLOAD-EXT-CASE)', 'exchanges.har (UPLOAD-EXT-CASE)']) assert.ok(warned.attachments.includes(name), `${name} among ${warned.attachments.join(', ')}`);
    assert.deepEqual(run.allure.filter((r) => !r.tags.includes('warning')).map((r) => r.status).filter((s) => s !== 'passed'), ['skipped']);
    assert.equal(run.allure.find((r) => r.name === OPTIONAL)?.message, 'WORKFLOW_ID is not set');
  });

  test('conformance.json keeps its verdict: the SHOULD rule failed (warned of)', () => {
    const report = JSON.parse(readFileSync(join(run.reports, 'conformance.json'), 'utf8')) as ConformanceReport;
    const rule = report.rules.find((r) => r.id === 'UPLOAD-EXT-CASE');
    assert.deepEqual([rule?.level, rule?.verdict], ['SHOULD', 'failed']);
    assert.match(rule?.detail ?? '', /^Error: toBeAcceptance\nExpected: a 2xx acceptance/);
  });

  test('no token in junit.xml', () => {
    const xml = readFileSync(join(run.reports, 'junit.xml'), 'utf8');
    for (const token of SEED_TOKENS) assert.ok(!xml.includes(token), `a token of the seed in junit.xml`);
  });
});

describe('a MUST failure stays a failed test in every format', () => {
  let run: Run;
  before(async () => {
    run = await runTests('must', 'upload-six-files', ['specs/upload-limits.spec.ts'], 'UPLOAD-FILES-MAX');
  }, { timeout: 120_000 });

  test("the run fails, and so do its tests in Playwright's line, in junit.xml and in Allure's results", () => {
    assertOneVerdict(run);
    assert.equal(run.status, 1, run.output.slice(-3000));
    assert.match(run.output, /^Failed: 1 MUST rule, on \d+ distinct observations?\nWarnings: no SHOULD rule$/m);
    const failed = run.cases.filter((c) => c.failure || c.error);
    const titles = failed.map((c) => c.name?.split(' › ').at(-1)).sort();
    assert.ok(titles.includes('UPLOAD-FILES-MAX a sixth file is refused'), titles.join(', '));
    assert.equal(playwrightLine(run.output, 'failed'), titles.length);
    // Playwright writes <error> for a failure whose message names no expect(…) call, as the suite's matchers' do.
    assert.equal((run.totals.failures ?? 0) + (run.totals.errors ?? 0), titles.length);
    assert.match((failed[0].failure ?? failed[0].error)?.[0].message ?? '', /toBeRefusal/);
    const notPassed = run.allure.filter((r) => r.status !== 'passed');
    assert.deepEqual(notPassed.map((r) => r.name).sort(), titles);
    assert.ok(notPassed.every((r) => r.status === 'failed'), notPassed.map((r) => r.status).join(', '));
  });
});

// A MUST rule broken only where another test relied on it (a prerequisite): the run of issue 46, whose one failure
// lived in a skipped test's reason, so that JUnit and Playwright's line read green while the exit status was 1.
describe('a MUST failure seen only in a prerequisite is a failed test in every format', () => {
  const TITLE = 'UPLOAD-URL-PER-FILE every file of an upload of five gets a URL serving its exact bytes';
  let run: Run;
  before(async () => {
    run = await runTests('prerequisite', 'upload-four-files', ['specs/upload-fields.spec.ts'], TITLE);
  }, { timeout: 120_000 });

  test("one failed test in Playwright's line, junit.xml and Allure, the exit status 1, and the last lines name the rule", () => {
    assertOneVerdict(run);
    assert.equal(playwrightLine(run.output, 'failed'), 1, run.output.slice(-3000));
    assert.match(run.output, /^Failed: 1 MUST rule, on 1 distinct observation\nWarnings: no SHOULD rule$/m);
    const [failed] = run.cases.filter((c) => c.failure || c.error);
    assert.match((failed.failure ?? failed.error)?.[0].message ?? '', /Prerequisite failed: a valid upload of five files answered 4\d\d .*\(a failure of UPLOAD-ACCEPTED\)/);
  });

  test("conformance.json: the guarantor's rule failed, the test's own rule unjudged with the reason", () => {
    const report = JSON.parse(readFileSync(join(run.reports, 'conformance.json'), 'utf8')) as ConformanceReport;
    const verdict = (id: string) => report.rules.find((r) => r.id === id);
    assert.equal(verdict('UPLOAD-ACCEPTED')?.verdict, 'failed');
    assert.deepEqual([verdict('UPLOAD-URL-PER-FILE')?.verdict, verdict('UPLOAD-URL-PER-FILE')?.detail.split(':')[0]], ['skipped', 'prerequisite failed']);
  });
});
