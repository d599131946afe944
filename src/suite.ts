// The suite's `test`: fixtures own setup and teardown (configuration, the target, the API client with
// its evidence, the server clock), and `rule()` gives every test its rule id, level and contract quote.
import { test as base, type TestDetails } from '@playwright/test';
import { Api, type Reply } from './api.ts';
import { loadConfig, secretsOf, type SuiteConfig, type Target } from './config.ts';
import { Evidence } from './evidence.ts';
import { ruleById, type RuleId } from './rules.ts';
import { ServerClock } from './server-clock.ts';
import { TimeTravel, type TimeTravelMode } from './time-travel.ts';

export { expect } from './expectations.ts';


interface WorkerFixtures {
  config: SuiteConfig;
  target: Target;
}

interface TestFixtures {
  api: Api;
  clock: ServerClock;
  /** Moves the server through time, or skips with the reason it cannot. */
  travel: TimeTravel;
  /** Project option: `wait` in the opt-in slow project. */
  timeTravel: TimeTravelMode;
}

export const test = base.extend<TestFixtures, WorkerFixtures>({
  timeTravel: ['test-clock', { option: true }],

  config: [async ({}, use) => use(loadConfig()), { scope: 'worker' }],

  // A reference server per worker when REFERENCE_SERVER=1: its own clock and state, nothing shared.
  target: [
    async ({ config }, use) => {
      if (config.target) return use(config.target);
      if (!config.reference) {
        throw new Error('SUITE_MODE=replay needs recorded fixtures; set SUITE_MODE=live with a target, or REFERENCE_SERVER=1');
      }
      const [{ buildServer }, { referenceEnvironment }, { loadSeed }, { parseFault }] = await Promise.all([
        import('../reference/server.ts'),
        import('../reference/environment.ts'),
        import('../reference/world.ts'),
        import('../reference/faults.ts'),
      ]);
      const seed = loadSeed();
      const app = await buildServer({ seed: config.reference.seed, testClock: true, fault: parseFault(config.reference.fault), seedData: seed });
      const address = await app.listen({ host: '127.0.0.1', port: 0 });
      const { target } = loadConfig(Object.fromEntries(referenceEnvironment(seed, address, true)));
      try {
        await use(target as Target);
      } finally {
        await app.close();
      }
    },
    { scope: 'worker' },
  ],

  api: async ({ playwright, target, config }, use, testInfo) => {
    const request = await playwright.request.newContext();
    const evidence = new Evidence(secretsOf(target));
    try {
      await use(new Api(request, target, config, evidence));
    } finally {
      if (evidence.exchanges.length > 0) {
        await testInfo.attach('evidence', { body: JSON.stringify(evidence.exchanges, null, 2), contentType: 'application/json' });
      }
      await request.dispose();
    }
  },

  // The server's clock; a test that moves it gets it put back, so no other test sees the move.
  clock: async ({ playwright, target }, use, testInfo) => {
    const request = await playwright.request.newContext();
    const clock = new ServerClock(request, target.baseUrl, target.testClockUrl);
    const start = clock.movable ? await clock.now() : undefined;
    try {
      await use(clock);
    } finally {
      if (start !== undefined) await clock.set(start);
      testInfo.annotations.push({ type: 'server-time', description: new Date(start ?? (await clock.now())).toISOString() });
      await request.dispose();
    }
  },

  travel: async ({ clock, timeTravel }, use) => use(new TimeTravel(clock, timeTravel)),
});

/** Title and details of a test of one rule: `UPLOAD-FILES-MAX a sixth file is refused`, tagged and annotated. */
export function rule(id: RuleId, statement: string): [string, TestDetails] {
  const { level, section, quote } = ruleById(id);
  return [
    `${id} ${statement}`,
    {
      tag: [`@${level}`],
      annotation: [
        { type: 'rule', description: id },
        { type: 'level', description: level },
        { type: 'contract', description: `${section}: "${quote}"` },
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
