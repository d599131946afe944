// The suite's `test`: fixtures own setup and teardown (the configuration, the target, the reference server and its
// reset, the transport that records or replays, the API client with its evidence, the server clock), and `rule()`
// gives every test its rule id, level and contract quote.
// `_baseTest`, not `test`: the browser fixtures' two automatic ones (trace recording, context options) cost about
// 12 ms of stack captures per test and serve nothing here (no browser, traces off).
import { rmSync } from 'node:fs';
import { stripVTControlCharacters } from 'node:util';
import { _baseTest as base, type TestDetails, type TestInfo } from '@playwright/test';
// The synchronous facade: a parameter becomes a message of the test, not a step of its own with a captured stack.
import { parameter, tag } from 'allure-js-commons/sync';
import { UploadState } from './time/aged-state.ts';
import { ANNOTATION, notesOf, REPLAY_OUT_OF_DATE } from './report/annotations.ts';
import { accepted, Api, type Reply } from './client/api.ts';
import { describeTarget, type MutationTrial, pickIds, RECORD_COMMAND, type Secret, secretsByName, SETTINGS, suiteConfig, type SuiteConfig, type Target, type TargetId, trialOf } from './config/config.ts';
import { contractLink } from './report/contract-page.ts';
import { Evidence, judge } from './client/evidence.ts';
import { reproducerDir, writeReproducer } from './client/reproducer.ts';
import { fixturePath, Masker, Replay, writeRecordedTarget, writeRecording } from './client/recording.ts';
import { startReference, type RunningReference } from './reference-server.ts';
import { redactText } from './config/redact.ts';
import { RefreshChain, SpentRefreshTokens } from './client/refresh-chain.ts';
import { OPERATION_OF_AREA, ruleById, type RuleId, SEVERITY_OF_LEVEL } from './contract/rules.ts';
import { Secrets } from './config/secrets.ts';
import { regimeAt, ServerClock } from './time/server-clock.ts';
import type { Reach } from './checks/requests.ts';
import { TimeTravel, type TimeTravelMode } from './time/time-travel.ts';
import { Pace, paceFile, RATE_WINDOW_MS, rateShare, slotFile } from './client/politeness.ts';
import { Transport } from './client/transport.ts';
import { excerpt } from './checks/expectations.ts';
import { type CaseOutcome, checkProperty, describeCase } from './checks/property.ts';
import type { Case } from './contract/domains.ts';
import type { Space } from './contract/generate.ts';
import { type Capabilities, closingOf, kindsOf, type ProfileName, profileOf, walkOf, type WalkName } from './model/generator.ts';
import { figuresOf, modelCoverageLine } from './contract/sequences.ts';
import { coverageMatrixSvg } from './report/model-coverage.ts';
import { Coverage } from './model/coverage.ts';
import { MODEL_START } from './model/clock.ts';
import { Model } from './model/model.ts';
import { describeSequence, runSequences, type SequenceRun } from './model/run.ts';

export { expect } from './checks/expectations.ts';

interface WorkerFixtures {
  config: SuiteConfig;
  /** This worker's share of RATE_LIMIT (all shards' workers share it) at the pace the server allows, for a given live target; none for the in-process reference server or replay. */
  rateLimiter: Pace | undefined;
  /** The in-process reference server of this worker, when REFERENCE_SERVER=1. */
  referenceServer: RunningReference | undefined;
  target: Target;
  /** The configured secrets and those the target issues, learned as they arrive: per worker, since a rotated refresh token passes from test to test. */
  secrets: Secrets;
  /** The refresh token to spend next. */
  refreshChain: RefreshChain;
  /** The mutation run's trials (by name) a test of this worker has caught. */
  caughtTrials: Set<string>;
}

interface TestFixtures {
  /** In a project of several faults (npm run mutation), the trial of this test's rule. */
  trial: MutationTrial | undefined;
  /** The fault of this test's reference server: its project's, or its trial's. */
  serverFault: string | undefined;
  /** In the mutation run, a failed test does not cost its worker. */
  keepWorkerAfterFailure: void;
  /** In the mutation run, the tests of a rule whose fault another test has caught skip. */
  skipCaughtTrial: void;
  /** Only a test the network left without a verdict is run again. */
  onlyNetworkReruns: void;
  /** A SHOULD rule found broken is a warning: the test passes, carrying the finding. */
  shouldWarns: void;
  /** Puts this worker's reference server back in its starting state before each test. */
  freshReference: void;
  /** Every exchange of the test, redacted; attached to its report, and, for a failed or inconclusive test, its reproducer. */
  evidence: Evidence;
  /** Puts the target back in its starting state where the suite can (the reference server), for a test that runs several sequences. */
  restartTarget: () => Promise<void>;
  transport: Transport;
  api: Api;
  clock: ServerClock;
  /** Moves the server through time, or skips with the reason it cannot. */
  travel: TimeTravel;
  /** Project option: `wait` in the opt-in slow project. */
  timeTravel: TimeTravelMode;
}

