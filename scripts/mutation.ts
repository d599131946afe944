// npm run mutation: the suite, live, against a clean reference server of each style (the baselines), and, in the same
// Playwright run, the tests of each fault's own rule against a server with that fault (`npm run mutation -- <fault>…`: only those faults), as many at a time as
// there are cores, the faults of different rules sharing a worker (trialProjects); a fault its rule does not catch runs
// again with every test, to see what else notices it. A fault is
// killed when the rule it breaks fails (INFO: when that rule's observation changes). Writes reports/mutation.md and
// reports/mutation.json; exits non-zero when the baseline has a MUST failure, a MUST fault survives, or a fault is
// caught only by rules other than its own.
// It also runs the whole suite against K correct servers drawn from the reference's style space (reference/style.ts)
// by a seed, the commit's by default (`--styles=K`, `--seed=S`): each must get the default style's verdict on every
// MUST and SHOULD rule, and a difference is shrunk to the single choice that causes it. `--baseline=FILE` takes the
// default style's baseline from a live run's conformance.json instead of making it (CI's one recording).
import { execFileSync, spawn } from 'node:child_process';
import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import { join } from 'node:path';
import { faultCatalogue, type Fault, type FaultName } from '../reference/faults.ts';
import { type MutationProject, type MutationTrial, mutationConfig, SETTINGS } from '../src/config/config.ts';
import type { ConformanceReport } from '../src/report/conformance-reporter.ts';
import { whenWritten } from '../src/report/when-written.ts';
import type { Level, RuleId } from '../src/contract/rules.ts';
import { DIMENSIONS, parseStyle, sampleStyle, STYLE_NAMES, type StyleName, styleSpec } from '../reference/style.ts';

const ROOT = join(import.meta.dirname, '..');
const OUT = join(ROOT, 'reports', 'mutation');
/** Playwright's CLI run by node itself: npx would cost a second of CPU per run. */
export const PLAYWRIGHT_CLI = join(ROOT, 'node_modules', '@playwright', 'test', 'cli.js');

interface Run {
  name: string;
  seconds: number;
  report: ConformanceReport;
}

const baselineOf = (style: StyleName) => (style === 'default' ? 'baseline' : `baseline-${style}`);

/**
 * The faults also run against the alt style: those whose detection goes through what the styles choose differently
 * (URLs on another origin and their discovery, the signed URL's delivery and form, the answer's shape, identifiers).
 */
const ALT_SAMPLE: readonly FaultName[] = [
  'upload-urls-of-first-file',
  'upload-missing-url',
  'upload-ext-first-file-only',
  'secure-first-file-only',
  'secure-window-5-seconds-long',
  'signed-url-anonymous',
  'signed-scope-unchecked',
  'signed-never-expires',
  'signed-not-bound',
  'signed-unverified',
  'session-interaction-counted',
  'tenant-files-unchecked',
];

export interface Trial {
  /** The fault's name, `@alt` added in the alt style. */
  name: string;
  fault: Fault;
  style: StyleName;
}

export type Outcome = 'killed' | 'survived' | 'caught by other rules only';

export interface FaultResult {
  fault: string;
  rule: string;
  level: Level;
  outcome: Outcome;
  /** Rules that failed (or errored) under this fault and not in the baseline, among those run: its own, or all when it missed. */
  failingRules: string[];
  seconds: number;
}

/**
 * The trials grouped so that one worker start serves many: project k of a style holds the k-th fault of each rule
 * that has one, so there are as many projects as the most faults a rule has, not one per fault. A rule's tests run
 * in each of its projects against that project's fault, each trial reported on its own.
 */
export function trialProjects(trials: readonly Trial[]): MutationProject[] {
  const slots = new Map<string, MutationTrial[][]>();
  const taken = new Map<string, number>();
  for (const { name, fault, style } of trials) {
    const k = taken.get(`${style} ${fault.rule}`) ?? 0;
    taken.set(`${style} ${fault.rule}`, k + 1);
    const ofStyle = slots.get(style) ?? [];
    (ofStyle[k] ??= []).push({ name, fault: fault.name, rule: fault.rule });
    slots.set(style, ofStyle);
  }
  return [...slots].flatMap(([style, ofStyle]) => ofStyle.map((slot, k) => ({ name: `faults-${style}-${k + 1}`, style, rules: slot.map((trial) => trial.rule), trials: slot })));
}

