import { expect, test } from '@playwright/test';
import { existsSync, readFileSync } from 'node:fs';

// As many trivial tests as the suite has (npm run bench writes how many beside the floor's reports): Playwright's
// cost per test included, each a test of its own.
const file = new URL('../../reports/bench-floor/tests.json', import.meta.url);
const count = existsSync(file) ? (JSON.parse(readFileSync(file, 'utf8')) as { tests: number }).tests : 2;
for (let i = 1; i <= count; i++) test(`trivial ${i}`, () => expect(i).toBe(i));