interface WorkerOptions {
  /** Project option: the fault of this project's reference servers (FAULT, or one per project in the mutation run). */
  fault: string | undefined;
  /** Project option: the style of this project's reference servers (REFERENCE_STYLE, or per project in the mutation run). */
  style: string | undefined;
  /** Project option of the mutation run: several faults, one per rule, served in turn by the worker's server. */
  trials: readonly MutationTrial[] | undefined;
}

/** The tests the network left without a verdict (a fault the transport gave up on): they may run once more. */
const troubled = new WeakSet<TestInfo>();

/** No verdict for a reason of the network (`type`: infrastructure, or inconclusive for a throttle past the retries): the test may run once more. */
function troubledBy(testInfo: TestInfo, type: typeof ANNOTATION.infrastructure | typeof ANNOTATION.inconclusive, what: string): void {
  troubled.add(testInfo);
  testInfo.annotations.push({ type, description: what });
}

/**
 * Playwright retries every failed test, and has no public way to retry only some: a failure that is the server's
 * verdict is marked as its own non-retriable errors are. Checked, so that a Playwright that drops the field fails loudly.
 */
function finalFailure(testInfo: TestInfo): void {
  if (!('_hasNonRetriableError' in testInfo)) throw new Error('Playwright no longer has TestInfo._hasNonRetriableError: only network faults may be re-run (src/suite.ts)');
  (testInfo as unknown as { _hasNonRetriableError: boolean })._hasNonRetriableError = true;
}

/** Hands a worker's resource to its users, then closes it, however they ended. */
async function lend<T>(resource: T, close: (resource: T) => Promise<void>, use: (resource: T) => Promise<void>): Promise<void> {
  try {
    await use(resource);
  } finally {
    await close(resource);
  }
}

