// Turns test results into verdicts per rule: reports/conformance.json and .md, a matrix on the console, the same
// Markdown in the GitHub job summary and in the Allure report. The run fails if and only if a MUST rule failed or
// could not be judged for an infrastructure error, or the run itself failed outside any test (the global setup).
import type { FullConfig, FullResult, Reporter, TestCase, TestError, TestResult } from '@playwright/test/reporter';
import { FileSystemWriter } from 'allure-js-commons/sdk/reporter';
import { randomUUID } from 'node:crypto';
import { appendFileSync, existsSync, mkdirSync, readdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { stripVTControlCharacters } from 'node:util';
import { ANNOTATION, type AnnotationType, notesOf } from './annotations.ts';
import { describeTarget, type MutationTrial, replayNotice, suiteConfig, type SuiteConfig, trialOf } from '../config/config.ts';
import { type Level, RULES } from '../contract/rules.ts';
import { annotatedContract, coverageLine, coverageOf } from '../contract/coverage.ts';
import { type CoverageRecord, modelCoverageLine } from '../contract/sequences.ts';
import { coverageMatrixSvg } from './model-coverage.ts';
import { escapeXml, unescapeXml } from './xml.ts';
import { writeContractPage } from './contract-page.ts';
import {
  type Cause,
  type ConformanceReport,
  counts,
  failureLines,
  LEVELS,
  observationKey,
  type RuleResult,
  sharedCauseLines,
  summaryLine,
  unjudgedLines,
  type Verdict,
} from './verdicts.ts';

export type { ConformanceReport, RuleResult, Verdict } from './verdicts.ts';

interface Outcome {
  title: string;
  /** Playwright's id of the test: a re-run's outcomes replace those of its first run. */
  id: string;
  verdict: Verdict;
  detail: string;
  /** What a failure observed (observationKey), to group the rules that failed on one observation. */
  observation?: string;
}

export default class ConformanceReporter implements Reporter {
  /** Outcomes by project (one key, '', unless byProject) and then by rule. */
  readonly #outcomes = new Map<string, Map<string, Outcome[]>>();
  readonly #outputFile: string;
  readonly #byProject: boolean;
  /** The run's configuration, as the tests used it; undefined when it could not be read. */
  readonly #config: SuiteConfig | undefined;
  #unconfigured = '';
  /** The reference fault and style of each project (or trial). */
  readonly #servers = new Map<string, { fault?: string; style?: string }>();
  /** Test time by project, in ms. */
  readonly #durations = new Map<string, number>();
  #serverTime: string | null = null;
  /** Titles of the tests that used an operation the contract marks deprecated. */
  readonly #deprecatedUses = new Set<string>();
  /** Retries of throttled answers and network faults, each described by its test. */
  readonly #retries: string[] = [];
  /** Tests run once more at the end, their first run having had no verdict for the network. */
  readonly #reruns = new Set<string>();
  /** Each test's status at its last run. */
  readonly #lastStatus = new Map<string, 'passed' | 'failed' | 'skipped'>();
  /** The tests that passed carrying a SHOULD warning, at their last run. */
  readonly #warned = new Set<string>();
  /** Errors outside any test: a global setup that stopped the run (the preflight), a worker that crashed. */
  #globalErrors = 0;
  readonly #globalMessages: string[] = [];
  /** This run's shard, if sharded: a shard's matrix is partial, so the summaries wait for the merged one. */
  #shard: FullConfig['shard'] = null;
  /** Each skipped test's title, by its reason: the console names every skipped test with why. */
  readonly #skips = new Map<string, Map<string, string>>();
  /** What each test's model sequences covered, at its last run. */
  readonly #modelCoverage = new Map<string, CoverageRecord>();
  /** Playwright's JUnit file, whose counts leave out errors outside any test. */
  readonly #junitFile: string | undefined;

  /** byProject: one report per project, `<dir>/<project>.json`, or per trial of a project of several faults (the mutation run). */
  constructor(options: { outputFile?: string; byProject?: boolean; config?: SuiteConfig; junitFile?: string } = {}) {
    let config: SuiteConfig | undefined;
    try {
      config = options.config ?? suiteConfig();
    } catch (error) {
      this.#unconfigured = `unconfigured: ${(error as Error).message.split('\n')[0]}`;
    }
    this.#config = config;
    this.#outputFile = options.outputFile ?? `${config?.reportsDir ?? 'reports'}/conformance.json`;
    this.#byProject = options.byProject ?? false;
    this.#junitFile = options.junitFile;
  }

  onBegin(config: FullConfig): void {
    this.#shard = config.shard;
    // An earlier run's verdicts never stand beside this run's other reports, even if this one stops before its end.
    if (!this.#byProject) for (const file of [this.#outputFile, markdownFile(this.#outputFile)]) rmSync(file, { force: true });
  }

  onError(error: TestError): void {
    this.#globalErrors += 1;
    this.#globalMessages.push(wholeMessage(error.message ?? 'an error outside any test').split('\n')[0]);
  }

  onTestEnd(test: TestCase, result: TestResult): void {
    const annotations = [...test.annotations, ...result.annotations];
    const notes = (type: AnnotationType) => notesOf(annotations, type);
    this.#serverTime ??= notes(ANNOTATION.serverTime)[0] ?? null;
    for (const operation of notes(ANNOTATION.deprecatedOperation)) this.#deprecatedUses.add(`${test.title}: ${operation}`);
    this.#retries.push(...notes(ANNOTATION.retry).map((what) => `${test.title}: ${what}`));
    // A re-run (a first run without a verdict for the network) stands for the test: it is counted once, at its last run.
    this.#lastStatus.set(test.id, result.status === 'passed' ? 'passed' : result.status === 'skipped' ? 'skipped' : 'failed');
    for (const titles of this.#skips.values()) titles.delete(test.id);
    if (result.status === 'skipped') {
      const reason = notes(ANNOTATION.skip)[0] || 'skipped without a reason';
      this.#skips.set(reason, (this.#skips.get(reason) ?? new Map<string, string>()).set(test.id, test.title));
    }
    for (const rerun of notes(ANNOTATION.rerun)) this.#reruns.add(`${test.title}: ${rerun}`);
    const covered = notes(ANNOTATION.modelCoverage)[0];
    if (covered) this.#modelCoverage.set(test.id, JSON.parse(covered) as CoverageRecord);
    else this.#modelCoverage.delete(test.id);
    // A SHOULD rule found broken: the test passed carrying the finding (src/suite.ts), the rule failed (a warning).
    const findings = notes(ANNOTATION.shouldWarning);
    if (findings.length > 0) this.#warned.add(test.id);
    else this.#warned.delete(test.id);
    const ruleId = notes(ANNOTATION.rule)[0];
    if (!ruleId) return;
    // A test stopped at a MUST prerequisite failed for that rule (below); its own rule it leaves unjudged, as a skip
    // with the reason would, unless it failed on its own before.
    const stopped = notes(ANNOTATION.prerequisite)[0];
    const ownErrors = result.errors.filter((e) => stopped === undefined || !stripVTControlCharacters(e.message ?? '').toLowerCase().includes(stopped.toLowerCase()));
    const message = wholeMessage([...ownErrors.map((e) => e.message ?? ''), ...findings].join('\n'));
    // The target unreachable, a check that proved nothing, a test out of time or a run cut short: no verdict on the
    // rule, and never a pass.
    const noVerdict = [...notes(ANNOTATION.inconclusive).map((why) => `Inconclusive: ${why}`), ...notes(ANNOTATION.infrastructure)];
    const verdict: Verdict =
      noVerdict.length > 0 || result.status === 'interrupted' || result.status === 'timedOut' ? 'error'
      : findings.length > 0 ? 'failed'
      : result.status === 'passed' ? 'passed'
      : result.status === 'skipped' || (stopped !== undefined && ownErrors.length === 0) ? 'skipped'
      : 'failed';
    const detail =
      verdict === 'skipped' ? notes(ANNOTATION.skip)[0] || stopped || 'skipped'
      : verdict === 'passed' ? notes(ANNOTATION.observation).join('; ')
      : message || noVerdict[0] || `the test ended ${result.status} without a message`;
    // By project, or by trial where a project serves several faults (npm run mutation: one report per fault).
    const use = (test.parent.project()?.use ?? {}) as { fault?: string; style?: string; trials?: readonly MutationTrial[] };
    const trial = trialOf(use.trials, ruleId);
    const project = !this.#byProject ? '' : (trial?.name ?? test.parent.project()?.name ?? '');
    this.#servers.set(project, { fault: trial?.fault ?? use.fault, style: use.style });
    this.#durations.set(project, (this.#durations.get(project) ?? 0) + result.duration);
    const rules = this.#outcomes.get(project) ?? new Map<string, Outcome[]>();
    if (result.retry > 0) for (const [id, outcomes] of rules) rules.set(id, outcomes.filter((o) => o.id !== test.id));
    const add = (id: string, outcome: Outcome) => rules.set(id, [...(rules.get(id) ?? []), outcome]);
    // A failure is grouped with others by the exchange it judged; one without evidence stands alone.
    const exchange = lastExchange(result);
    const observation = verdict !== 'failed' ? undefined : exchange === '' ? `the test ${test.id}` : observationKey(message, exchange);
    add(ruleId, { title: test.title, id: test.id, verdict, detail, observation });
    // A prerequisite the contract guarantees, refused in this test: a failure of the rule that guarantees it.
    for (const violation of notes(ANNOTATION.violation)) {
      const [id, ...what] = violation.split(' ');
      add(id, { title: test.title, id: test.id, verdict: 'failed', detail: `${what.join(' ')} (a prerequisite of ${test.title})`, observation: observationKey(what.join(' ')) });
    }
    this.#outcomes.set(project, rules);
  }

  async onEnd(result: FullResult): Promise<{ status: FullResult['status'] }> {
    mkdirSync(dirname(this.#outputFile), { recursive: true });
    if (this.#byProject) {
      for (const project of this.#outcomes.keys()) {
        // With the time of its tests, in seconds: the mutation run has no other clock per project.
        const report = { ...this.#report(project), seconds: (this.#durations.get(project) ?? 0) / 1000 };
        writeWhole(join(dirname(this.#outputFile), `${project}.json`), `${JSON.stringify(report, null, 2)}\n`);
      }
      return { status: result.status };
    }
    this.#completeJunit();
    const statuses = [...this.#lastStatus.values()];
    const counted = (status: string) => statuses.filter((s) => s === status).length;
    const ran = statuses.length;
    // Stopped before any test (the preflight's lines, or another error, are above): no matrix of rules nobody judged.
    if (ran === 0 && this.#globalErrors > 0) return { status: 'failed' };
    const report = this.#report('');
    writeWhole(this.#outputFile, `${JSON.stringify(report, null, 2)}\n`);
    writeWhole(markdownFile(this.#outputFile), markdown(report, 'html'));
    if (this.#shard === null) {
      // The annotated contract beside the reports, where CONTRACT_URL leads by default; linked to Playwright's report.
      const dir = dirname(this.#outputFile);
      writeContractPage(dir, { report, htmlReport: relative(dir, join(this.#config?.reportsDir ?? dir, 'html', 'index.html')) });
      const picture = coverageMatrixSvg([...this.#modelCoverage.values()]);
      if (picture) writeWhole(join(dir, 'model-coverage.svg'), picture);
      this.#publish(report);
    }
    process.stdout.write(this.#skipped());
    process.stdout.write(matrix(report));
    if (this.#deprecatedUses.size > 0) {
      process.stdout.write(`${this.#deprecatedUses.size} tests used a deprecated operation (flagged in each test's annotations).\n`);
    }
    if (this.#retries.length > 0) process.stdout.write(`${this.#retries.length} requests were retried after a throttled answer or a network fault (the 'retry' annotations).\n`);
    if (this.#reruns.size > 0) process.stdout.write(`${this.#reruns.size} tests were run once more at the end, their first run having had no verdict for the network: ${[...this.#reruns].map((r) => r.split(':')[0]).join('; ')}\n`);
    // The run's last lines: test counts (those passed with a SHOULD warning among the passed), the failed MUST rules
    // and the SHOULD rules warned of with the observations behind them, the rules left unjudged and how to judge
    // them; the verdict of each rule is the matrix above.
    const notice = this.#config && replayNotice(this.#config);
    const warned = this.#warned.size > 0 ? `; ${this.#warned.size} of the passed carry a SHOULD warning` : '';
    process.stdout.write(
      [
        `Tests: ${counted('passed')} passed, ${counted('failed')} failed, ${counted('skipped')} skipped${warned}`,
        ...(report.modelCoverage ? [report.modelCoverage] : []),
        ...sharedCauseLines(report),
        ...failureLines(report),
        ...unjudgedLines(report),
        // Last, as global setup said first: a replay with a BASE_URL set judged the recordings, not that server.
        ...(notice ? [notice] : []),
        '',
      ].join('\n'),
    );
    const mustBroken = report.rules.some((r) => r.level === 'MUST' && (r.verdict === 'failed' || r.verdict === 'error'));
    if (result.status !== 'passed' && result.status !== 'failed') return { status: result.status };
    return { status: mustBroken || this.#globalErrors > 0 ? 'failed' : 'passed' };
  }

  /** Each skipped test with its reason, tests of one reason together. */
  #skipped(): string {
    const groups = [...this.#skips.entries()].filter(([, titles]) => titles.size > 0);
    if (groups.length === 0) return '';
    const total = groups.reduce((sum, [, titles]) => sum + titles.size, 0);
    const lines = groups.flatMap(([reason, titles]) => [`  ${reason}:`, ...[...titles.values()].sort().map((title) => `    - ${title}`)]);
    return `\n${total} tests skipped, each under its reason:\n${lines.join('\n')}\n`;
  }

  /**
   * Playwright's JUnit file, completed where CI tools look: a skipped test's <skipped> gives its reason (its `skip`
   * property), a test that passed with a SHOULD warning says so in <system-out> (tools show a test's output; few show
   * its properties), and each error outside any test (the preflight in the global setup, a crashed worker), which
   * Playwright's file leaves out (`tests="0"` and no error), is an errored test case.
   */
  #completeJunit(): void {
    const file = this.#junitFile;
    if (file === undefined || !existsSync(file)) return;
    // Character data set aside (a test's output may hold anything), so that only tags are read and changed.
    const sections: string[] = [];
    const aside = (section: string) => `\u0000${sections.push(section) - 1}\u0000`;
    let xml = readFileSync(file, 'utf8').replace(/<!\[CDATA\[[\s\S]*?\]\]>/g, aside);
    xml = xml.replace(/<testcase\b[^>]*>[\s\S]*?<\/testcase>/g, (testcase) => {
      const properties = [...testcase.matchAll(/<property name="([^"]*)" value="([^"]*)">/g)];
      const values = (type: AnnotationType) => properties.filter(([, name]) => name === type).map(([, , value]) => value);
      const warnings = values(ANNOTATION.shouldWarning).map((warning) => `SHOULD warning of ${values(ANNOTATION.rule)[0]} (the test passes): ${unescapeXml(warning)}\n`);
      const out = warnings.length === 0 ? '' : aside(`<![CDATA[${warnings.join('').replace(/]]>/g, ']]]]><![CDATA[>')}]]>`);
      return testcase
        .replace('<skipped>', `<skipped message="${values(ANNOTATION.skip)[0] || 'skipped without a reason'}">`)
        .replace(/<system-out>|(<system-err>|<\/testcase>)/, (tag, other?: string) => (out === '' ? tag : other ? `<system-out>${out}</system-out>\n${other}` : `${tag}${out}`));
    });
    if (this.#globalErrors > 0) {
      const bump = (attribute: string, text: string) => text.replace(new RegExp(`(<testsuites\\b[^>]*\\b${attribute}=")(\\d+)"`), (_m, head: string, n: string) => `${head}${Number(n) + this.#globalErrors}"`);
      const cases = this.#globalMessages.map((message, i) => `<testcase name="error outside any test ${i + 1}" classname="run"><error message="${escapeXml(message)}"/></testcase>`).join('\n');
      const suite = `<testsuite name="run" tests="${this.#globalErrors}" failures="0" skipped="0" errors="${this.#globalErrors}">\n${cases}\n</testsuite>\n</testsuites>`;
      xml = bump('errors', bump('tests', xml)).replace('</testsuites>', suite);
    }
    writeWhole(file, xml.replace(/\u0000(\d+)\u0000/g, (_m, i: string) => sections[Number(i)]));
  }

  /**
   * The matrix where people look first: the GitHub job summary (GITHUB_STEP_SUMMARY), and the Allure results beside
   * conformance.json: the counts, failures first, as the environment its overview shows, and the whole matrix as a
   * global attachment on its own tab. A shard's matrix is partial: the merged run (merge-reports) publishes instead.
   */
  #publish(report: ConformanceReport): void {
    if (this.#config?.githubStepSummary) appendFileSync(this.#config.githubStepSummary, `${markdown(report, 'html')}\n`);
    const resultsDir = join(dirname(this.#outputFile), 'allure-results');
    if (!existsSync(resultsDir)) return;
    const writer = new FileSystemWriter({ resultsDir });
    writer.writeEnvironmentInfo(overview(report));
    const source = `${randomUUID()}-attachment.md`;
    writer.writeAttachment(source, Buffer.from(markdown(report, 'plain')));
    writer.writeGlobals(`${randomUUID()}-globals.json`, { attachments: [{ name: 'Conformance matrix', source, type: 'text/markdown', timestamp: Date.now() }], errors: [] });
    storiesWithVerdicts(resultsDir, report);
  }

  #report(project: string): ConformanceReport {
    const rules = RULES.map((rule): RuleResult => {
      // In title order, not the order tests ended in: two runs of one server give one report.
      const outcomes = [...(this.#outcomes.get(project)?.get(rule.id) ?? [])].sort((a, b) => (a.title < b.title ? -1 : a.title > b.title ? 1 : 0));
      const pick = (v: Verdict) => outcomes.filter((o) => o.verdict === v);
      const verdict: Verdict =
        pick('failed').length > 0 ? 'failed'
        : pick('error').length > 0 ? 'error'
        : pick('passed').length > 0 ? 'passed'
        : 'skipped';
      const details = (verdict === 'passed' ? pick('passed') : pick(verdict)).map((o) => o.detail).filter(Boolean);
      return {
        id: rule.id,
        level: rule.level,
        verdict,
        tests: outcomes.map(({ title, id }) => ({ title, id })),
        detail: outcomes.length === 0 ? 'no test of this rule ran' : [...new Set(details)].join('\n'),
      };
    });
    const run = this.#config
      ? { mode: this.#config.mode, target: describeTarget(this.#config, this.#servers.get(project)?.fault, this.#servers.get(project)?.style), apiVersion: this.#config.apiVersion }
      : { mode: 'unknown', target: this.#unconfigured, apiVersion: 'unknown' };
    const modelCoverage = modelCoverageLine([...this.#modelCoverage.values()]);
    return { ...run, serverTime: this.#serverTime, rules, causes: this.#causes(project, rules), ...(modelCoverage ? { modelCoverage } : {}) };
  }

  /** The observations behind the failed MUST and SHOULD rules, each with the rules that failed on it. */
  #causes(project: string, rules: readonly RuleResult[]): Cause[] {
    const causes = new Map<string, Cause>();
    for (const rule of rules.filter((r) => r.level !== 'INFO' && r.verdict === 'failed')) {
      for (const outcome of this.#outcomes.get(project)?.get(rule.id) ?? []) {
        if (outcome.observation === undefined) continue;
        const cause = causes.get(outcome.observation) ?? { observation: outcome.detail.split('\n')[0], rules: [] };
        if (!cause.rules.includes(rule.id)) cause.rules.push(rule.id);
        causes.set(outcome.observation, cause);
      }
    }
    return [...causes.values()];
  }
}

/**
 * Allure's tree has a node per rule (its story label, src/suite.ts) and counts its tests' statuses only: a rule
 * with one test failed and one passed reads as neither. The story of each test of this run (allure-playwright has
 * written them: this reporter comes after it) ends in its rule's verdict, known only now.
 */
function storiesWithVerdicts(resultsDir: string, report: ConformanceReport): void {
  const verdicts = new Map(report.rules.map((r) => [r.id, `rule ${r.verdict === 'skipped' ? 'unjudged' : LABEL[r.level][r.verdict]}`]));
  for (const name of readdirSync(resultsDir).filter((file) => file.endsWith('-result.json'))) {
    const file = join(resultsDir, name);
    const result = JSON.parse(readFileSync(file, 'utf8')) as { labels?: { name: string; value: string }[] };
    const story = result.labels?.find((label) => label.name === 'story');
    const verdict = story && verdicts.get(story.value.split(' ')[0]);
    if (story === undefined || verdict === undefined || story.value.endsWith(`: ${verdict}`)) continue;
    story.value = `${story.value}: ${verdict}`;
    writeWhole(file, JSON.stringify(result));
  }
}

/** A failure's message whole (Expected, Received, Hint and any diff), without terminal colours or blank lines. */
function wholeMessage(message: string): string {
  return message.replace(/\u001b\[[0-9;]*m/g, '').split('\n').filter((line) => line.trim() !== '').join('\n');
}

/** The last request and answer of a test's evidence, as observationKey reads it: method, URL, status. */
function lastExchange(result: TestResult): string {
  const body = result.attachments.find((a) => a.name === 'evidence')?.body;
  if (body === undefined) return '';
  const exchanges = JSON.parse(body.toString('utf8')) as { method: string; url: string; status?: number; requestHeaders?: Record<string, string> }[];
  const last = exchanges.at(-1);
  return last ? `${last.method} ${last.url} ${Object.keys(last.requestHeaders ?? {}).sort().join(',')} ${last.status ?? 'no answer'}` : '';
}

const markdownFile = (jsonFile: string) => jsonFile.replace(/\.json$/, '.md');

/** Writes a file whole or not at all: a run stopped mid-write leaves no half of a report. */
function writeWhole(file: string, text: string): void {
  const temporary = `${file}.${process.pid}.tmp`;
  writeFileSync(temporary, text);
  renameSync(temporary, file);
}


const LABEL: Record<Level, Record<Verdict, string>> = {
  MUST: { passed: 'pass', failed: 'FAIL', skipped: 'skip', error: 'ERROR' },
  SHOULD: { passed: 'pass', failed: 'warn', skipped: 'skip', error: 'ERROR' },
  INFO: { passed: 'seen', failed: 'seen', skipped: 'skip', error: 'ERROR' },
};

/** The rules people must look at first: MUST failures and rules nobody could judge, then SHOULD warnings, then the MUST and SHOULD rules left unjudged, then the rest. */
function byUrgency(report: ConformanceReport) {
  const failures = report.rules.filter((r) => r.verdict === 'error' || (r.level === 'MUST' && r.verdict === 'failed'));
  const warnings = report.rules.filter((r) => r.level === 'SHOULD' && r.verdict === 'failed');
  const unjudged = report.rules.filter((r) => r.level !== 'INFO' && r.verdict === 'skipped');
  const rest = report.rules.filter((r) => !failures.includes(r) && !warnings.includes(r) && !unjudged.includes(r));
  return { failures, warnings, unjudged, rest };
}

/** The Allure environment, which its report shows on the overview: the failing rules first (as byUrgency), the rules left unjudged, the counts per level, then the run. */
function overview(report: ConformanceReport): Record<string, string> {
  const { failures, warnings, unjudged } = byUrgency(report);
  const ids = (rules: RuleResult[]) => (rules.length === 0 ? 'none' : rules.map((r) => r.id).join(', '));
  const shared = sharedCauseLines(report);
  return {
    failures: ids(failures),
    warnings: ids(warnings),
    ...(shared.length > 0 ? { 'shared observations': `${failureLines(report).join('; ')}; ${shared.join('; ')}` } : {}),
    unjudged: unjudged.length === 0 ? 'none' : unjudgedLines(report).map((line) => line.trim()).join('; ').replace(/^Unjudged: /, ''),
    ...Object.fromEntries(LEVELS.map((level) => [level, counts(report, level)])),
    mode: report.mode,
    target: report.target,
    'API version': report.apiVersion,
    'server time': report.serverTime ?? 'unknown',
    node: process.version,
  };
}

/** The contract's coverage by the catalogue (src/contract/coverage.ts): the same figure as the contract's page. */
const coverage = (): string => coverageLine(coverageOf(annotatedContract().annotated));

function matrix(report: ConformanceReport): string {
  const lines = report.rules.map((r) => `  ${LABEL[r.level][r.verdict].padEnd(5)} ${r.level.padEnd(6)} ${r.id}`);
  // The model's coverage is one of the run's last lines, just below: not printed twice.
  return `\nConformance of ${report.target} (API ${report.apiVersion}, mode ${report.mode}, server time ${report.serverTime ?? 'unknown'})\n${lines.join('\n')}\n${summaryLine(report)}\n${coverage()}\n`;
}

/**
 * The matrix for people, failures first (MUST failures and rules that could not be judged), then SHOULD warnings,
 * then the MUST and SHOULD rules left unjudged with what it takes to judge them, then every other rule: folded in
 * `<details>` where HTML is allowed (reports/conformance.md, the GitHub job summary), under a heading of its own in
 * `plain` Markdown (the Allure report shows HTML tags as text). A failure's table cell holds its first line; its
 * message whole (Received, Expected, Hint) follows the tables, never cut, folded where HTML is allowed.
 */
function markdown(report: ConformanceReport, flavour: 'html' | 'plain'): string {
  const html = flavour === 'html';
  const cell = (text: string) => text.replace(/\|/g, '\\|').replace(/\n/g, html ? '<br>' : '; ');
  const judged = (r: RuleResult) => r.verdict === 'failed' || r.verdict === 'error';
  const table = (rules: RuleResult[]) => [
    '| rule | level | verdict | detail |',
    '|---|---|---|---|',
    ...rules.map((r) => `| ${r.id} | ${r.level} | ${LABEL[r.level][r.verdict]} | ${cell(judged(r) ? `${r.detail.split('\n')[0]} (whole below)` : r.detail)} |`),
    '',
  ];
  const { failures, warnings, unjudged, rest } = byUrgency(report);
  const section = (title: string, rules: RuleResult[], before: string[] = []) => (rules.length === 0 ? [] : [`## ${title} (${rules.length})`, '', ...before, ...table(rules)]);
  const others = `Every other rule (${rest.length})`;
  const fenced = (text: string) => {
    const fence = '`'.repeat(Math.max(3, ...[...text.matchAll(/`+/g)].map((m) => m[0].length + 1)));
    return [`${fence}text`, text, fence];
  };
  const evidence = [...failures, ...warnings].flatMap((r) =>
    html
      ? [`<details><summary>${escapeXml(`${r.id} (${LABEL[r.level][r.verdict]}): ${r.detail.split('\n')[0]}`)}</summary>`, '', ...fenced(r.detail), '', '</details>', '']
      : [`### ${r.id} (${LABEL[r.level][r.verdict]})`, '', ...fenced(r.detail), ''],
  );
  const contractPage = html ? '[contract.html](contract.html)' : 'contract.html';
  return [
    `# Conformance of ${report.target}`,
    '',
    `API ${report.apiVersion}, mode ${report.mode}, server time ${report.serverTime ?? 'unknown'}.`,
    '',
    summaryLine(report),
    '',
    ...[...sharedCauseLines(report), ...failureLines(report)].map((line) => `- ${line}`),
    '',
    `${coverage()} (the annotated contract: ${contractPage} beside the reports).`,
    '',
    ...(report.modelCoverage ? [`${report.modelCoverage}.`, ''] : []),
    ...section('Failures: MUST rules failed, and rules not judged', failures),
    ...section('Warnings: SHOULD rules failed', warnings),
    ...section('Unjudged: MUST and SHOULD rules no test could judge', unjudged, [...unjudgedLines(report).slice(1).map((line) => `- ${line.trim()}`), '']),
    ...(html ? [`<details><summary>${others}</summary>`, '', ...table(rest), '</details>', ''] : [`## ${others}`, '', ...table(rest)]),
    ...(evidence.length > 0 ? ['## The failures whole: Received, Expected, Hint', '', ...evidence] : []),
  ].join('\n');
}
