// The reports, opened in a real browser (Debian's chromium): the Allure report lists the suites and shows a failing
// rule with its category and its evidence (from a run against a faulty reference server), asking no other host; a
// SHOULD warning is a passed test carrying its finding in both reports; in
// both reports a test's contract link opens the contract at the section its rule cites; the annotated contract shows
// each rule's verdict beside its words and links it to its test.
import { type Browser, chromium, type Page } from '@playwright/test';
import assert from 'node:assert/strict';
import { spawnSync, type SpawnSyncReturns } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import { tmpdir } from 'node:os';
import { delimiter, extname, join, normalize } from 'node:path';
import { pathToFileURL } from 'node:url';
import { after, before, describe, test } from 'node:test';

const CHROMIUM = '/usr/bin/chromium';
const ROOT = new URL('../../', import.meta.url).pathname;
const PLAYWRIGHT = join(ROOT, 'node_modules', '@playwright', 'test', 'cli.js');
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

/**
 * The tests of this rule (or `grep`) in specs/upload-limits.spec.ts, run with these settings into a reports folder of
 * their own. Playwright's CLI itself, not through npx; one worker: the reports are the point, not parallelism.
 */
function runRule(reports: string, env: Record<string, string>, grep = 'UPLOAD-FILES-MAX'): ReturnType<typeof spawnSync> {
  return spawnSync(process.execPath, [PLAYWRIGHT, 'test', 'specs/upload-limits.spec.ts', '--grep', grep, '--workers=1'], {
    cwd: ROOT,
    env: { ...process.env, ...env, REPORTS_DIR: reports },
    encoding: 'utf8',
  });
}

/** `npm run report` of this reports folder: package.json's script as npm runs it (sh, node_modules/.bin first on PATH), without npm's own start. */
function npmRunReport(reports: string): SpawnSyncReturns<string> {
  const { scripts } = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { scripts: Record<string, string> };
  return spawnSync('sh', ['-c', scripts.report], {
    cwd: ROOT,
    env: { ...process.env, PATH: `${join(ROOT, 'node_modules', '.bin')}${delimiter}${process.env.PATH}`, REPORTS_DIR: reports },
    encoding: 'utf8',
  });
}

/** The test's rule cites §8; its link must open the contract with that section's heading at the top of the window. */
const SECTION = { anchor: '8-limits', heading: '8. Limits' };

/** Clicks a contract link and checks the page it opens: the contract, scrolled to the cited section. */
async function opensCitedSection(page: Page, link: ReturnType<Page['locator']>, contractUrl: string): Promise<void> {
  assert.equal(await link.getAttribute('href'), `${contractUrl}#${SECTION.anchor}`);
  const [contract] = await Promise.all([page.context().waitForEvent('page'), link.click()]);
  await contract.waitForLoadState();
  assert.equal(contract.url(), `${contractUrl}#${SECTION.anchor}`);
  const heading = contract.locator(`[id="${SECTION.anchor}"]`);
  assert.equal(await heading.textContent(), SECTION.heading);
  const shown = { top: (await heading.boundingBox())?.y, scrolled: await contract.evaluate<number>('window.scrollY') };
  assert.ok(shown.scrolled > 0 && Math.abs(shown.top ?? Infinity) < 2, `the section is at the top of the window: ${JSON.stringify(shown)}`);
  await contract.close();
}

/** The badge of a rule in the row of the contract's page whose first cell is `row`. */
const ruleBeside = (page: Page, row: string, rule: string) => page.locator('tr', { has: page.locator('td', { hasText: row }) }).locator(`[data-rule="${rule}"]`);

// CI installs chromium (.ci/run); elsewhere the tests say what is missing instead of failing.
const missing = !existsSync(CHROMIUM) && !process.env.CI ? `${CHROMIUM} is not installed (apt-get install chromium)` : false;