// The test-scoped fixtures are `box: 'self'`: no step of their own in the reports, which a reader does not need (an
// error in one is the test's) and which cost two messages to the runner per fixture and test.
export const test = base.extend<TestFixtures, WorkerFixtures & WorkerOptions>({
  fault: [undefined, { option: true, scope: 'worker' }],
  style: [undefined, { option: true, scope: 'worker' }],
  trials: [undefined, { option: true, scope: 'worker' }],

  trial: [
    async ({ trials }, use, testInfo) => use(trialOf(trials, notesOf(testInfo.annotations, ANNOTATION.rule)[0])),
    { box: 'self' },
  ],
  serverFault: [async ({ fault, trial }, use) => use(trial?.fault ?? fault), { box: 'self' }],

  timeTravel: ['test-clock', { option: true }],

  config: [async ({}, use) => use(suiteConfig()), { scope: 'worker' }],

  // One reference server per worker when REFERENCE_SERVER=1, with its project's style and fault.
  referenceServer: [
    async ({ config, fault, style }, use) =>
      config.reference ? lend(await startReference(config.reference, style, fault), (server) => server.close(), use) : use(undefined),
    { scope: 'worker' },
  ],

  target: [
    async ({ config, referenceServer }, use) => {
      const target = referenceServer?.target ?? config.target;
      if (!target) throw new Error('no target: set SUITE_MODE=live with BASE_URL and the rest, or REFERENCE_SERVER=1');
      if (config.mode === 'record') recordTarget(config, target);
      await use(target);
    },
    { scope: 'worker' },
  ],

  secrets: [async ({ target }, use) => use(new Secrets(secretsByName(target), new Set(Object.values(pickIds(target)).filter((id) => id !== undefined)))), { scope: 'worker' }],

  // A real target's spent refresh tokens are remembered (as digests) for later runs; a reference server's come back with each reset.
  refreshChain: [
    async ({ target, config }, use) =>
      use(new RefreshChain(target.tokens.oauthRefreshToken, config.mode === 'live' && !target.freshEachTest ? new SpentRefreshTokens(config.stateDir, new URL(target.baseUrl).origin) : undefined)),
    { scope: 'worker' },
  ],

  rateLimiter: [
    async ({ config }, use, workerInfo) => {
      const share = rateShare(config, workerInfo.config.shard?.total ?? 1, workerInfo.config.workers);
      await use(share && new Pace(share.worker, RATE_WINDOW_MS, share.worker / config.rateLimit, paceFile(config.reportsDir), slotFile(config.reportsDir, workerInfo.parallelIndex)));
    },
    { scope: 'worker' },
  ],

  // npm run mutation: a failed test is what a fault is there for, and every test starts from a reset reference server,
  // so the worker goes on. Playwright replaces the worker after an unexpected failure, at two CPU-seconds a start; the
  // verdicts come from each result's own status, which stays `failed`.
  keepWorkerAfterFailure: [
    async ({ config }, use, testInfo) => {
      await use();
      if (config.mutation && testInfo.status === 'failed') testInfo.expectedStatus = 'failed';
    },
    { auto: true, box: 'self' },
  ],

  // npm run mutation: a trial's fault is killed by any failed test of its rule (or a SHOULD warning), so once one has
  // caught it the rule's other tests in this worker have nothing left to prove of it. They skip, before the server is
  // rebuilt for them: the trials' share of the run's CPU is the tests they run.
  caughtTrials: [async ({}, use) => use(new Set<string>()), { scope: 'worker' }],
  skipCaughtTrial: [
    async ({ trial, caughtTrials }, use, testInfo) => {
      testInfo.skip(trial !== undefined && caughtTrials.has(trial.name), `${trial?.fault} is caught already by another test of ${trial?.rule}`);
      await use();
      if (trial && (testInfo.status === 'failed' || notesOf(testInfo.annotations, ANNOTATION.shouldWarning).length > 0)) caughtTrials.add(trial.name);
    },
    { auto: true, box: 'self' },
  ],

  // A test left without a verdict by the network (a reset, a timeout, a gateway's 5xx, a 429 past the retries) runs
  // once more at the end of the run (playwright.config.ts: retries 1, isolated); any other failure is final, and so is
  // a test that spent a refresh token (a re-run would spend one again).
  onlyNetworkReruns: [
    async ({ refreshChain }, use, testInfo) => {
      if (testInfo.retry > 0) testInfo.annotations.push({ type: ANNOTATION.rerun, description: `run once more at the end of the run: its first run had no verdict for a fault of the network (retry ${testInfo.retry})` });
      const spends = refreshChain.spends;
      await use();
      const network = troubled.has(testInfo) && refreshChain.spends === spends;
      if (testInfo.status !== 'passed' && testInfo.status !== 'skipped' && !network) finalFailure(testInfo);
    },
    { auto: true, box: 'self' },
  ],

  // A SHOULD rule found broken is a warning in every report, never a failed test (a run that exits 0 shows no failed
  // test): the test's errors become `should-warning` annotations (Playwright's HTML; JUnit properties, which the
  // conformance reporter also writes to <system-out>), an attachment and the tag `warning` (Allure's category of that
  // name), and the test passes. The conformance reporter still judges the rule failed, from the annotations. Set up
  // after the other automatic fixtures, so torn down before them and after the evidence fixture, which has attached
  // the evidence and written the reproducer of the failure. A test the network or a check that proved nothing left
  // without a verdict, one out of time, or one whose recordings are out of date found nothing: it stays as it is.
  shouldWarns: [
    async ({ secrets }, use, testInfo) => {
      await use();
      const noVerdict = [ANNOTATION.inconclusive, ANNOTATION.infrastructure].some((type) => notesOf(testInfo.annotations, type).length > 0);
      const outOfDate = testInfo.errors.some((error) => REPLAY_OUT_OF_DATE.test(error.message ?? ''));
      if (notesOf(testInfo.annotations, ANNOTATION.level)[0] !== 'SHOULD' || testInfo.status !== 'failed' || noVerdict || outOfDate) return;
      const findings = testInfo.errors.map((error) => redactText(stripVTControlCharacters(error.message ?? error.value ?? 'the test failed without a message'), secrets.values()));
      for (const finding of findings) testInfo.annotations.push({ type: ANNOTATION.shouldWarning, description: finding });
      tag('warning');
      await testInfo.attach('SHOULD warning', { body: findings.join('\n\n'), contentType: 'text/plain' });
      testInfo.errors.splice(0);
      testInfo.status = 'passed';
    },
    { auto: true, box: 'self' },
  ],

  restartTarget: [
    async ({ referenceServer, serverFault, target, secrets, refreshChain }, use) =>
      use(async () => {
        await referenceServer?.reset(serverFault);
        // What the target issued before is gone with its state (in replay: was gone when the test was recorded).
        if (target.freshEachTest) {
          secrets.forgetIssued();
          refreshChain.restart();
        }
      }),
    { box: 'self' },
  ],

  freshReference: [
    async ({ restartTarget }, use) => {
      await restartTarget();
      await use();
    },
    { auto: true, box: 'self' },
  ],

  evidence: [
    async ({ config, target, secrets }, use, testInfo) => {
      const evidence = new Evidence(() => secrets.byName());
      await use(evidence);
      if (evidence.exchanges.length === 0) return;
      await testInfo.attach('evidence', { body: JSON.stringify(evidence.exchanges, null, 2), contentType: 'application/json' });
      await attachReproducers(testInfo, config, target, evidence);
    },
    { box: 'self' },
  ],

  transport: [
    async ({ config, target, rateLimiter, secrets, evidence }, use, testInfo) => {
      const file = fixturePath(config.fixturesDir, testInfo.file, testInfo.title);
      const masker = new Masker(target.baseUrl, () => secrets.byName());
      const replay = config.mode === 'replay' ? await Replay.load(file, masker) : undefined;
      const note = (type: string) => (what: string) => testInfo.annotations.push({ type, description: redactText(what, secrets.values()) });
      const transport = new Transport(config.requestTimeoutMs, {
        record: config.mode === 'record' ? masker : undefined,
        replay,
        limiter: rateLimiter,
        maxRetries: config.maxRetries,
        onRetry: note(ANNOTATION.retry),
        // Waiting for the server's pace is not the test's own time.
        onWait: (ms) => testInfo.setTimeout(testInfo.timeout + ms),
        onUnreachable: (what) => troubledBy(testInfo, ANNOTATION.infrastructure, redactText(what, secrets.values())),
        onRateLimited: (what) => troubledBy(testInfo, ANNOTATION.inconclusive, redactText(what, secrets.values())),
        onAnswer: (url, incoming) => secrets.learn(url, incoming.headers['content-type'], incoming.body),
        evidence,
      });
      try {
        await use(transport);
      } finally {
        if (transport.recorded.length > 0) writeRecording(file, { test: testInfo.title, interactions: transport.recorded });
        const unused = replay?.unused() ?? [];
        replay?.close();
        // A test that failed may have stopped early; one that passed or skipped must have used its whole recording.
        if (unused.length > 0 && (testInfo.status === 'passed' || testInfo.status === 'skipped')) {
          throw new Error(`Replay: ${unused.length} recorded interactions of ${file} were not used (${unused.join('; ')}); re-record with ${RECORD_COMMAND}.`);
        }
      }
    },
    { box: 'self' },
  ],

  api: [
    async ({ transport, target, config, serverFault, style }, use, testInfo) => {
      parameter('mode', config.mode);
      parameter('target', describeTarget(config, serverFault, style));
      parameter('API version', config.apiVersion);
      const events = {
        onDeprecatedOperation: (what: string) => testInfo.annotations.push({ type: ANNOTATION.deprecatedOperation, description: what }),
        // A URL an answer offered that could not be reached: the network's, like the transport's own faults.
        onUnreachable: (what: string) => troubledBy(testInfo, ANNOTATION.infrastructure, what),
      };
      await use(new Api(transport, target, config, events));
    },
    { box: 'self' },
  ],

  // The server's clock; a test that moves it gets it put back, so no other test sees the move.
  clock: [
    async ({ transport, target }, use, testInfo) => {
      const clock = new ServerClock(transport, target.baseUrl, target.testClockUrl);
      const start = clock.movable ? await clock.begin() : undefined;
      try {
        await use(clock);
      } finally {
        // A clock the test never moved is where the test found it (or has run on since, as a running clock does).
        if (start !== undefined && clock.moved) await clock.set(start);
        const serverTime = new Date(start ?? (await clock.now())).toISOString();
        // An annotation, not an Allure parameter: parameters make a test's history, and a live server's time differs every run.
        testInfo.annotations.push({ type: ANNOTATION.serverTime, description: serverTime });
      }
    },
    { box: 'self' },
  ],

  // A live target whose clock the suite can neither move nor wait out: time passes between runs instead. Never with
  // a test clock (a run judges every instant itself, and its moves make the server's time between runs meaningless)
  // nor in replay or record (the fixtures must not depend on what earlier runs left).
  travel: [
    async ({ clock, timeTravel, config, target, secrets }, use, testInfo) => {
      const rule = notesOf(testInfo.annotations, ANNOTATION.rule)[0] as RuleId | undefined;
      const acrossRuns = config.mode === 'live' && !clock.movable && timeTravel === 'test-clock' && rule !== undefined;
      const state = acrossRuns ? new UploadState(config.stateDir, target, rule, testInfo.title, (text) => redactText(text, secrets.values())) : undefined;
      await use(new TimeTravel(clock, timeTravel, state));
    },
    { box: 'self' },
  ],
});

