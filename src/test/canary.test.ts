// Canary test: no token or signed-URL signature reaches any artifact. A copy of the reference world whose every
// token is a unique canary drives (1) a recording run with a MUST fault on a signed-URL rule, so that fixtures,
// failures, error contexts and failing evidence are all written by one run, then the Allure report; (2) the
// reference server's own entry point, logging at info while a secure upload, a signed-URL request and its download
// go through.
// Every file they produce, containers opened, and every captured output must hold no canary and no signature
// that is not redacted.
import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { gzipSync } from 'node:zlib';
import { loadSeed, worldOf } from '../../reference/world.ts';
import { SERVER_VARIABLES } from '../../reference/config.ts';
import { atAddress, childEnvironment, environmentOf } from '../config/config.ts';
import type { ConformanceReport } from '../report/conformance-reporter.ts';
import { FILE_FORM_KEY } from '../contract/contract.ts';
import { REPRODUCERS } from '../client/reproducer.ts';
import { type Finding, LeakScanner, type ScanResult, zip } from './canary-scan.ts';

const ROOT = new URL('../../', import.meta.url).pathname;
const PLAYWRIGHT = join(ROOT, 'node_modules', '@playwright', 'test', 'cli.js');
/** A MUST fault on a signed-URL rule: its failing test's evidence, and the value its failure prints, hold a signed URL. */
const FAULT = 'signed-scope-unchecked';
const FAULT_RULE = 'SECURE-SCOPE-REQUIRED';

const work = mkdtempSync(join(tmpdir(), 'canary-test-'));
/** Tests that passed; with fewer than all, the artifacts are kept for a look. */
let passed = 0;
const TESTS = 4;
after(() => (passed < TESTS ? console.error(`canary test: artifacts kept in ${work}`) : rmSync(work, { recursive: true, force: true })));

// The world with every token replaced by a canary: hex and a name only, so no escaping (JSON, URL, HTML) alters it.
const seed = loadSeed();
const canaries: Record<string, string> = {};
for (const [i, token] of seed.tokens.entries()) {
  const name = token.env ?? `TOKEN_${i}`;
  token.value = `canary-${randomBytes(12).toString('hex')}-${name}`;
  canaries[name] = token.value;
}
const SEED_FILE = join(work, 'canary-seed.json');
writeFileSync(SEED_FILE, JSON.stringify(seed, null, 2));
const token = (env: string) => canaries[env] ?? assert.fail(`the seed has no token named ${env}`);
const idOf = (env: string, list: { env?: string; id: string }[]) => list.find((item) => item.env === env)?.id ?? assert.fail(`no ${env} in the seed`);

/** The environment of a child: ours less every suite setting and the reference server's own variables, plus `extra`. */
const childEnv = (extra: Record<string, string>) => childEnvironment(extra, SERVER_VARIABLES);

interface Run {
  status: number | null;
  /** stdout then stderr, also written to `<outputs>/<name>.txt` and scanned with the run's other files. */
  output: string;
}

/** Seconds each phase took, printed at the end of the runs. */
const timings: string[] = [];

function runAndCapture(outputs: string, name: string, command: string, args: string[], env: Record<string, string>): Run {
  const started = Date.now();
  const result = spawnSync(command, args, { cwd: ROOT, env: childEnv(env), encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 });
  const output = `${result.stdout}\n${result.stderr}${result.error ? `\n${result.error.message}` : ''}`;
  mkdirSync(outputs, { recursive: true });
  writeFileSync(join(outputs, `${name}.txt`), output);
  timings.push(`${join(outputs, '..').slice(work.length + 1)} ${name} ${((Date.now() - started) / 1000).toFixed(1)} s`);
  return { status: result.status, output };
}

/** The files of several folders as one result. */
function scanAll(scanner: LeakScanner, dirs: string[]): ScanResult {
  const results = dirs.map((dir) => scanner.scanTree(dir, work));
  return {
    files: results.reduce((sum, r) => sum + r.files, 0),
    findings: results.flatMap((r) => r.findings),
    redacted: results.reduce((sum, r) => sum + r.redacted, 0),
  };
}

const verdictOf = (reportsDir: string, id: string) =>
  (JSON.parse(readFileSync(join(reportsDir, 'conformance.json'), 'utf8')) as ConformanceReport).rules.find((rule) => rule.id === id)?.verdict;

function describeFindings(findings: Finding[]): string {
  const lines = findings.slice(0, 40).map((f) => `  ${f.where}: ${f.what} in …${f.excerpt}…`);
  return `${findings.length} leaks:\n${lines.join('\n')}${findings.length > 40 ? '\n  …' : ''}`;
}

