// The suite's `test`: fixtures own setup and teardown (configuration, the target, the transport that
// records or replays, the API client with its evidence, the server clock), and `rule()` gives every test
// its rule id, level and contract quote.
import { type APIRequestContext, test as base, type TestDetails } from '@playwright/test';
import { parameter } from 'allure-js-commons';
import type { FastifyInstance } from 'fastify';
import { existsSync, readFileSync, writeFileSync, mkdirSync } from 'node:fs';
import { Api, type Reply } from './api.ts';
import { describeTarget, loadConfig, secretsByName, secretsOf, type SuiteConfig, type Target, TARGET_IDS } from './config.ts';
import { Evidence } from './evidence.ts';
import { fixturePath, Masker, RECORD_COMMAND, type RecordedTarget, Replay, REPLAY_BASE_URL, targetFile, writeRecording } from './recording.ts';
import { OPERATION_OF_AREA, ruleById, type RuleId, SEVERITY_OF_LEVEL } from './rules.ts';
import { ServerClock } from './server-clock.ts';
import { TimeTravel, type TimeTravelMode } from './time-travel.ts';
import { RATE_WINDOW_MS, RateLimiter } from './politeness.ts';
import { Transport } from './transport.ts';

export { expect } from './expectations.ts';

interface WorkerFixtures {
  config: SuiteConfig;
  /** One HTTP client per worker: creating one per test costs more than the tests themselves. */
  requestContext: APIRequestContext;
  /** This worker's share of RATE_LIMIT, for a live target; none for the in-process reference server or replay. */
  rateLimiter: RateLimiter | undefined;
  /** The in-process reference server of this worker, when REFERENCE_SERVER=1. */
  referenceServer: FastifyInstance | undefined;
  target: Target;
}

interface TestFixtures {
  transport: Transport;
  api: Api;
  clock: ServerClock;
  /** Moves the server through time, or skips with the reason it cannot. */
  travel: TimeTravel;
  /** Project option: `wait` in the opt-in slow project. */
  timeTravel: TimeTravelMode;
}

interface WorkerOptions {
  /** Project option of the mutation run: the fault of this project's reference servers. */
  fault: string | undefined;
}