/**
 * A failed or inconclusive test leaves a reproducer under the rule it failed (and each rule a refused prerequisite
 * failed), attached to its report; a test that passes on a re-run removes its first run's. Not in the mutation run,
 * whose failures are the faults it injects.
 */
async function attachReproducers(testInfo: TestInfo, config: SuiteConfig, target: Target, evidence: Evidence): Promise<void> {
  const rule = notesOf(testInfo.annotations, ANNOTATION.rule)[0];
  if (config.mutation || rule === undefined) return;
  const inconclusive = notesOf(testInfo.annotations, ANNOTATION.inconclusive);
  const failed = (testInfo.status !== 'passed' && testInfo.status !== 'skipped') || inconclusive.length > 0;
  const violations = notesOf(testInfo.annotations, ANNOTATION.violation);
  const rules = [...new Set([...(failed ? [rule] : []), ...violations.map((violation) => violation.split(' ')[0])])];
  const title = testInfo.title.startsWith(`${rule} `) ? testInfo.title.slice(rule.length + 1) : testInfo.title;
  if (rules.length === 0) {
    rmSync(reproducerDir(config.reportsDir, rule, title), { recursive: true, force: true });
    return;
  }
  // The first lines of each error, without the terminal's colours.
  const why = [...testInfo.errors.map((error) => evidence.redact(stripVTControlCharacters(error.message ?? '').split('\n').slice(0, 6).join(' '))), ...inconclusive, ...violations];
  for (const id of rules) {
    const written = writeReproducer(reproducerDir(config.reportsDir, id, title), { rule: id, title: testInfo.title, why, exchanges: evidence.exchanges, baseUrl: target.baseUrl, testClockUrl: target.testClockUrl });
    await testInfo.attach(`reproduce.sh (${id})`, { path: written.script, contentType: 'text/x-shellscript' });
    await testInfo.attach(`exchanges.har (${id})`, { path: written.har, contentType: 'application/json' });
  }
}

