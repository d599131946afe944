import { defineConfig } from '@playwright/test';
import { describeTarget, loadConfig } from './src/config.ts';
import type { TimeTravelMode } from './src/time-travel.ts';

const config = loadConfig();
// A target's own test clock is shared by everything that talks to it: while a test moves it, no other test may run.
// The reference server runs one per worker and replay has no clock, so they keep both workers.
const sharedClock = config.target?.testClockUrl !== undefined;
const mutationFaults = process.env.MUTATION_FAULTS?.split(',').filter(Boolean);

export default defineConfig<{ timeTravel: TimeTravelMode }, { fault: string | undefined }>({
  testDir: 'specs',
  globalSetup: './src/global-setup.ts',
  outputDir: `${config.reportsDir}/test-results`,
  fullyParallel: true,
  forbidOnly: true,
  retries: 0,
  workers: sharedClock ? 1 : 2,
  timeout: 60_000,
  reporter: mutationFaults
    ? [['./src/conformance-reporter.ts', { outputFile: `${config.reportsDir}/conformance.json`, byProject: true }]]
    : [
    [process.env.CI ? 'dot' : 'list'],
    ['./src/conformance-reporter.ts', { outputFile: `${config.reportsDir}/conformance.json` }],
    ['html', { outputFolder: `${config.reportsDir}/html`, open: 'never' }],
    ['junit', { outputFile: `${config.reportsDir}/junit.xml` }],
    ['blob', { outputDir: `${config.reportsDir}/blob` }],
    [
      // Labels come from each test's annotations (see rule() in src/suite.ts); categories from allurerc.json.
      'allure-playwright',
      {
        resultsDir: `${config.reportsDir}/allure-results`,
        suiteTitle: true,
        links: { tms: { nameTemplate: 'Contract %s', urlTemplate: '../../../shared/contract/platform-api.md#%s' } },
        environmentInfo: {
          mode: config.mode,
          target: describeTarget(config),
          'API version': config.apiVersion,
          node: process.version,
        },
      },
    ],
  ],
  projects: mutationFaults
    ? // npm run mutation: one project per fault (and the baseline), so that one runner serves them all.
      mutationFaults.map((name) => ({ name, fullyParallel: false, use: { fault: name === 'baseline' ? undefined : name } }))
    : [
        { name: 'conformance' },
        ...(config.slow
          ? [{ name: 'slow', testMatch: /\.clock\.spec\.ts$/, fullyParallel: false, timeout: 3 * 3600_000, use: { timeTravel: 'wait' as const } }]
          : []),
      ],
});
