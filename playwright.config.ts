import { defineConfig } from '@playwright/test';
import type { TimeTravelMode } from './src/time-travel.ts';

// The slow project really waits out the one-hour window, for targets without a test clock: opt-in.
const slow = process.env.SUITE_SLOW === '1';
// Separate folders let several runs (the mutation harness, say) work side by side.
const reports = process.env.REPORTS_DIR || 'reports';

export default defineConfig<{ timeTravel: TimeTravelMode }>({
  testDir: 'specs',
  globalSetup: './src/global-setup.ts',
  outputDir: `${reports}/test-results`,
  fullyParallel: true,
  forbidOnly: true,
  retries: 0,
  workers: 2,
  timeout: 60_000,
  reporter: [['list'], ['./src/conformance-reporter.ts', { outputFile: `${reports}/conformance.json` }]],
  projects: [
    { name: 'conformance', testIgnore: /\.clock\.spec\.ts$/ },
    // Tests that move the server's clock run after the others, one at a time.
    { name: 'clock', testMatch: /\.clock\.spec\.ts$/, dependencies: ['conformance'], fullyParallel: false, workers: 1 },
    ...(slow
      ? [{ name: 'slow', testMatch: /\.clock\.spec\.ts$/, fullyParallel: false, workers: 1, timeout: 3 * 3600_000, use: { timeTravel: 'wait' as const } }]
      : []),
  ],
});