/** One Playwright run for all the given projects (baselines, styles, faults), written under `dir`; one report per project, or per trial of a project of several. */
function runProjects(dir: string, projects: MutationProject[], workers: number): Promise<Map<string, Run>> {
  const reportsDir = join(OUT, dir);
  const names = projects.flatMap((project) => project.trials?.map((trial) => trial.name) ?? [project.name]);
  rmSync(reportsDir, { recursive: true, force: true });
  return new Promise((resolve, reject) => {
    // Its own explicit configuration: nothing of the environment or a developer's .env (a FAULT, a SEED_FILE) takes part.
    const config = mutationConfig(reportsDir, projects);
    const child = spawn(process.execPath, [PLAYWRIGHT_CLI, 'test', `--workers=${workers}`], {
      cwd: ROOT,
      env: { ...process.env, [SETTINGS.explicit.env]: JSON.stringify(config) },
      stdio: 'ignore',
    });
    child.on('error', reject);
    child.on('exit', () => {
      try {
        const read = (name: string) => JSON.parse(readFileSync(join(reportsDir, `${name}.json`), 'utf8')) as ConformanceReport & { seconds: number };
        // Each fault's seconds: the time of its tests, from its own report.
        resolve(new Map(names.map((name) => [name, { name, seconds: read(name).seconds, report: read(name) }])));
      } catch (error) {
        reject(new Error(`the mutation run wrote no report for every project: ${(error as Error).message}`));
      }
    });
  });
}

const broken = (report: ConformanceReport) => report.rules.filter((r) => r.verdict === 'failed' || r.verdict === 'error').map((r) => r.id);

export function judge(fault: Fault, run: Run, baseline: Run): FaultResult {
  const before = new Set(broken(baseline.report));
  const failingRules = broken(run.report).filter((id) => !before.has(id));
  const own = (report: ConformanceReport) => report.rules.find((r) => r.id === fault.rule);
  // An INFO rule never fails: its fault shows as a changed observation.
  const ownCaught = fault.level === 'INFO' ? own(run.report)?.detail !== own(baseline.report)?.detail : failingRules.includes(fault.rule);
  const outcome: Outcome = ownCaught ? 'killed' : failingRules.length > 0 ? 'caught by other rules only' : 'survived';
  return { fault: fault.name, rule: fault.rule, level: fault.level, outcome, failingRules, seconds: run.seconds };
}