/** Writes fixtures/target.json: the target's ids, its test clock and which tokens it has, never their values. */
function recordTarget(config: SuiteConfig, target: Target): void {
  const masker = new Masker(target.baseUrl, secretsByName(target));
  writeRecordedTarget(config, {
    ...pickIds(target),
    testClockUrl: target.testClockUrl === undefined ? undefined : masker.text(target.testClockUrl),
    freshEachTest: target.freshEachTest,
    tokens: Object.keys(secretsByName(target)).sort(),
  });
}

/** Title and details of a test of one rule: `UPLOAD-FILES-MAX a sixth file is refused`, tagged and annotated. */
export function rule(id: RuleId, statement: string): [string, TestDetails] {
  const { level, section, quote, area, title } = ruleById(id);
  return [
    `${id} ${statement}`,
    {
      tag: [`@${level}`],
      annotation: [
        { type: ANNOTATION.rule, description: id },
        { type: ANNOTATION.level, description: level },
        { type: ANNOTATION.contract, description: `${section}: "${quote}" ${contractLink(suiteConfig().contractUrl, section)}` },
        // Read by allure-playwright as labels: epic = area, feature = operation, story = the rule.
        { type: 'allure.label.epic', description: area },
        { type: 'allure.label.feature', description: OPERATION_OF_AREA[area] },
        { type: 'allure.label.story', description: `${id} ${title}` },
        { type: 'allure.label.severity', description: SEVERITY_OF_LEVEL[level] },
        { type: 'tms', description: section },
      ],
    },
  ];
}

/** How a server answered, for an observation: `200 (accepted)`, `400 (refused)`. */
export const outcome = (reply: Reply) =>
  `${reply.status} (${reply.status < 300 ? 'accepted' : reply.status < 400 ? 'redirected' : reply.status < 500 ? 'refused' : 'server error'})`;

/** Skips the test naming every optional setting of `keys` that is not set. */
export function requireSettings(target: Target, keys: readonly (Secret | TargetId)[]): void {
  const value = (key: Secret | TargetId) => (key in target.tokens ? target.tokens[key as Secret] : target[key as TargetId]);
  const missing = keys.filter((key) => value(key) === undefined).map((key) => SETTINGS[key].env);
  test.skip(missing.length > 0, `${missing.join(', ')} ${missing.length > 1 ? 'are' : 'is'} not set`);
}

/** An INFO result: what the server did where the contract leaves it open. */
export function observe(what: string): void {
  test.info().annotations.push({ type: ANNOTATION.observation, description: what });
}

const answer = (reply: Reply) => `${reply.status} ${excerpt(reply)}`.trim();