/** The reference server's entry point, driven through a secure upload, a signed URL and its download. */
async function driveReferenceServer(): Promise<{ log: string; signature: string }> {
  const child = spawn(process.execPath, ['--import', 'tsx', 'reference/main.ts'], {
    cwd: ROOT,
    env: childEnv({ PORT: '0', SEED_FILE, LOG_LEVEL: 'info', TEST_CLOCK: '1' }),
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let log = '';
  child.stdout.on('data', (chunk: Buffer) => (log += chunk.toString('utf8')));
  child.stderr.on('data', (chunk: Buffer) => (log += chunk.toString('utf8')));
  const exited = new Promise<void>((resolve) => child.once('close', () => resolve()));
  try {
    const base = await new Promise<string>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`the reference server did not start:\n${log}`)), 20_000);
      const look = () => {
        const found = /^BASE_URL=(\S+)$/m.exec(log);
        if (found && /^TEST_CLOCK_URL=/m.test(log)) {
          clearTimeout(timer);
          resolve(found[1]);
        }
      };
      child.stdout.on('data', look);
      child.once('close', () => {
        clearTimeout(timer);
        reject(new Error(`the reference server exited:\n${log}`));
      });
    });
    const form = new FormData();
    form.append('locationId', idOf('LOCATION_ID', seed.locations));
    form.append('conversationId', idOf('CONVERSATION_ID', seed.conversations));
    form.append('attachmentUrls', '[]');
    form.append('isSecureAttachment', 'true');
    const bytes = randomBytes(2048);
    form.append(FILE_FORM_KEY, new Blob([bytes]), 'canary.pdf');
    const upload = await fetch(`${base}/conversations/messages/upload`, {
      method: 'POST',
      headers: { authorization: `Bearer ${token('ACCESS_TOKEN')}`, version: 'v3' },
      body: form,
    });
    const uploaded = (await upload.json()) as { uploadedFiles: Record<string, string> };
    assert.equal(upload.status, 200, JSON.stringify(uploaded));
    const secureUrl = Object.values(uploaded.uploadedFiles)[0];
    const slug = /\/files\/d\/([^/?]+)$/.exec(secureUrl)?.[1] ?? assert.fail(`not a secure URL: ${secureUrl}`);

    // The default style hands the signed URL over as a redirect.
    const asked = await fetch(`${base}/files/d/${slug}`, { headers: { authorization: `Bearer ${token('FILES_READONLY_TOKEN')}`, version: 'v3' }, redirect: 'manual' });
    await asked.arrayBuffer();
    assert.equal(asked.status, 302);
    const answer = { url: new URL(asked.headers.get('location') ?? assert.fail('no Location'), base).href };
    const signature = new URL(answer.url).searchParams.get('signature') ?? assert.fail(`no signature in ${answer.url}`);
    assert.match(signature, /^[A-Za-z0-9_-]{43}$/);

    const download = await fetch(answer.url);
    assert.equal(download.status, 200);
    assert.ok(Buffer.from(await download.arrayBuffer()).equals(bytes), 'the signed URL serves the uploaded bytes');
    // The signature on the error paths too: a tampered expiry (403), a path with no route (404), and the
    // parameter's name percent-encoded (`%73ignature`, which the server decodes: it serves the file).
    // Each body is read whole: an unread one keeps its connection busy, and the server's close waits for it.
    const statusOf = async (url: string | URL) => {
      const response = await fetch(url);
      await response.arrayBuffer();
      return response.status;
    };
    const tampered = new URL(answer.url);
    tampered.searchParams.set('expires', '1');
    assert.equal(await statusOf(tampered), 403);
    const unrouted = new URL(answer.url);
    unrouted.pathname += '/more';
    assert.equal(await statusOf(unrouted), 404);
    assert.equal(await statusOf(answer.url.replace('&signature=', '&%73ignature=')), 200);
    return { log, signature };
  } finally {
    child.kill('SIGTERM');
    const stuck = setTimeout(() => {
      timings.push('reference server: no exit 10 s after SIGTERM, killed');
      child.kill('SIGKILL');
    }, 10_000);
    await exited;
    clearTimeout(stuck);
  }
}

