// The Allure report, opened in a real browser (Debian's chromium), lists the suites and shows a failing
// rule with its category and its evidence. The report comes from a run against a faulty reference server.
import { chromium } from '@playwright/test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import { tmpdir } from 'node:os';
import { extname, join, normalize } from 'node:path';
import { after, test } from 'node:test';

const CHROMIUM = '/usr/bin/chromium';
const ROOT = new URL('../../', import.meta.url).pathname;
const work = mkdtempSync(join(tmpdir(), 'report-browser-'));
after(() => rmSync(work, { recursive: true, force: true }));

const TYPES: Record<string, string> = { '.html': 'text/html', '.js': 'text/javascript', '.json': 'application/json', '.css': 'text/css', '.svg': 'image/svg+xml' };

/** The report folder over HTTP on 127.0.0.1, as a person would open it. */
function serve(dir: string): Promise<Server> {
  const server = createServer((request, response) => {
    const path = normalize(join(dir, decodeURIComponent(new URL(request.url ?? '/', 'http://report').pathname)));
    const file = path.endsWith('/') ? join(path, 'index.html') : path;
    if (!file.startsWith(dir) || !existsSync(file)) return void response.writeHead(404).end();
    response.writeHead(200, { 'content-type': TYPES[extname(file)] ?? 'application/octet-stream' }).end(readFileSync(file));
  });
  return new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve(server)));
}

// CI installs chromium (.ci/run); elsewhere the test says what is missing instead of failing.
const missing = !existsSync(CHROMIUM) && !process.env.CI ? `${CHROMIUM} is not installed (apt-get install chromium)` : false;

test('the Allure report lists the suites and shows a failing MUST rule with its evidence', { skip: missing, timeout: 180_000 }, async () => {
  const reports = join(work, 'reports');
  const run = spawnSync('npx', ['playwright', 'test', 'specs/upload-limits.spec.ts', '--grep', 'UPLOAD-FILES-MAX'], {
    cwd: ROOT,
    env: { ...process.env, SUITE_MODE: 'live', REFERENCE_SERVER: '1', FAULT: 'upload-six-files', REPORTS_DIR: reports },
    encoding: 'utf8',
  });
  assert.equal(run.status, 1, `a MUST fault must fail the run:\n${run.stdout.slice(-2000)}`);
  const report = spawnSync('npm', ['run', 'report'], { cwd: ROOT, env: { ...process.env, REPORTS_DIR: reports }, encoding: 'utf8' });
  assert.equal(report.status, 0, report.stderr);
  assert.ok(existsSync(join(reports, 'html', 'index.html')), 'the Playwright HTML report is written too');

  const server = await serve(join(reports, 'allure-report'));
  const browser = await chromium.launch({
    executablePath: CHROMIUM,
    // No background traffic: this machine reaches nothing but loopback.
    args: ['--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'],
  });
  try {
    const page = await browser.newPage();
    await page.goto(`http://127.0.0.1:${(server.address() as { port: number }).port}/`);
    await page.getByText('upload-limits.spec.ts').first().waitFor();
    await page.getByText('upload limits', { exact: true }).first().waitFor();
    await page.getByText('UPLOAD-FILES-MAX a sixth file is refused').first().click();
    await page.getByText('Category: MUST violations').waitFor();
    await page.getByText('Expected: a 4xx refusal').first().waitFor();
    await page.getByText('Attachments').first().click();
    await page.getByText('evidence').first().click();
    // The evidence shows the judged request and its answer, with the token redacted.
    await page.getByText('"label": "a sixth file is refused"').first().waitFor();
    const text = await page.locator('body').innerText();
    assert.match(text, /Bearer \[REDACTED\]/);
    assert.doesNotMatch(text, /ref-oauth-location-main/);
    await page.screenshot({ path: join(reports, 'allure-failing-rule.png'), fullPage: true });
  } finally {
    await browser.close();
    server.close();
  }
});