/** Ends a check that proved nothing: no verdict on its rule, and never a pass. */
export function inconclusive(reason: string): never {
  test.info().annotations.push({ type: ANNOTATION.inconclusive, description: reason });
  throw new Error(`Inconclusive: ${reason}`);
}

/**
 * A prerequisite the contract guarantees did not hold: that is a failure of the rule that guarantees it (reported
 * against that rule), and the rest of this test is not judged. Where that rule is a MUST, the test fails, so that
 * Playwright's counts, JUnit, Allure and the exit status all show the failure; its own rule stays unjudged, with the
 * reason (the conformance reporter). A SHOULD rule's prerequisite is a warning, never a failed test: the test skips.
 */
export function prerequisiteFailed(guaranteedBy: RuleId, what: string): never {
  const why = `prerequisite failed: ${what} (a failure of ${guaranteedBy})`;
  test.info().annotations.push({ type: ANNOTATION.violation, description: `${guaranteedBy} ${what}` });
  if (ruleById(guaranteedBy).level !== 'MUST') test.skip(true, why);
  test.info().annotations.push({ type: ANNOTATION.prerequisite, description: why });
  throw new Error(`${why[0].toUpperCase()}${why.slice(1)}; the rest of this test is not judged`);
}

/** A request the contract guarantees must be accepted; a refusal fails `guaranteedBy` and skips the rest of this test. */
export function requireAccepted(reply: Reply, what: string, guaranteedBy: RuleId): void {
  judge(reply, { expected: 'acceptance', held: accepted(reply) });
  if (accepted(reply)) return;
  if (reply.status === 429) inconclusive(`${what} was still answered 429 (rate limited) after the retries`);
  prerequisiteFailed(guaranteedBy, `${what} answered ${answer(reply)}`);
}

/** Steps and requests at once overlap only against a live target. */
const overlapping = (config: SuiteConfig) => config.mode === 'live';

/**
 * Requests in flight together against a live target; one after the other where the run is recorded or replayed:
 * the answers to requests that overlap depend on which the server took first (an upload's slug, a session's id),
 * and a fixture must be made again byte for byte. The model's steps at once go the same way (Real.overlap).
 */
export async function atOnce<T>(sends: readonly (() => Promise<T>)[]): Promise<T[]> {
  if (overlapping(suiteConfig())) return Promise.all(sends.map((send) => send()));
  const answers: T[] = [];
  for (const send of sends) answers.push(await send());
  return answers;
}

/** The executionId of a session's first reply; a refusal, or a reply without one, fails SESSION-START and the test skips. */
export function sessionStarted(reply: Reply): string {
  requireAccepted(reply, 'the first message of a session', 'SESSION-START');
  const id = (reply.json() as { executionId?: unknown } | undefined)?.executionId;
  return typeof id === 'string' && id !== '' ? id : prerequisiteFailed('SESSION-START', 'the first reply of a session carried no executionId');
}

/**
 * A refusal proves a rule only beside its control: the same request without the property under test, which must be
 * accepted. A control the contract guarantees (`guaranteedBy`) that is refused fails that rule, and the check is
 * inconclusive: no verdict, never a pass. A control it does not guarantee (the replacement path's shapes are not
 * shown) that is refused makes the check not applicable: it skips, saying why.
 */
export function requireControl(control: Reply, what: string, guaranteedBy: RuleId | 'not guaranteed'): void {
  judge(control, { expected: 'acceptance', held: accepted(control) });
  if (accepted(control)) return;
  const refused = `the control, ${what}, answered ${answer(control)}`;
  // A 429 refuses nothing in particular: only the check is lost, no rule is broken.
  if (control.status !== 429) {
    if (guaranteedBy === 'not guaranteed') {
      test.skip(true, `not applicable: ${refused}; the contract does not guarantee it, so a refusal of the variant would prove nothing`);
    }
    test.info().annotations.push({ type: ANNOTATION.violation, description: `${guaranteedBy} ${what} answered ${answer(control)}` });
  }
  inconclusive(`${refused}: a refusal of the variant would prove nothing`);
}

/** The time a property's requests may take against a live target: a few hundred at the rate a shard's worker keeps to. */
const PROPERTY_TIMEOUT_MS = 10 * 60_000;

/**
 * A rule checked over its domain (src/checks/property.ts): every request of the pairwise cover, then samples drawn
 * from GENERATOR_SEED. A failure is reported as the smallest request that shows it; a refused control the contract
 * guarantees fails `guaranteedBy` and leaves the check inconclusive; a run where no request applied skips.
 */