// Each test skips itself: node's runner counts the tests of a skipped suite nowhere.
describe('the reports in a browser', () => {
  let browser: Browser;
  before(async () => {
    if (missing) return;
    browser = await chromium.launch({
      executablePath: CHROMIUM,
      // No background traffic: this machine reaches nothing but loopback.
      args: ['--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'],
    });
  });
  after(() => browser?.close());

  test('the Allure report, opened from its file, lists the suites, shows a failing MUST rule with its verdict and evidence, links its contract section, and asks no other host', { skip: missing, timeout: 180_000 }, async () => {
    const reports = join(work, 'allure');
    // The report is one file that opens from the disk. Its folder published over HTTP serves the contract's page
    // (npm run report puts it there): Allure links only http(s) addresses, so CONTRACT_URL names that page.
    const server = await serve(join(reports, 'allure-report'));
    const origin = `http://127.0.0.1:${(server.address() as { port: number }).port}`;
    // The one test the page shows failing: each failed test costs a worker of its own (Playwright replaces the worker after a failure).
    const run = runRule(reports, { SUITE_MODE: 'live', REFERENCE_SERVER: '1', FAULT: 'upload-six-files', CONTRACT_URL: `${origin}/contract.html` }, 'UPLOAD-FILES-MAX a sixth file is refused(?! in every)');
    assert.equal(run.status, 1, `a MUST fault must fail the run:\n${String(run.stdout).slice(-2000)}`);
    const report = npmRunReport(reports);
    assert.equal(report.status, 0, report.stderr);
    // npm run report says where each report is.
    assert.match(report.stdout, /Reports:\n {2}\S*allure-report\/index\.html +the Allure report, one file/);
    assert.deepEqual(readdirSync(join(reports, 'allure-report')).filter((name) => name.endsWith('.html')).sort(), ['contract.html', 'index.html']);

    const page = await browser.newPage();
    // Opening the report asks nothing of any other host (npm run report takes Allure's analytics out).
    const elsewhere: string[] = [];
    await page.route((url) => url.protocol.startsWith('http') && url.origin !== origin, (route) => (elsewhere.push(route.request().url()), route.abort()));
    const pageErrors: string[] = [];
    page.on('pageerror', (error) => pageErrors.push(String(error)));
    page.on('console', (message) => void (message.type() === 'error' && pageErrors.push(message.text())));
    try {
      await page.goto(pathToFileURL(join(reports, 'allure-report', 'index.html')).href);
      // The overview names the rules no test of this run judged, never folding them into a pass rate.
      await page.getByText(/^\d+ MUST and \d+ SHOULD rules; \d+ MUST and \d+ SHOULD unjudged: none of their tests ran/).first().waitFor();
      // The tree follows the contract: area, operation, rule, the rule with its verdict.
      await page.getByText('Upload', { exact: true }).first().waitFor();
      await page.getByText('POST /conversations/messages/upload', { exact: true }).first().waitFor();
      await page.getByText('UPLOAD-FILES-MAX five files are accepted and a sixth is refused: rule FAIL', { exact: true }).first().waitFor();
      await page.getByText('UPLOAD-FILES-MAX a sixth file is refused').first().click();
      await page.getByText('Category: MUST violations').waitFor();
      await page.getByText('Expected: a 4xx refusal').first().waitFor();
      await opensCitedSection(page, page.getByRole('link', { name: 'Contract §8' }), `${origin}/contract.html`);
      // The annotated contract the Allure report serves gives the rule this run's verdict beside its row of §8.
      const annotated = await browser.newPage();
      await annotated.goto(`${origin}/contract.html`);
      assert.equal(await ruleBeside(annotated, 'Maximum files per upload', 'UPLOAD-FILES-MAX').locator('.verdict').textContent(), 'fail');
      await annotated.close();
      await page.getByText('Attachments').first().click();
      await page.getByText('evidence').first().click();
      // The evidence shows the judged request and its answer, with the token named, never its value.
      await page.getByText('"label": "a sixth file is refused"').first().waitFor();
      const text = await page.locator('body').innerText();
      assert.match(text, /Bearer <ACCESS_TOKEN>/);
      assert.doesNotMatch(text, /ref-oauth-location-main/);
      await page.screenshot({ path: join(reports, 'allure-failing-rule.png'), fullPage: true });
      assert.deepEqual(elsewhere, [], 'the report asked another host');
    } catch (error) {
      // What the report showed instead: a page slow to render reads differently from one that shows other words.
      const shown = await page.locator('body').innerText().catch(() => '(no text)');
      const errors = pageErrors.length > 0 ? `\nthe page's errors:\n${pageErrors.join('\n')}` : '';
      // A new error: node's runner prints the stack, which an amended message would not reach.
      throw new Error(`${(error as Error).message}\nthe page showed:\n${shown.slice(0, 3000)}${errors}`, { cause: error });
    } finally {
      server.close();
    }
  });

  test("a SHOULD warning in both reports: the test passed, its finding an annotation in Playwright's, a category, a tag and an attachment in Allure's", { skip: missing, timeout: 180_000 }, async () => {
    const reports = join(work, 'warning');
    const title = 'UPLOAD-EXT-CASE a .JPG file is accepted';
    const run = runRule(reports, { SUITE_MODE: 'live', REFERENCE_SERVER: '1', FAULT: 'upload-ext-case-sensitive' }, 'UPLOAD-EXT-CASE a \\.JPG file');
    assert.equal(run.status, 0, `a SHOULD fault passes the run:\n${String(run.stdout).slice(-2000)}`);
    const report = npmRunReport(reports);
    assert.equal(report.status, 0, report.stderr);
    const page = await browser.newPage();
    try {
      // Playwright's report: one test, passed, carrying the finding.
      await page.goto(pathToFileURL(join(reports, 'html', 'index.html')).href);
      const counts = async (name: string) => (await page.locator('.subnav-item', { hasText: name }).locator('.counter').textContent())?.trim();
      await page.getByText(title).first().waitFor();
      assert.deepEqual([await counts('Passed'), await counts('Failed')], ['1', '0']);
      await page.getByText(title).first().click();
      const annotation = page.locator('.test-case-annotation', { hasText: /^should-warning:/ });
      assert.match(await annotation.innerText(), /^should-warning: Error: toBeAcceptance\s+Expected: a 2xx acceptance\s+Received: 400 /);

      // Allure's: passed, in the warnings' category, tagged, the finding attached.
      await page.goto(pathToFileURL(join(reports, 'allure-report', 'index.html')).href);
      await page.getByText(/^Categories/).first().click();
      await page.getByText('SHOULD warnings (passed, each with its finding)').click();
      await page.getByText(title).first().click();
      await page.getByText('Category: SHOULD warnings (passed, each with its finding)').waitFor();
      await page.getByText('Passed', { exact: true }).first().waitFor();
      assert.equal(await page.getByText('Failed', { exact: true }).count(), 0);
      await page.getByText('warning', { exact: true }).first().waitFor();
      await page.getByText('Attachments').first().click();
      await page.getByText('SHOULD warning', { exact: true }).first().click();
      await page.getByText(/Expected: a 2xx acceptance/).first().waitFor();
      await page.screenshot({ path: join(reports, 'allure-should-warning.png'), fullPage: true });
    } catch (error) {
      const shown = await page.locator('body').innerText().catch(() => '(no text)');
      throw new Error(`${(error as Error).message}\nthe page showed:\n${shown.slice(0, 3000)}`, { cause: error });
    }
  });

  test('the Playwright HTML report, opened as a file, links each test to its contract section by default, and the annotated contract each rule to its test', { skip: missing, timeout: 120_000 }, async () => {
    const reports = join(work, 'playwright');
    const run = runRule(reports, { SUITE_MODE: 'replay', CONTRACT_URL: '' });
    assert.equal(run.status, 0, `the replay passes:\n${String(run.stdout).slice(-2000)}`);
    const page = await browser.newPage();
    await page.goto(pathToFileURL(join(reports, 'html', 'index.html')).href);
    await page.getByText('UPLOAD-FILES-MAX a sixth file is refused').first().click();
    // The link sits in the `contract` annotation, after the rule's quote.
    const link = page.locator('.test-case-annotation', { hasText: /^contract:/ }).getByRole('link');
    await opensCitedSection(page, link, pathToFileURL(join(reports, 'contract.html')).href);

    // The annotated contract of the same run: the verdict beside the rule's words, its link to the test.
    await page.goto(pathToFileURL(join(reports, 'contract.html')).href);
    assert.match(await page.locator('#summary').innerText(), /Contract coverage: \d+ of \d+ testable sentences checked/);
    const badge = ruleBeside(page, 'Maximum files per upload', 'UPLOAD-FILES-MAX');
    assert.equal(await badge.locator('.verdict').textContent(), 'pass');
    // A rule none of this run's tests named says so.
    assert.equal(await ruleBeside(page, 'Maximum file size', 'UPLOAD-SIZE-MAX').locator('.verdict').textContent(), 'skipped: no test of this rule ran');
    await badge.getByRole('link', { name: 'UPLOAD-FILES-MAX', exact: true }).click();
    // The test's own page, not the list: its first test by title.
    await page.locator('.test-case-column').getByText('UPLOAD-FILES-MAX a sixth file is refused', { exact: true }).first().waitFor();
    assert.equal(await page.getByText('Test not found').count(), 0);
    assert.match(page.url(), /\/html\/index\.html#\?testId=/);
  });
});
