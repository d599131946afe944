import { defineConfig } from '@playwright/test';
import { commandConfig, type MutationTrial } from './src/config/config.ts';
import { contractLink } from './src/report/contract-page.ts';
import { testsOfRule } from './src/contract/rules.ts';
import type { TimeTravelMode } from './src/time/time-travel.ts';

const config = commandConfig();
// A given target's own test clock is shared by everything that talks to it: while a test moves it, no other test
// may run. The reference server runs one per worker, so it keeps both workers. Replay is bound by CPU: on two cores
// the reporters take their share, and a second worker cost 2.7 s of CPU (a Playwright start, and the contention) for
// 2.5 s of wall time (npm run bench).
// The blob report exists to merge shards (npx playwright merge-reports): an unsharded run does not write it.
const sharded = process.argv.some((arg) => arg.startsWith('--shard'));
const sharedClock = config.mode !== 'replay' && config.target?.testClockUrl !== undefined;

export default defineConfig<{ timeTravel: TimeTravelMode }, { fault: string | undefined; style: string | undefined; trials: readonly MutationTrial[] | undefined }>({
  testDir: 'specs',
  globalSetup: './src/global-setup.ts',
  outputDir: `${config.reportsDir}/test-results`,
  fullyParallel: true,
  forbidOnly: true,
  // Against a live target a test the network left without a verdict runs once more, at the end, alone (only those:
  // src/suite.ts marks every other failure final). Never in replay, nor in the mutation run, whose failures are wanted.
  retries: config.mode === 'live' && !config.mutation ? 1 : 0,
  retryStrategy: 'isolated',
  workers: sharedClock || config.mode === 'replay' ? 1 : 2,
  timeout: 60_000,
  reporter: config.mutation
    ? [['./src/report/conformance-reporter.ts', { outputFile: `${config.reportsDir}/conformance.json`, byProject: true }]]
    : [
    [config.ci ? 'dot' : 'list'],
    ['html', { outputFolder: `${config.reportsDir}/html`, open: 'never' }],
    ['junit', { outputFile: `${config.reportsDir}/junit.xml` }],
    ...(sharded ? [['blob', { outputDir: `${config.reportsDir}/blob` }] as const] : []),
    // The contract's page the Playwright HTML report's links lead to (src/report/contract-page.ts).
    ['./src/report/contract-page.ts', { outputDir: config.reportsDir }],
    [
      // Labels come from each test's annotations (see rule() in src/suite.ts); categories and the grouping by area,
      // operation and rule from allurerc.ts; the environment (the run and its matrix) from the conformance reporter.
      'allure-playwright',
      {
        resultsDir: `${config.reportsDir}/allure-results`,
        suiteTitle: true,
        links: { tms: { nameTemplate: 'Contract %s', urlTemplate: (section: string) => contractLink(config.contractUrl, section) } },
      },
    ],
    // Last: its lines close the run's output, and it counts in junit.xml the errors outside any test, once Playwright wrote it.
    ['./src/report/conformance-reporter.ts', { outputFile: `${config.reportsDir}/conformance.json`, junitFile: `${config.reportsDir}/junit.xml` }],
  ],
  projects: config.mutation
    ? // npm run mutation: a project per baseline and sampled style, and projects of faults (one per rule in each), so that one runner serves them all.
      config.mutation.projects.map(({ name, rules, fault, style, trials }) => ({
        name,
        fullyParallel: false,
        grep: rules?.map(testsOfRule),
        use: { fault, style, trials },
      }))
    : [
        { name: 'conformance', use: { fault: config.reference?.fault, style: config.reference?.style } },
        ...(config.slow
          ? [{ name: 'slow', testMatch: /\.clock\.spec\.ts$/, fullyParallel: false, timeout: 3 * 3600_000, use: { timeTravel: 'wait' as const } }]
          : []),
      ],
});