export async function forEvery(space: Space, check: (request: Case) => Promise<CaseOutcome>): Promise<void> {
  const config = suiteConfig();
  // A live target's rate limit spreads a domain's requests over minutes.
  if (config.mode !== 'replay') test.setTimeout(Math.max(test.info().timeout, PROPERTY_TIMEOUT_MS));
  const run = await checkProperty(space, config.generator.seed, config.shrinkMs > 0, check);
  if (run.halted) throw run.halted;
  const total = run.pairwise + run.samples;
  observe(`${total} requests: ${run.pairwise} covering every pair of values of ${run.varied.join(', ') || 'its one request'}, then ${run.samples} drawn from seed ${run.seed}`);
  if (run.failure) {
    const { request, shrinks, error } = run.failure;
    const found = config.shrinkMs > 0
      ? `the smallest failing request: ${describeCase(request, run.varied)} (shrunk in ${shrinks} steps; GENERATOR_SEED=${run.seed} draws the same samples)`
      : `the first failing request: ${describeCase(request, run.varied)} (not shrunk: SHRINK_SECONDS=0; GENERATOR_SEED=${run.seed} draws the same samples)`;
    throw Object.assign(new Error(`${found}\n\n${(error as Error)?.message ?? String(error)}`), { stack: undefined });
  }
  const { refusedControl } = run;
  if (refusedControl) requireControl(refusedControl.refusedControl, refusedControl.what, refusedControl.guaranteedBy);
  test.skip(run.notApplicable.length >= total, `not applicable to any request of the domain: ${run.notApplicable[0]}`);
  if (run.notApplicable.length > 0) observe(`not applicable to ${run.notApplicable.length} of them, as ${run.notApplicable[0]}`);
}

/** Moves a test clock to each request's instant, once per run of requests at the same one; without one, stays. */
export function instantKeeper(travel: TimeTravel, movable: boolean): (iso: string) => Promise<void> {
  let at: string | undefined;
  return async (iso) => {
    if (!movable || iso === at) return;
    await travel.jumpTo(iso);
    at = iso;
  };
}

/** What the server's clock reaches: every instant with a test clock, else the regime it is in now. */
export async function reachOf(clock: ServerClock): Promise<Reach> {
  return { movable: clock.movable, regime: regimeAt(await clock.startOrNow()) };
}

/**
 * Sequences drawn per test, and operations per sequence: one run of 8 to 16, so that a live run stays within minutes.
 * As many operations as two runs of 4 to 8, for one closing step (deterministic, its requests the same in each run).
 */
export const SEQUENCES = 1;
export const MAX_OPERATIONS = 16;

/** The rows of specs/model.spec.ts, the deep run's budget shared among them. */
const MODEL_ROWS = 9;

/**
 * A rule over sequences of operations (src/model/): sequences of the profile drawn from GENERATOR_SEED, or the walk of
 * every pair of kinds with values so drawn, each from the target's starting state, every answer judged by the model. A
 * disagreement is shrunk to the shortest sequence that still breaks its rule (this test's own first) and reported as
 * those requests; a rule other than this test's own fails that rule, and this one is left unjudged, as a failed
 * prerequisite is. What the sequences covered goes in an annotation, which the conformance reporter adds up.
 */