export const test = base.extend<TestFixtures, WorkerFixtures & WorkerOptions>({
  fault: [undefined, { option: true, scope: 'worker' }],

  timeTravel: ['test-clock', { option: true }],

  config: [
    async ({}, use) => {
      const config = loadConfig();
      if (config.mode === 'replay') Object.assign(config, recordedSettings(config));
      await use(config);
    },
    { scope: 'worker' },
  ],

  // One reference server per worker when REFERENCE_SERVER=1; each test gets it back in its starting state.
  referenceServer: [
    async ({ config, fault: projectFault }, use) => {
      if (!config.reference || config.mode === 'replay') return use(undefined);
      const [{ buildServer }, { parseFault }, { loadSeed }] = await Promise.all([
        import('../reference/server.ts'),
        import('../reference/faults.ts'),
        import('../reference/world.ts'),
      ]);
      const { seed, clockStart, seedFile } = config.reference;
      const fault = projectFault ?? config.reference.fault;
      const app = await buildServer({ seed, testClock: { start: clockStart ?? Date.now() }, fault: parseFault(fault), seedData: loadSeed(seedFile) });
      await app.listen({ host: '127.0.0.1', port: 0 });
      try {
        await use(app);
      } finally {
        await app.close();
      }
    },
    { scope: 'worker' },
  ],

  target: [
    async ({ config, referenceServer }, use) => {
      if (config.mode === 'replay') return use(replayTarget(config));
      let target = config.target;
      if (referenceServer) {
        const [{ referenceEnvironment }, { loadSeed }] = await Promise.all([import('../reference/environment.ts'), import('../reference/world.ts')]);
        const address = `http://127.0.0.1:${(referenceServer.server.address() as { port: number }).port}`;
        target = loadConfig(Object.fromEntries(referenceEnvironment(loadSeed(config.reference?.seedFile), address, true))).target;
      }
      if (!target) throw new Error('no target: set SUITE_MODE=live with BASE_URL and the rest, or REFERENCE_SERVER=1');
      if (config.mode === 'record') recordTarget(config, target);
      await use(target);
    },
    { scope: 'worker' },
  ],

  requestContext: [
    async ({ playwright }, use) => {
      const request = await playwright.request.newContext();
      try {
        await use(request);
      } finally {
        await request.dispose();
      }
    },
    { scope: 'worker' },
  ],

  rateLimiter: [
    async ({ config }, use, workerInfo) => {
      const share = Math.max(1, Math.floor(config.rateLimit / workerInfo.config.workers));
      await use(config.target && config.mode !== 'replay' ? new RateLimiter(share, RATE_WINDOW_MS) : undefined);
    },
    { scope: 'worker' },
  ],

  transport: async ({ requestContext, config, target, referenceServer, rateLimiter }, use, testInfo) => {
    await referenceServer?.resetState();
    const file = fixturePath(config.fixturesDir, testInfo.file, testInfo.title);
    const masker = new Masker(target.baseUrl, secretsByName(target));
    const replay = config.mode === 'replay' ? await Replay.load(file, masker) : undefined;
    const transport = new Transport(requestContext, config.requestTimeoutMs, {
      record: config.mode === 'record' ? masker : undefined,
      replay,
      limiter: rateLimiter,
      maxRetries: config.maxRetries,
      onRetry: (what) => testInfo.annotations.push({ type: 'retry', description: what }),
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

  api: async ({ transport, target, config }, use, testInfo) => {
    await parameter('mode', config.mode);
    await parameter('target', describeTarget(config));
    await parameter('API version', config.apiVersion);
    const evidence = new Evidence(secretsOf(target));
    try {
      await use(new Api(transport, target, config, evidence));
    } finally {
      if (evidence.exchanges.length > 0) {
        await testInfo.attach('evidence', { body: JSON.stringify(evidence.exchanges, null, 2), contentType: 'application/json' });
      }
    }
  },

  // The server's clock; a test that moves it gets it put back, so no other test sees the move.
  clock: async ({ transport, target }, use, testInfo) => {
    const clock = new ServerClock(transport, target.baseUrl, target.testClockUrl);
    const start = clock.movable ? await clock.now() : undefined;
    try {
      await use(clock);
    } finally {
      if (start !== undefined) await clock.set(start);
      const serverTime = new Date(start ?? (await clock.now())).toISOString();
      testInfo.annotations.push({ type: 'server-time', description: serverTime });
      await parameter('server time', serverTime);
    }
  },

  travel: async ({ clock, timeTravel }, use) => use(new TimeTravel(clock, timeTravel)),
});

function readRecordedTarget(config: SuiteConfig): RecordedTarget {
  const file = targetFile(config.fixturesDir);
  if (!existsSync(file)) throw new Error(`SUITE_MODE=replay needs recorded fixtures, and ${file} does not exist; record them with ${RECORD_COMMAND}`);
  return JSON.parse(readFileSync(file, 'utf8')) as RecordedTarget;
}

/** Replay sends what the recording was made with: its API version and replacement path. */
function recordedSettings(config: SuiteConfig): Pick<SuiteConfig, 'apiVersion' | 'replacementPath'> {
  const { apiVersion, replacementPath } = readRecordedTarget(config);
  return { apiVersion, replacementPath };
}

/** The recorded target at the replay origin; each token is its own placeholder, `<ACCESS_TOKEN>`. */
function replayTarget(config: SuiteConfig): Target {
  const { target } = readRecordedTarget(config);
  const token = (name: string) => (target.tokens.includes(name) ? `<${name}>` : undefined);
  const masker = new Masker(REPLAY_BASE_URL, {});
  return {
    ...pickIds(target),
    baseUrl: REPLAY_BASE_URL,
    testClockUrl: target.testClockUrl === undefined ? undefined : masker.unmask(target.testClockUrl),
    accessToken: token('ACCESS_TOKEN') as string,
    filesReadonlyToken: token('FILES_READONLY_TOKEN') as string,
    noFilesScopeToken: token('NO_FILES_SCOPE_TOKEN') as string,
    pitToken: token('PIT_TOKEN'),
  };
}

const pickIds = (from: Pick<Target, (typeof TARGET_IDS)[number]>) =>
  Object.fromEntries(TARGET_IDS.map((key) => [key, from[key]])) as Pick<Target, (typeof TARGET_IDS)[number]>;

/** Writes fixtures/target.json; every worker writes the same content. */
function recordTarget(config: SuiteConfig, target: Target): void {
  const masker = new Masker(target.baseUrl, secretsByName(target));
  const recorded: RecordedTarget = {
    source: config.reference ? `the reference server (seed ${config.reference.seed})` : 'a live target',
    apiVersion: config.apiVersion,
    replacementPath: config.replacementPath,
    target: {
      ...pickIds(target),
      testClockUrl: target.testClockUrl === undefined ? undefined : masker.text(target.testClockUrl),
      tokens: Object.keys(secretsByName(target)).sort(),
    },
  };
  mkdirSync(config.fixturesDir, { recursive: true });
  writeFileSync(targetFile(config.fixturesDir), `${JSON.stringify(recorded, null, 2)}\n`);
}

/** Title and details of a test of one rule: `UPLOAD-FILES-MAX a sixth file is refused`, tagged and annotated. */
export function rule(id: RuleId, statement: string): [string, TestDetails] {
  const { level, section, quote, area, title } = ruleById(id);
  return [
    `${id} ${statement}`,
    {
      tag: [`@${level}`],
      annotation: [
        { type: 'rule', description: id },
        { type: 'level', description: level },
        { type: 'contract', description: `${section}: "${quote}"` },
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

/** An INFO result: what the server did where the contract leaves it open. */
export function observe(what: string): void {
  test.info().annotations.push({ type: 'observation', description: what });
}

/** Skips the rest of a test whose prerequisite operation failed; the rule that judges it reports the failure. */
export function requireAccepted(reply: Reply, what: string, judgedBy: RuleId): void {
  test.skip(reply.status < 200 || reply.status >= 300, `prerequisite failed: ${what} answered ${reply.status} (judged by ${judgedBy})`);
}