describe('canary: no token or signed-URL signature reaches any artifact', () => {
  const live = { reports: join(work, 'live', 'reports'), fixtures: join(work, 'live', 'fixtures'), outputs: join(work, 'live', 'outputs') };
  const scanner = new LeakScanner(canaries);
  let liveRun: Run;
  let reportRun: Run;
  let server: { log: string; signature: string };
  let liveScan: ScanResult;

  before(async () => {
    const started = Date.now();
    const suite = { REFERENCE_SERVER: '1', SEED_FILE };
    // One run writes every kind of artifact: a recording is a live run that also writes fixtures, and the fault makes
    // it write failures and their evidence. It prints with the list reporter (CI unset), which names every test.
    liveRun = runAndCapture(live.outputs, 'playwright', process.execPath, [PLAYWRIGHT, 'test'], {
      ...suite,
      SUITE_MODE: 'record',
      FAULT,
      // The evidence of the first failing sequence is what a shrunk one's is made of: shrinking would only take longer.
      SHRINK_SECONDS: '0',
      FIXTURES_DIR: live.fixtures,
      REPORTS_DIR: live.reports,
    });
    reportRun = runAndCapture(live.outputs, 'npm-run-report', 'npm', ['run', 'report'], { REPORTS_DIR: live.reports });
    const serverStarted = Date.now();
    server = await driveReferenceServer();
    timings.push(`reference server ${((Date.now() - serverStarted) / 1000).toFixed(1)} s`);
    liveScan = scanAll(scanner, [live.reports, live.fixtures, live.outputs]);
    console.error(
      `canary test: scanned ${liveScan.files} files of the recording run (${liveScan.redacted} redacted signatures seen), in ${Math.round((Date.now() - started) / 1000)} s (${timings.join(', ')})`,
    );
  }, { timeout: 420_000 });

  test('the scanner finds canaries and signatures in plain text, zips, gzip and base64', () => {
    const signed = 'http://127.0.0.1:1/files/signed/att-1?expires=2&signature=kS73tayuKtCGQvwAoVeK2m-F7K3ZWpmvWEaDzoE022E';
    const text = Buffer.from(`{"url":"${signed}","auth":"Bearer ${token('ACCESS_TOKEN')}"}`);
    const inZip = zip([{ name: 'report.jsonl', data: text }]);
    const html = Buffer.from(`<script>window.report = "data:application/zip;base64,${inZip.toString('base64')}";</script>`);
    const probe = new LeakScanner(canaries);
    for (const [name, data] of [['plain', text], ['zip', inZip], ['gzip', gzipSync(text)], ['html', html], ['encoded', Buffer.from(encodeURIComponent(text.toString()))]] as const) {
      const found = new Set(probe.scanBuffer(name, data).map((f) => f.what));
      assert.ok(found.has('signature'), `${name}: the signature is found`);
      assert.ok(found.has('ACCESS_TOKEN'), `${name}: the token is found`);
    }
    const redacted = 'a?expires=2&signature=[REDACTED] b?signature=REDACTEDREDACTEDREDACTEDREDACTEDREDACTEDREDA c%3Fsignature%3D%5BREDACTED%5D%26x=1 u.signature=e';
    assert.deepEqual(probe.scanText('redacted', redacted), []);
    passed++;
  });

  test(`the recording run with ${FAULT} fails ${FAULT_RULE}; its reports, fixtures, Allure report and output hold no canary or signature`, () => {
    assert.equal(liveRun.status, 1, `a MUST fault must fail the run:\n${liveRun.output.slice(-3000)}`);
    assert.equal(verdictOf(live.reports, FAULT_RULE), 'failed');
    assert.equal(reportRun.status, 0, reportRun.output.slice(-3000));
    // Not vacuous: signed URLs and tokens did reach the artifacts, redacted.
    assert.ok(liveScan.redacted > 0, 'no redacted signature was seen: the scan would not see a signed URL either');
    assert.ok(readdirSync(live.fixtures, { recursive: true }).length > 1, 'the run wrote no fixtures to scan');
    const allure = join(live.reports, 'allure-results');
    assert.ok(
      readdirSync(allure).some((name) => readFileSync(join(allure, name), 'utf8').includes('"authorization": "Bearer <FILES_READONLY_TOKEN>"')),
      'no evidence with a bearer token named in place of its value was found in allure-results',
    );
    assert.deepEqual(liveScan.findings, [], describeFindings(liveScan.findings));
    passed++;
  });

  test(`the live run's reproducers of ${FAULT_RULE} name the tokens and hold no canary or signature`, () => {
    // Scanned with the rest of REPORTS_DIR above; here on their own, so that the scan is seen to reach them.
    const reproducers = join(live.reports, REPRODUCERS);
    const scan = new LeakScanner(canaries).scanTree(reproducers, work);
    const scripts = readdirSync(join(reproducers, FAULT_RULE), { recursive: true, encoding: 'utf8' }).filter((name) => name.endsWith('reproduce.sh'));
    assert.ok(scripts.length > 0, `no reproduce.sh under ${reproducers}/${FAULT_RULE}`);
    const script = readFileSync(join(reproducers, FAULT_RULE, scripts[0]), 'utf8');
    assert.match(script, /"\$NO_FILES_SCOPE_TOKEN"/, 'the token is the environment variable of its setting');
    // Not vacuous: the signed URL the server gave the token without files.readonly reached them, redacted.
    assert.ok(scan.redacted > 0, 'no redacted signature was seen in the reproducers');
    assert.deepEqual(scan.findings, [], describeFindings(scan.findings));
    passed++;
  });

  test("the reference server's log holds no canary or signature", () => {
    // The printed env block legitimately holds the simulator's tokens (its purpose is to point the suite at the
    // server): only the lines that start with the assignment of one of its variables (NAME=) are left out.
    const names = environmentOf(atAddress(worldOf(seed), '', '/clock')).map(([name]) => name);
    const assignment = new RegExp(`^(${names.join('|')})=`);
    const lines = server.log.split('\n');
    const logged = lines.filter((line) => !assignment.test(line));
    assert.equal(lines.length - logged.length, names.length, 'the env block was printed');
    const text = logged.join('\n');
    assert.match(text, /"url":"\/files\/signed\/[^"]*signature=\[REDACTED\]/, 'the signed download is logged, redacted');
    const findings = new LeakScanner(canaries, { 'signature seen on the wire': server.signature }).scanText('reference server log', text);
    assert.deepEqual(findings, [], describeFindings(findings));
    passed++;
  });
});