export async function forEverySequence(profile: ProfileName | WalkName, fixtures: Pick<TestFixtures, 'api' | 'clock' | 'restartTarget'> & { target: Target; refreshChain: RefreshChain }): Promise<void> {
  const { api, clock, restartTarget, target, refreshChain } = fixtures;
  const config = suiteConfig();
  const { depth } = config;
  if (config.mode !== 'replay') test.setTimeout(Math.max(test.info().timeout, PROPERTY_TIMEOUT_MS, depth.deep ? depth.budgetMs / MODEL_ROWS + PROPERTY_TIMEOUT_MS : 0));
  const own = notesOf(test.info().annotations, ANNOTATION.rule)[0] as RuleId;
  const begun = clock.movable ? await clock.startOrNow() : undefined;
  // The refresh token is spent here only where the target is put back before each sequence: elsewhere the refresh checks spend it, once a run.
  const chain = target.freshEachTest && target.oauthClientId !== undefined && target.tokens.oauthClientSecret !== undefined ? refreshChain : undefined;
  const can: Capabilities = {
    nonEmail: target.nonEmailConversationId !== undefined,
    movable: clock.movable,
    foreign: target.foreignAgentId !== undefined && target.foreignLocationId !== undefined && target.tokens.foreignAccess !== undefined,
    otherLocation: target.foreignLocationId !== undefined && target.tokens.foreignAccess !== undefined && (target.foreignConversationId ?? target.foreignContactId) !== undefined,
    grants: [...(chain ? (['refresh'] as const) : []), ...(target.tokens.agencyAccess === undefined ? [] : (['location'] as const))],
  };
  const coverage = new Coverage(kindsOf(can), { movable: can.movable, otherLocation: can.otherLocation, foreign: can.foreign, grants: can.grants.length > 0 });
  let sequences = 0;
  // The evidence of a failure is the shortest sequence's exchanges, not every run's while shrinking (a walk's are hundreds).
  const exchanges = api.evidence.exchanges;
  const before = exchanges.length;
  let sequenceAt = before;
  // The exchanges of the sequence each rule's failure is reported with.
  const shortest = new Map<RuleId, typeof exchanges>();
  const setup = async () => {
    sequenceAt = exchanges.length;
    await restartTarget();
    // Without a test clock, the server's now. With one, MODEL_START: a clock that began there and that no sequence moved
    // is still there (or has run on by seconds, within the model's slack at an edge).
    const now = begun === undefined ? await clock.now() : clock.moved || begun !== MODEL_START ? await clock.set(MODEL_START) : MODEL_START;
    coverage.begin();
    sequences += 1;
    // A deep run's progress: minutes of sequences, each line what they covered so far.
    if (depth.deep) process.stderr.write(`model: ${own}, sequence ${sequences}; ${modelCoverageLine([coverage.record()])}\n`);
    return { model: new Model(now, clock.movable, { label: 'ACCESS_TOKEN', auth: 'access' }), real: { api, clock, target, chain, log: [], overlap: overlapping(config), coverage } };
  };
  const walk = profile === 'every pair' || profile === 'at once' || profile === 'histories';
  const draw = walk ? { walk: walkOf(profile, can) } : { weighted: profileOf(profile, can), maxCommands: depth.deep ? 2 * MAX_OPERATIONS : MAX_OPERATIONS, closing: closingOf(profile, can) };
  const runs = depth.deep ? 1_000_000 : walk ? 1 : SEQUENCES;
  // A quick run's sequences and the shrinking of a failure take SHRINK_SECONDS at most: the shortest found by then is reported.
  const shrink = config.shrinkMs > 0;
  const options = { seed: config.generator.seed, runs, shrink, timeLimitMs: depth.deep ? depth.budgetMs / MODEL_ROWS : shrink ? config.shrinkMs : undefined };
  const run: SequenceRun = await runSequences(draw, own, { ...options, failing: (rule) => shortest.set(rule, exchanges.slice(sequenceAt)) }, setup);
  exchanges.splice(before, Infinity, ...(run.failure ? (shortest.get(run.failure.rule) ?? []) : []));
  if (run.halted) throw run.halted;
  const record = coverage.record();
  test.info().annotations.push({ type: ANNOTATION.modelCoverage, description: JSON.stringify(record) });
  await test.info().attach('model coverage', { body: coverageMatrixSvg([record]) ?? '', contentType: 'image/svg+xml' });
  const skipped = run.notApplicable.length > 0 ? `; ${run.notApplicable.length} steps not applicable, as ${run.notApplicable[0].replace(/^\(not applicable: |\)$/g, '')}` : '';
  const drawn = walk ? `the walk of ${{ 'at once': 'every pair of kinds at once', histories: 'related uploads in every pair of values', 'every pair': 'every ordered pair of kinds' }[profile]}` : `${run.sequences} ${run.sequences === 1 ? 'sequence' : 'sequences'} of at most ${MAX_OPERATIONS} operations`;
  const missing = walk && profile === 'every pair' ? (figuresOf([record])?.missing ?? []) : [];
  observe(`${drawn} (${run.steps} steps) drawn from seed ${run.seed}${skipped}; ${modelCoverageLine([record])}${missing.length > 0 ? `; not followed: ${missing.join(', ')}` : ''}`);
  if (!run.failure) return;
  const { rule: broken, message, sequence, shrinks } = run.failure;
  const how = shrink ? `the shortest sequence found (shrunk in ${shrinks} steps` : `the first failing sequence (not shrunk: SHRINK_SECONDS=0`;
  const found = `${message}\n\n${how}; GENERATOR_SEED=${run.seed} draws it again):\n${describeSequence(sequence)}`;
  // Another rule's SHOULD finding is its warning; this test's rule was judged on every sequence all the same (the model
  // notes a SHOULD disagreement and goes on).
  if (broken !== own && ruleById(broken).level !== 'MUST') {
    test.info().annotations.push({ type: ANNOTATION.violation, description: `${broken} ${found}` });
    return;
  }
  if (broken !== own) prerequisiteFailed(broken, found);
  throw Object.assign(new Error(found), { stack: undefined });
}
