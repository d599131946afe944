// Playwright's own floor for `npm run bench`: as many trivial tests as the suite has, no fixtures, a dot each. The
// suite's replay run is reported as a multiple of this, measured in the same bench, so the figure holds on any machine.
import { defineConfig } from '@playwright/test';

export default defineConfig({ testDir: '.', testMatch: 'floor.spec.ts', workers: 2, reporter: 'dot', outputDir: '../../reports/bench-floor/test-results' });