async function main(): Promise<void> {
  mkdirSync(OUT, { recursive: true });
  const started = process.hrtime.bigint();
  // `npm run mutation -- <fault>…` runs only the named faults, for a developer working on them.
  const { named, styles: sampled, seed, baseline: baselineFile } = parseArguments(process.argv.slice(2));
  const unknown = named.filter((name) => !faultCatalogue().some((fault) => fault.name === name));
  if (unknown.length > 0) throw new Error(`not in reference/faults.ts: ${unknown.join(', ')}`);
  const faults = faultCatalogue().filter((fault) => named.length === 0 || named.includes(fault.name));
  const limit = Math.max(1, availableParallelism());
  const trials: Trial[] = [
    ...faults.map((fault) => ({ name: fault.name, fault, style: 'default' as const })),
    ...faults.filter((fault) => ALT_SAMPLE.includes(fault.name as FaultName)).map((fault) => ({ name: `${fault.name}@alt`, fault, style: 'alt' as const })),
  ];
  const project = (trial: Trial): MutationProject => ({ name: trial.name, fault: trial.fault.name, style: trial.style });
  // One Playwright run for every named style's baseline (a correct server of any style passes, and every rule gets one
  // verdict in each) and every fault with its own rule's tests: the baselines, the longest projects, go first.
  // `--baseline=FILE`: the default style's verdicts from a live run of the reference (CI records once for every proof,
  // beside this run: .ci/run), read once the runs are done; any correct run of the default style gives them, whatever
  // its seeds and clock.
  const baselineProjects = STYLE_NAMES.filter((style) => !(baselineFile && style === 'default')).map((style): MutationProject => ({ name: baselineOf(style), style }));
  const sampledProjects = sampled.map((style, i): MutationProject => ({ name: `sampled-${i + 1}`, style }));
  const own = await runProjects('own-rule', [...baselineProjects, ...sampledProjects, ...trialProjects(trials)], limit);
  const given: Run | undefined = baselineFile ? { name: baselineOf('default'), seconds: 0, report: JSON.parse(await whenWritten(baselineFile, 'the run whose verdicts --baseline names')) as ConformanceReport } : undefined;
  const baselines = new Map([...baselineProjects.map(({ name }): [string, Run] => [name, own.get(name) as Run]), ...(given ? [[given.name, given] as [string, Run]] : [])]);
  const baseline = baselines.get(baselineOf('default')) as Run;
  const judged = (trial: Trial, runs: Map<string, Run>) => ({ ...judge(trial.fault, runs.get(trial.name) as Run, baselines.get(baselineOf(trial.style)) as Run), fault: trial.name });
  const first = trials.map((trial) => judged(trial, own));
  // Rarely needed, so dear: what every other test makes of a fault its own rule missed.
  const missed = trials.filter((_, i) => first[i].outcome !== 'killed');
  const all = missed.length > 0 ? await runProjects('all-tests', missed.map((trial) => project(trial)), limit) : new Map<string, Run>();
  const results = trials.map((trial, i) => (all.has(trial.name) ? judged(trial, all) : first[i]));
  const styleResults = await judgeSampledStyles(sampledProjects, own, baseline, limit);
  const totalSeconds = Number(process.hrtime.bigint() - started) / 1e9;

  const mustFailures = (run: Run) => run.report.rules.filter((r) => r.level === 'MUST' && (r.verdict === 'failed' || r.verdict === 'error')).map((r) => r.id);
  const baselineMust = STYLE_NAMES.flatMap((style) => mustFailures(baselines.get(baselineOf(style)) as Run).map((id) => (style === 'default' ? id : `${id} (${style} style)`)));
  // Every named style is a correct server: each judges every rule as the default does.
  const styleDifferences = STYLE_NAMES.filter((style) => style !== 'default').flatMap((style) => {
    const verdict = new Map((baselines.get(baselineOf(style)) as Run).report.rules.map((r) => [r.id, r.verdict]));
    return baseline.report.rules.filter((r) => verdict.get(r.id) !== r.verdict).map((r) => `${r.id}: ${r.verdict} in the default style, ${verdict.get(r.id)} in the ${style} style`);
  });
  // A fault fails the run when it is a MUST fault that survives, or when only other rules catch it.
  const failedFaults = results.filter((r) => r.outcome === 'caught by other rules only' || (r.level === 'MUST' && r.outcome === 'survived'));
  const problems = [
    ...baselineMust.map((id) => `the baseline fails MUST rule ${id}`),
    ...styleDifferences,
    ...styleResults.flatMap((result) =>
      result.differences.map(
        (difference) => `${difference} in the sampled style ${result.name} (seed ${seed}: ${result.style}); caused by ${result.causes.join(', ') || 'no single choice: the choices together'}`,
      ),
    ),
    ...failedFaults.map((r) =>
      r.outcome === 'survived' ? `MUST fault ${r.fault} survives` : `${r.fault} is caught only by ${r.failingRules.join(', ')}, not by ${r.rule}`,
    ),
  ];
  const count = (level: Level, outcome: Outcome) => results.filter((r) => r.level === level && r.outcome === outcome).length;
  const summary = (['MUST', 'SHOULD', 'INFO'] as Level[])
    .map((level) => `${level}: ${count(level, 'killed')} killed, ${count(level, 'survived')} survived, ${count(level, 'caught by other rules only')} caught by other rules only`)
    .join(' | ');

  writeFileSync(
    join(ROOT, 'reports', 'mutation.json'),
    `${JSON.stringify({ totalSeconds, parallel: limit, baseline: { ...(baselineFile ? { from: baselineFile } : { seconds: baseline.seconds }), mustFailures: baselineMust, styleDifferences }, sampledStyles: { seed, styles: styleResults }, faults: results, problems }, null, 2)}\n`,
  );
  const rows = results.map((r) => `| ${r.fault} | ${r.level} | ${r.rule} | ${r.outcome} | ${r.failingRules.join(', ') || '–'} | ${r.seconds.toFixed(1)} |`);
  writeFileSync(
    join(ROOT, 'reports', 'mutation.md'),
    [
      '# Mutation run: every fault of the reference server against the suite',
      '',
      `${faults.length} faults, ${trials.length - faults.length} of them also in the alt style (\`name@alt\`), and the baselines of the ${STYLE_NAMES.length} named styles, ${limit} at a time, ${totalSeconds.toFixed(0)} s in all. Baselines: ${baselineMust.length} MUST failures, ${styleDifferences.length} rules judged differently by style.`,
      '',
      `${styleResults.length} correct styles sampled with seed \`${seed}\` (\`npm run mutation -- --seed=${seed} --styles=${styleResults.length}\` repeats them), each judged against the default style on every MUST and SHOULD rule:`,
      '',
      ...styleResults.map((result) => `- ${result.name} \`${result.style}\`: ${result.differences.length === 0 ? 'the same verdicts' : `${result.differences.join('; ')}; caused by ${result.causes.join(', ') || 'the choices together'}`}`),
      '',
      summary,
      '',
      '| fault | level | rule it breaks | outcome | rules failing (not in the baseline) | seconds |',
      '|---|---|---|---|---|---|',
      ...rows,
      '',
      problems.length ? `Problems:\n\n${problems.map((p) => `- ${p}`).join('\n')}\n` : 'No problems: every MUST fault is killed by its own rule.\n',
    ].join('\n'),
  );
  console.log(`Mutation: ${summary}; ${styleResults.length} sampled styles (seed ${seed}), ${styleResults.filter((r) => r.differences.length > 0).length} judged differently; ${totalSeconds.toFixed(0)} s; reports/mutation.md`);
  for (const problem of problems) console.log(`  problem: ${problem}`);
  // The plain closing line CI systems read: a fault passes when it is caught as it must be, a sampled style when it is judged as the default.
  const differingStyles = styleResults.filter((r) => r.differences.length > 0).length;
  const failed = failedFaults.length + differingStyles;
  console.log(`mutation: ${results.length + styleResults.length - failed} passed, ${failed} failed`);
  process.exitCode = problems.length > 0 ? 1 : 0;
}

