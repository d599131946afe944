// npm run independent: the suite, live, against a server of the contract written apart from this project
// (../shared/bench/independent-server/, read-only: run in place). Its seven correct styles must pass with every MUST
// rule judged that its world allows (a rule skipped only for an optional setting that world lacks), and get the
// reference's verdict on every MUST and SHOULD rule, or a difference this run names with the server's own reason.
// Each MUST fault must fail a MUST rule; each SHOULD fault must warn (a SHOULD rule fails, no MUST rule does); an
// INFO fault may be observed, never failed or warned about. `--faults=K` runs K faults drawn by a seed (the commit's
// by default, `--seed=S`), `--faults=all` (the default) every one, `--only=F70,F83` those; `--styles=a,c` limits the
// baselines; `--throttled` runs styles e, f and g with their throttles on and every baseline at the suite's default
// pace, as a user's run would go (without it the throttles are off and runs go as fast as the server allows);
// `--reference=FILE` takes the reference's verdicts from a report already made (CI: its one recording); `--server=DIR`
// runs a copy of the server instead (one with faults written blind into it).
// Writes reports/independent.md and reports/independent.json; exits non-zero when a baseline fails or a fault is
// judged otherwise than its level asks.
import { execFileSync, spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { createWriteStream, existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import { join, resolve } from 'node:path';
import { childEnvironment } from '../src/config/config.ts';
import { SERVER_VARIABLES } from '../reference/config.ts';
import type { ConformanceReport, RuleResult } from '../src/report/conformance-reporter.ts';
import { whenWritten } from '../src/report/when-written.ts';
import { commitSeed, PLAYWRIGHT_CLI } from './mutation.ts';

const ROOT = join(import.meta.dirname, '..');
const OUT = join(ROOT, 'reports', 'independent');
/** The bench's server; `--server=DIR` runs a copy of it instead (faults written blind into it, say). */
const SERVER_DIR = resolve(ROOT, '..', 'shared', 'bench', 'independent-server');
const STYLES = ['a', 'c', 'd', 'e', 'f', 'g', 'h'] as const;
/** Where a style serves the API under a path prefix (its README): the test clock stays at the root. */
const API_PREFIX: Record<string, string> = { g: '/gw/v3api' };

/** The server's world, as its README gives it, under the suite's variable names. */
const WORLD: Record<string, string> = {
  LOCATION_ID: 'loc_main',
  FOREIGN_LOCATION_ID: 'loc_other',
  CONVERSATION_ID: 'conv_email_1',
  CONTACT_ID: 'contact_1',
  AGENT_ID: 'agent_active',
  INACTIVE_AGENT_ID: 'agent_inactive',
  ACCESS_TOKEN: 'bench-oauth-bc540266e6cc7904',
  PIT_TOKEN: 'bench-pit-ddd392fdcaa2ca89',
  FILES_READONLY_TOKEN: 'bench-files-d7f5333903aee81a',
  NO_FILES_SCOPE_TOKEN: 'bench-noscope-1ef9a6cb75a0e662',
  FOREIGN_ACCESS_TOKEN: 'bench-other-57c3fe7b10fefb38',
  OAUTH_CLIENT_ID: 'client-1',
  OAUTH_CLIENT_SECRET: 'bench-secret-35d8e54c191d83eb',
  OAUTH_REFRESH_TOKEN: 'bench-refresh-0671cd04d005cc26',
  NON_EMAIL_CONVERSATION_ID: 'conv_sms_1',
  FOREIGN_AGENT_ID: 'agent_other',
  FOREIGN_CONVERSATION_ID: 'conv_email_other',
  FOREIGN_CONTACT_ID: 'contact_other',
  COMPANY_ID: 'comp_main',
  AGENCY_ACCESS_TOKEN: 'bench-agency-93becdaf2c7c9928',
};

/** The suite's default pace (a user's run), for `--throttled`. */
const DEFAULT_RATE_LIMIT = 50;
/** A run at this pace or slower waits on it more than it computes: it takes no core of its own. */
const PACED = 120;
/** As fast as the server allows: style d answers 429 past 150 requests in any 10 s, whoever sends them. */
const fastRateLimit = (style: string) => (style === 'd' ? PACED : 1000);
/** Styles that hold every answer a while (g: 80-250 ms): a run of one waits more than it computes, as a paced one does. */
const SLOW_ANSWERS = new Set(['g']);
/** The styles' own throttles (e and f per token, g per client): off unless `--throttled` (their defaults then). */
const THROTTLES = ['THROTTLE_E', 'THROTTLE_F', 'THROTTLE_G'];

/**
 * The bench's faults the suite is known to miss, one a line (`F91<TAB>why`), in scripts/independent-known-misses.tsv:
 * a drawn sample (CI's) leaves them out, so that its verdict is on what the suite claims to catch; `--faults=all` and
 * `--only` run them all the same, and the report counts them. The list empties as the suite catches them.
 */
export const KNOWN_MISSES_FILE = join(ROOT, 'scripts', 'independent-known-misses.tsv');
export function knownMisses(file = KNOWN_MISSES_FILE): Map<string, string> {
  const lines = readFileSync(file, 'utf8').split('\n').filter((line) => line.trim() !== '' && !line.startsWith('#'));
  return new Map(lines.map((line) => {
    const [id, why] = line.split('\t');
    if (!/^F\d+$/.test(id) || (why ?? '').trim().length < 10) throw new Error(`${file}: "${line}" is not a fault id, a tab and why it is missed`);
    return [id, why.trim()];
  }));
}

/** Faults that cannot show in a style, by the server's README: never drawn against it. */
const NOT_IN_STYLE: Record<string, string[]> = {
  // Style f answers every upload without Content-Length 411, before the size could be judged.
  F70: ['f'],
};

export interface Fault {
  id: string;
  name: string;
  level: 'must' | 'should' | 'info';
  deviation: string;
}

interface Job {
  name: string;
  /** The folder of the server's server.mjs. */
  server: string;
  style: string;
  fault?: Fault;
  rateLimit: number;
  throttled: boolean;
  /** A part of the suite only (`--grep`, or `--grep-invert` where `invert`), of the job named `of`: a slow style's runs go in two. */
  part?: { grep: string; invert: boolean; of: string };
}

interface Done extends Job {
  seconds: number;
  exit: number | null;
  report?: ConformanceReport;
  /** The run's last lines, where it left no report. */
  tail: string;
  /** Not run to its end: the other part of its MUST fault had caught the fault. */
  stopped?: true;
}

/** A skip for want of a setting the server's world does not have: the one kind of unjudged a baseline may keep. */
const unsetSetting = (rule: RuleResult) => rule.verdict === 'skipped' && / (is|are) not set\b/.test(rule.detail);

function faults(server: string): Fault[] {
  const listing = execFileSync(process.execPath, [join(server, 'server.mjs'), '--list-faults'], { encoding: 'utf8' });
  return listing.trim().split('\n').map((line) => {
    const [id, name, level, deviation] = line.split('\t');
    return { id, name, level: level as Fault['level'], deviation };
  });
}

/** The server on a free port of 127.0.0.1, its port read from PORT_FILE (outside its read-only folder). */
async function startServer(job: Job, dir: string): Promise<{ baseUrl: string; stop(): void }> {
  const portFile = join(dir, 'port');
  const child = spawn(process.execPath, [join(job.server, 'server.mjs')], {
    env: childEnvironment(
      { STYLE: job.style, FAULT: job.fault?.id ?? 'none', PORT: '0', PORT_FILE: portFile, ...(job.throttled ? {} : Object.fromEntries(THROTTLES.map((name) => [name, '0']))) },
      ['STYLE', 'FAULT', 'PORT', 'PUBLIC_BASE_URL', 'LOG', 'SEED', ...THROTTLES],
    ),
    stdio: 'ignore',
  });
  // The file exists before its port is written in it (writeFileSync creates, then writes): wait for the digits.
  const written = () => (existsSync(portFile) ? readFileSync(portFile, 'utf8').trim() : '');
  for (let i = 0; i < 100 && !/^\d+$/.test(written()); i++) await new Promise((r) => setTimeout(r, 50));
  const port = written();
  if (!/^\d+$/.test(port)) throw new Error(`the independent server wrote no port to ${portFile} within 5 s`);
  return { baseUrl: `http://127.0.0.1:${port}`, stop: () => child.kill() };
}

async function run(job: Job, stop: AbortSignal): Promise<Done> {
  if (stop.aborted) return { ...job, seconds: 0, exit: null, tail: 'not run: the other part caught the fault', stopped: true };
  const dir = join(OUT, job.name);
  rmSync(dir, { recursive: true, force: true });
  mkdirSync(dir, { recursive: true });
  const server = await startServer(job, dir);
  const started = Date.now();
  // The environment less every setting of the suite and of the reference, then the server's world: nothing of a
  // developer's shell takes part. A .env is read too, but the environment wins and every setting used is given here.
  const env = childEnvironment({
    ...WORLD,
    SUITE_MODE: 'live',
    BASE_URL: `${server.baseUrl}${API_PREFIX[job.style] ?? ''}`,
    TEST_CLOCK_URL: `${server.baseUrl}/__clock`,
    REPORTS_DIR: join(dir, 'reports'),
    STATE_DIR: join(dir, 'state'),
    RATE_LIMIT: String(job.rateLimit),
    // A fault run is judged on its verdicts: a faulty server may trip the preflight on purpose.
    SKIP_PREFLIGHT: job.fault ? '1' : '0',
    // No failure or warning is shrunk: the verdict is the same, and shrinking a walk's warning (a style's SHOULD choice)
    // took a baseline some 15 s. The report prints the seed, which draws the sequence again to be shrunk.
    SHRINK_SECONDS: '0',
    CI: '1',
  }, SERVER_VARIABLES);
  let output = '';
  // Written as it comes, so that a long run can be watched.
  const file = createWriteStream(join(dir, 'output.txt'));
  const exit = await new Promise<number | null>((done) => {
    // Verdicts are all this run reads: the conformance reporter alone. A MUST fault is caught by its first failing
    // test: the rest of the run would judge nothing more of it (a failed test also costs a fresh worker). Playwright
    // counts a failure towards --max-failures only once no retry is left: none is kept for it.
    const args = ['test', '--reporter=dot,./src/report/conformance-reporter.ts', ...(job.fault?.level === 'must' ? ['--max-failures=1', '--retries=0'] : []), ...(job.part ? [job.part.invert ? '--grep-invert' : '--grep', job.part.grep] : [])];
    const child = spawn(process.execPath, [PLAYWRIGHT_CLI, ...args], { cwd: ROOT, env, stdio: ['ignore', 'pipe', 'pipe'] });
    const take = (chunk: Buffer) => {
      output += chunk;
      file.write(chunk);
    };
    child.stdout.on('data', take);
    child.stderr.on('data', take);
    child.on('close', done);
    stop.addEventListener('abort', () => child.kill(), { once: true });
  });
  server.stop();
  file.end();
  const reportFile = join(dir, 'reports', 'conformance.json');
  const report = existsSync(reportFile) ? (JSON.parse(readFileSync(reportFile, 'utf8')) as ConformanceReport) : undefined;
  return { ...job, seconds: (Date.now() - started) / 1000, exit, report, tail: output.trim().split('\n').slice(-3).join(' / '), ...(stop.aborted ? { stopped: true as const } : {}) };
}

/**
 * Each MUST fault's parts share a stop: the first to fail a MUST rule has caught the fault (a correct style fails
 * none, baselineProblems), and the other part, running or not begun, has nothing left to show: it stops. So a MUST
 * fault on a slow style costs the time of its part that catches it, not of both.
 */
const stops = new Map<string, AbortController>();
const stopOf = (job: Job) => {
  const key = job.part?.of ?? job.name;
  if (!stops.has(key)) stops.set(key, new AbortController());
  return stops.get(key) as AbortController;
};

/** Runs the jobs, `limit` at a time, in order. */
async function pool(jobs: Job[], limit: number, each: (done: Done) => void): Promise<Done[]> {
  const results: Done[] = [];
  let next = 0;
  const worker = async () => {
    while (next < jobs.length) {
      const job = jobs[next++];
      const stop = stopOf(job);
      const done = await run(job, stop.signal);
      if (job.part && job.fault?.level === 'must' && done.report?.rules.some((rule) => rule.level === 'MUST' && rule.verdict === 'failed')) stop.abort();
      each(done);
      results.push(done);
    }
  };
  await Promise.all(Array.from({ length: limit }, worker));
  return results;
}

/**
 * A style that holds every answer runs its baseline in two parts, the model's rows and the rest, each against a
 * server of its own, at once: a run's requests go one after the other (the test clock is shared), and the model's
 * sequences alone are half of them.
 */
const MODEL_ROWS_TITLE = 'rules over sequences';

/** A job, or the two parts of it where its style holds every answer (a baseline or a fault run alike). */
function partsOf(job: Job): Job[] {
  if (!SLOW_ANSWERS.has(job.style)) return [job];
  return [
    { ...job, part: { grep: MODEL_ROWS_TITLE, invert: true, of: job.name } },
    { ...job, name: `${job.name}-model`, part: { grep: MODEL_ROWS_TITLE, invert: false, of: job.name } },
  ];
}

const RANK: Record<RuleResult['verdict'], number> = { failed: 3, error: 2, passed: 1, skipped: 0 };

/**
 * The parts of one job as one run: each rule as the part that judged it, the worse where both did; a part stopped
 * once the other caught its fault judged nothing.
 */
function mergeParts(all: Done[]): Done {
  const parts = all.filter((part) => !part.stopped);
  const [first] = parts;
  const whole = { ...first, name: first.part?.of ?? first.name, part: undefined };
  if (parts.length === 1) return whole;
  const reports = parts.map((part) => part.report);
  const merged = reports.every((report) => report !== undefined)
    ? {
        ...(reports[0] as ConformanceReport),
        rules: (reports[0] as ConformanceReport).rules.map((rule) => {
          const judged = reports.map((report) => report?.rules.find((other) => other.id === rule.id) ?? rule).filter((other) => other.tests.length > 0);
          if (judged.length === 0) return rule;
          const worst = judged.reduce((a, b) => (RANK[b.verdict] > RANK[a.verdict] ? b : a));
          return { ...worst, tests: judged.flatMap((other) => other.tests), detail: judged.map((other) => other.detail).filter(Boolean).join('\n') };
        }),
      }
    : undefined;
  return { ...whole, seconds: Math.max(...parts.map((part) => part.seconds)), exit: parts.find((part) => part.exit !== 0)?.exit ?? 0, report: merged, tail: parts.map((part) => part.tail).join(' / ') };
}

/** Where a baseline falls short: a MUST rule failed, in error or left unjudged for another reason than a missing setting. */
function baselineProblems(done: Done): string[] {
  if (!done.report) return [`style ${done.style}: the run left no report (exit ${done.exit}): ${done.tail}`];
  return done.report.rules
    .filter((rule) => rule.level === 'MUST' && rule.verdict !== 'passed' && !unsetSetting(rule))
    .map((rule) => `style ${done.style}: MUST ${rule.id} ${rule.verdict}: ${rule.detail.split('\n')[0]}`);
}

/** Every MUST and SHOULD rule the reference and this style judge otherwise, with this run's reason. */
function differences(done: Done, reference: ConformanceReport): string[] {
  const here = new Map(done.report?.rules.map((rule) => [rule.id, rule]));
  return reference.rules
    .filter((rule) => rule.level !== 'INFO' && here.get(rule.id)?.verdict !== rule.verdict)
    .map((rule) => {
      const own = here.get(rule.id);
      return `${rule.level} ${rule.id}: ${rule.verdict} on the reference, ${own?.verdict ?? 'not run'} here: ${(own?.detail ?? '').split('\n').filter(Boolean).slice(0, 3).join(' ')}`;
    });
}

export type Outcome = 'caught' | 'warned' | 'observed' | 'not observed' | 'missed' | 'warned only' | 'failed a MUST rule' | 'warned, and failed a MUST rule' | 'no verdict';

/**
 * What the suite made of a fault, against the baseline of its style: the MUST and SHOULD rules that fail here and
 * not there, and whether that is what the fault's level asks (`problem`): a MUST fault fails a MUST rule; a SHOULD
 * fault warns, failing no MUST rule; an INFO fault fails and warns about nothing (an INFO rule's changed detail is
 * its observation).
 */
export function outcomeOf(fault: Fault, report: ConformanceReport | undefined, baseline: ConformanceReport | undefined): { outcome: Outcome; failing: string[]; problem: boolean } {
  if (!report) return { outcome: 'no verdict', failing: [], problem: true };
  const before = new Map(baseline?.rules.map((rule) => [rule.id, rule]));
  const failing = report.rules.filter((rule) => rule.level !== 'INFO' && rule.verdict === 'failed' && before.get(rule.id)?.verdict !== 'failed');
  const must = failing.some((rule) => rule.level === 'MUST');
  const warned = failing.some((rule) => rule.level === 'SHOULD');
  const observed = report.rules.some((rule) => rule.level === 'INFO' && before.has(rule.id) && before.get(rule.id)?.detail !== rule.detail);
  const outcome: Outcome =
    fault.level === 'must' ? (must ? 'caught' : warned ? 'warned only' : 'missed')
    : fault.level === 'should' ? (must ? (warned ? 'warned, and failed a MUST rule' : 'failed a MUST rule') : warned ? 'warned' : 'missed')
    : must || warned ? (must ? 'failed a MUST rule' : 'warned') : observed ? 'observed' : 'not observed';
  const wanted: Outcome[] = fault.level === 'must' ? ['caught'] : fault.level === 'should' ? ['warned'] : ['observed', 'not observed'];
  return { outcome, failing: failing.map((rule) => `${rule.level} ${rule.id}`), problem: !wanted.includes(outcome) };
}

/** `--faults=K|all`, `--only=F01,F02`, `--seed=S`, `--styles=a,c,d`, `--parallel=N`, `--throttled`, `--reference=FILE`, `--server=DIR`. */
export function parseArguments(args: readonly string[]) {
  const option = (name: string) => args.find((arg) => arg.startsWith(`--${name}=`))?.slice(name.length + 3);
  const unknown = args.filter((arg) => !/^--(faults|only|seed|styles|parallel|reference|server)=/.test(arg) && arg !== '--throttled');
  if (unknown.length > 0) throw new Error(`unknown arguments ${unknown.join(' ')}; known: --faults=K|all, --only=F01,F02, --seed=S, --styles=a,c,d,e,f,g,h, --parallel=N, --throttled, --reference=FILE, --server=DIR`);
  const faultCount = option('faults') ?? 'all';
  if (faultCount !== 'all' && !/^\d+$/.test(faultCount)) throw new Error(`--faults=${faultCount}: a whole number of faults to draw, or all`);
  const styles = (option('styles') ?? STYLES.join(',')).split(',');
  const unknownStyle = styles.find((style) => !(STYLES as readonly string[]).includes(style));
  if (unknownStyle) throw new Error(`--styles: ${unknownStyle} is not a style of the independent server (${STYLES.join(', ')})`);
  return {
    faultCount,
    only: option('only')?.split(',').filter(Boolean),
    seed: option('seed') ?? commitSeed(),
    styles,
    parallel: Number(option('parallel') ?? availableParallelism()),
    throttled: args.includes('--throttled'),
    reference: option('reference'),
    server: resolve(option('server') ?? SERVER_DIR),
  };
}

/**
 * K faults drawn by the seed, each level in its share of the catalogue (largest remainders), so that a draw costs
 * about the same whatever the seed: a MUST fault's run stops at its first failure, another level's runs whole. Within
 * a level, a fault's rank is a digest of the seed and its id. Or the named ones. Each runs against a style drawn the
 * same way among those it can show in.
 */
export function draw(all: Fault[], count: string, seed: string, styles: string[], only?: string[], knownMisses: ReadonlySet<string> = new Set()): Omit<Job, 'throttled' | 'server'>[] {
  const unknown = only?.filter((id) => !all.some((fault) => fault.id === id));
  if (unknown?.length) throw new Error(`--only: ${unknown.join(', ')} not among the server's faults (node server.mjs --list-faults)`);
  const rank = (text: string) => createHash('sha256').update(`${seed}:${text}`).digest().readUInt32BE(0);
  // A drawn sample leaves the known misses out (every one of them still runs with --faults=all or --only).
  const drawable = all.filter((fault) => !knownMisses.has(fault.id));
  const sample = !only && count !== 'all';
  const chosen = only ? all.filter((fault) => only.includes(fault.id)) : count === 'all' ? all : stratified(drawable, Number(count), rank);
  // A sample's length is its slowest jobs': a slow style (each of its runs some 4 minutes) takes at most one of its
  // faults, so that no seed draws a CI run past its budget. Every fault still meets every style with --faults=all.
  let slowTaken = false;
  return chosen.flatMap((fault) => {
    const allowed = styles.filter((style) => !NOT_IN_STYLE[fault.id]?.includes(style));
    const quick = allowed.filter((style) => !SLOW_ANSWERS.has(style));
    const possible = sample && slowTaken && quick.length > 0 ? quick : allowed;
    if (possible.length === 0) return [];
    const style = possible[rank(`${fault.id}:style`) % possible.length];
    slowTaken ||= SLOW_ANSWERS.has(style);
    return [{ name: `${fault.id}-${style}`, style, fault, rateLimit: fastRateLimit(style) }];
  });
}

/** K faults, each level's share of them by largest remainders, the lowest-ranked of each level. */
function stratified(all: Fault[], count: number, rank: (text: string) => number): Fault[] {
  const levels = [...new Set(all.map((fault) => fault.level))].map((level) => {
    const faults = all.filter((fault) => fault.level === level).sort((x, y) => rank(x.id) - rank(y.id));
    const share = (count * faults.length) / all.length;
    return { faults, take: Math.floor(share), remainder: share - Math.floor(share) };
  });
  const left = Math.min(count, all.length) - levels.reduce((sum, level) => sum + level.take, 0);
  for (const level of [...levels].sort((x, y) => y.remainder - x.remainder).slice(0, left)) level.take += 1;
  return levels.flatMap((level) => level.faults.slice(0, level.take));
}

/** The reference's verdicts: a report already made (CI: its one recording), or a live run against the reference server in its default style. */
async function referenceVerdicts(file: string | undefined): Promise<ConformanceReport> {
  // Read once written: the run that makes it may still be going.
  if (file) return JSON.parse(await whenWritten(file, 'the run whose verdicts --reference names')) as ConformanceReport;
  const dir = join(OUT, 'reference');
  rmSync(dir, { recursive: true, force: true });
  const env = childEnvironment({ SUITE_MODE: 'live', REFERENCE_SERVER: '1', REPORTS_DIR: dir, CI: '1' });
  await new Promise((done) => spawn(process.execPath, [PLAYWRIGHT_CLI, 'test'], { cwd: ROOT, env, stdio: 'ignore' }).on('close', done));
  return JSON.parse(readFileSync(join(dir, 'conformance.json'), 'utf8')) as ConformanceReport;
}

async function main(): Promise<void> {
  const { faultCount, only, seed, styles, parallel, throttled, reference: referenceFile, server } = parseArguments(process.argv.slice(2));
  if (!existsSync(join(server, 'server.mjs'))) {
    console.error(`npm run independent: no independent server at ${server}; ${server === SERVER_DIR ? 'it comes with ../shared beside this checkout' : 'give --server the folder of its server.mjs'}`);
    process.exit(1);
  }
  const started = Date.now();
  const catalogue = faults(server);
  const misses = knownMisses();
  const faultJobs: Job[] = draw(catalogue, faultCount, seed, styles, only, new Set(misses.keys())).map((job) => ({ ...job, server, throttled: false }));
  const baselineJobs: Job[] = styles.map((style) => ({ name: `baseline-${style}`, server, style, rateLimit: throttled ? DEFAULT_RATE_LIMIT : fastRateLimit(style), throttled }));
  const pace = throttled ? `throttles on, RATE_LIMIT=${DEFAULT_RATE_LIMIT}` : 'throttles off, unpaced';
  const again = only ? `--only=${only.join(',')}` : `--faults=${faultCount} --seed=${seed}`;
  const left = faultCount !== 'all' && !only ? `, the ${misses.size} known misses of scripts/independent-known-misses.tsv left out of the draw` : '';
  console.log(`Independent server: styles ${styles.join(', ')} (${pace}); ${faultJobs.length} of ${catalogue.length} faults (npm run independent -- ${again})${left}, ${parallel} at a time`);
  const print = (done: Done) => console.log(`  ${done.name}: ${done.stopped ? 'stopped, the other part having caught the fault' : `exit ${done.exit}`}, ${done.seconds.toFixed(0)} s`);
  // Paced runs wait more than they compute (a quarter of a core each): twice as many at a time as there are cores,
  // beside the others, which compute: as many at a time as there are cores, the baselines first.
  const jobs = [...baselineJobs, ...faultJobs].flatMap(partsOf);
  const paced = jobs.filter((job) => job.rateLimit <= PACED || SLOW_ANSWERS.has(job.style));
  const [reference, runs] = await Promise.all([
    referenceVerdicts(referenceFile),
    Promise.all([pool(paced, 2 * parallel, print), pool(jobs.filter((job) => !paced.includes(job)), parallel, print)]).then((parts) => parts.flat()),
  ]);
  // Each job whole again: its parts, where it ran in two, merged.
  const whole = [...baselineJobs, ...faultJobs].map((job) => mergeParts(runs.filter((done) => done.name === job.name || done.name === `${job.name}-model`)));
  const baselines = whole.filter((done) => !done.fault);
  const problems = baselines.flatMap(baselineProblems);
  const baselineRows = baselines.map((done) => ({ style: done.style, seconds: Math.round(done.seconds), exit: done.exit, differences: done.report ? differences(done, reference) : [] }));
  const kills = whole
    .filter((done): done is Done & { fault: Fault } => done.fault !== undefined)
    .sort((x, y) => x.fault.id.localeCompare(y.fault.id))
    .map((done) => ({ ...done.fault, style: done.style, seconds: Math.round(done.seconds), ...outcomeOf(done.fault, done.report, baselines.find((b) => b.style === done.style)?.report) }));
  for (const kill of kills.filter((k) => k.problem)) problems.push(`${kill.level.toUpperCase()} fault ${kill.id} ${kill.name} (style ${kill.style}): ${kill.outcome}${kill.failing.length ? ` (${kill.failing.join(', ')})` : ''}`);
  const totalSeconds = Math.round((Date.now() - started) / 1000);
  const count = (level: Fault['level'], ...outcomes: Outcome[]) => `${kills.filter((k) => k.level === level && outcomes.includes(k.outcome)).length}/${kills.filter((k) => k.level === level).length}`;
  const tally = `MUST caught ${count('must', 'caught')}, SHOULD warned ${count('should', 'warned')}, INFO observed ${count('info', 'observed')} (never failed or warned: ${count('info', 'observed', 'not observed')})`;
  mkdirSync(join(ROOT, 'reports'), { recursive: true });
  writeFileSync(join(ROOT, 'reports', 'independent.json'), `${JSON.stringify({ seed, only, throttled, totalSeconds, baselines: baselineRows, faults: kills, problems }, null, 2)}\n`);
  const md = [
    '# The suite against the independent server',
    '',
    `Seed \`${seed}\`${only ? `, faults ${only.join(', ')}` : ''}, ${pace}, ${totalSeconds} s. Faults: ${tally}.`,
    '',
    '## Correct styles',
    '',
    ...baselineRows.flatMap((row) => [
      `- style ${row.style}: exit ${row.exit}, ${row.seconds} s; ${row.differences.length} MUST/SHOULD verdicts differ from the reference's${row.differences.length ? ':' : '.'}`,
      ...row.differences.map((d) => `  - ${d.replace(/\|/g, '\\|')}`),
    ]),
    '',
    '## Faults',
    '',
    '| fault | level | style | deviation | outcome | rules failing or warning (not in the baseline) | seconds |',
    '|---|---|---|---|---|---|---|',
    ...kills.map((k) => `| ${k.id} ${k.name} | ${k.level.toUpperCase()} | ${k.style} | ${k.deviation.replace(/\|/g, '\\|')} | ${k.outcome} | ${k.failing.join(', ')} | ${k.seconds} |`),
    '',
    ...(problems.length ? ['## Problems', '', ...problems.map((p) => `- ${p}`), ''] : []),
  ].join('\n');
  writeFileSync(join(ROOT, 'reports', 'independent.md'), md);
  console.log(`Independent: baselines ${baselines.filter((done) => baselineProblems(done).length === 0).length}/${baselines.length} passed; faults: ${tally}; ${totalSeconds} s; reports/independent.md`);
  for (const problem of problems) console.log(`  problem: ${problem}`);
  // The closing line CI reads: each baseline and each fault run is one check.
  const failed = baselines.filter((done) => baselineProblems(done).length > 0).length + kills.filter((k) => k.problem).length;
  console.log(`independent: ${baselines.length + kills.length - failed} passed, ${failed} failed`);
  process.exit(problems.length > 0 ? 1 : 0);
}

if (process.argv[1] === import.meta.filename) await main();