/** How many correct styles are sampled by default: enough to explore the space commit after commit within the run's budget. */
const DEFAULT_STYLE_SAMPLES = 4;

/** `<fault>…`, `--styles=K` (sampled styles, default 4) and `--seed=S` (default: this commit, so CI explores the space over time). */
export function parseArguments(args: readonly string[]): { named: string[]; styles: string[]; seed: string; baseline?: string } {
  const option = (name: string) => args.find((arg) => arg.startsWith(`--${name}=`))?.slice(name.length + 3);
  const unknown = args.filter((arg) => arg.startsWith('--') && !/^--(styles|seed|baseline)=/.test(arg));
  if (unknown.length > 0) throw new Error(`unknown options ${unknown.join(' ')}; known: --styles=K (sampled correct styles), --seed=S (their seed), --baseline=FILE (the default style's baseline, already made)`);
  const count = Number(option('styles') ?? DEFAULT_STYLE_SAMPLES);
  if (!Number.isInteger(count) || count < 0) throw new Error(`--styles=${option('styles')} is not a whole number of styles to sample`);
  const seed = option('seed') ?? commitSeed();
  return { named: args.filter((arg) => !arg.startsWith('--')), styles: Array.from({ length: count }, (_, i) => styleSpec(sampleStyle(`${seed}:${i}`))), seed, baseline: option('baseline') };
}

/** This commit's short hash, or a fixed word outside a git checkout. */
export function commitSeed(): string {
  try {
    return execFileSync('git', ['rev-parse', '--short=12', 'HEAD'], { cwd: ROOT, encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }).trim();
  } catch {
    return 'no-commit';
  }
}

export interface StyleResult {
  name: string;
  style: string;
  /** `RULE: verdict in the default style, verdict here`, for every MUST and SHOULD rule judged otherwise. */
  differences: string[];
  /** The single choices of the style that alone bring a difference back. */
  causes: string[];
}

/** The MUST and SHOULD rules (of those a run ran, when it ran only some) it judges otherwise than the baseline, each in words. */
export function verdictDifferences(run: Run, baseline: Run, only?: readonly string[]): { rules: RuleId[]; words: string[] } {
  const verdict = new Map(run.report.rules.map((r) => [r.id, r.verdict]));
  const differing = baseline.report.rules.filter((r) => r.level !== 'INFO' && (only === undefined || only.includes(r.id)) && verdict.get(r.id) !== r.verdict);
  return { rules: differing.map((r) => r.id as RuleId), words: differing.map((r) => `${r.id}: ${r.verdict} in the default style, ${verdict.get(r.id)} here`) };
}

/**
 * Each sampled style against the default's verdicts. A style judged otherwise is shrunk: each of its choices alone
 * (`default+dimension=value`) runs the differing rules' tests, and those that bring a difference back are its causes.
 */
async function judgeSampledStyles(projects: readonly MutationProject[], runs: Map<string, Run>, baseline: Run, workers: number): Promise<StyleResult[]> {
  const judged = projects.map(({ name, style }) => ({ name, style: style as string, ...verdictDifferences(runs.get(name) as Run, baseline) }));
  const singles = judged.flatMap(({ name, style, rules }) => {
    if (rules.length === 0) return [];
    const point = parseStyle(style);
    const defaults = parseStyle('default');
    return DIMENSIONS.filter((dimension) => point[dimension] !== defaults[dimension]).map((dimension): MutationProject & { of: string; choice: string } => ({
      name: `${name}-${dimension}`,
      style: `default+${dimension}=${point[dimension]}`,
      rules,
      of: name,
      choice: `${dimension}=${point[dimension]}`,
    }));
  });
  const shrunk = singles.length > 0 ? await runProjects('shrink', singles, workers) : new Map<string, Run>();
  return judged.map(({ name, style, words }) => ({
    name,
    style,
    differences: words,
    causes: singles.filter((single) => single.of === name && verdictDifferences(shrunk.get(single.name) as Run, baseline, single.rules).rules.length > 0).map((single) => single.choice),
  }));
}

if (process.argv[1] === import.meta.filename) await main();
