// Issue 30: a failed test leaves a reproducer that the server's team can run without the suite, and every request
// names its test's trace. A live run against a faulty reference server, behind a capturing proxy, must fail the rule,
// leave reproduce.sh and exchanges.har for it, and send every request with a traceparent and the suite's User-Agent;
// reproduce.sh must exit 1 against another server with the fault and 0 against a correct one; the HAR must be HAR 1.2.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { createServer, type IncomingHttpHeaders, request as httpRequest } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { loadSeed, worldOf } from '../../reference/world.ts';
import { TEST_CLOCK_PATH } from '../../reference/plugins/test-clock.ts';
import { atAddress, environmentOf, loadConfig, SETTINGS, type Target } from '../config/config.ts';
import { Masker } from '../client/recording.ts';
import { harProblems, REPRODUCERS, reproducerDir, toHar, writeReproducer } from '../client/reproducer.ts';
import type { Exchange } from '../client/evidence.ts';
import { TRACEPARENT, USER_AGENT } from '../client/transport.ts';
import { startReference } from '../reference-server.ts';

const ROOT = new URL('../../', import.meta.url).pathname;
const PLAYWRIGHT = join(ROOT, 'node_modules', '@playwright', 'test', 'cli.js');
/** Ends the public hour five seconds late: one test of SECURE-PRIVATE-AFTER sees the file served a second after it. */
const FAULT = 'secure-window-5-seconds-long';
const RULE = 'SECURE-PRIVATE-AFTER';
const TEST = 'no anonymous route reaches a secure file just after the hour or long after';

const work = mkdtempSync(join(tmpdir(), 'reproducer-test-'));
after(() => rmSync(work, { recursive: true, force: true }));

/** Runs a command to its end without blocking this process, whose servers must go on answering. */
function run(command: string, args: string[], env: NodeJS.ProcessEnv): Promise<{ status: number | null; output: string }> {
  const child = spawn(command, args, { cwd: ROOT, env, stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString('utf8')));
  child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString('utf8')));
  return new Promise((resolve) => child.once('close', (status) => resolve({ status, output })));
}

/** A loopback proxy in front of `upstream` that keeps the headers of every request; the Host stays the proxy's, so the server's URLs point back at it. */
async function capturingProxy(upstream: string) {
  const seen: { method: string; url: string; headers: IncomingHttpHeaders }[] = [];
  const { hostname, port } = new URL(upstream);
  const server = createServer((incoming, outgoing) => {
    seen.push({ method: incoming.method ?? '', url: incoming.url ?? '', headers: incoming.headers });
    const forward = httpRequest({ host: hostname, port, method: incoming.method, path: incoming.url, headers: incoming.headers }, (answer) => {
      outgoing.writeHead(answer.statusCode ?? 502, answer.headers);
      answer.pipe(outgoing);
    });
    forward.on('error', () => outgoing.destroy());
    incoming.pipe(forward);
  });
  await new Promise<void>((listening) => server.listen(0, '127.0.0.1', listening));
  return {
    address: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    seen,
    close: () => new Promise<void>((closed) => server.close(() => closed())),
  };
}

/** reproduce.sh run with the settings of a fresh reference server, with `fault` or correct; its exit status and output. */
async function reproduceAgainst(script: string, fault: string | undefined) {
  const reference = await startReference({ style: 'default', seed: String(Date.now()) }, undefined, fault);
  try {
    return await run('bash', [script], { PATH: process.env.PATH, ...Object.fromEntries(environmentOf(reference.target as Target)) });
  } finally {
    await reference.close();
  }
}

describe('reproducers and trace context, from a live run against a faulty reference server', () => {
  const reports = join(work, 'reports');
  const dir = reproducerDir(reports, RULE, TEST);
  let suiteRun: { status: number | null; output: string };
  let seen: Awaited<ReturnType<typeof capturingProxy>>['seen'];

  before(async () => {
    const reference = await startReference({ style: 'default', seed: '1' }, undefined, FAULT);
    const proxy = await capturingProxy(reference.target.baseUrl);
    try {
      const env = {
        ...Object.fromEntries(environmentOf(atAddress(worldOf(loadSeed()), proxy.address, TEST_CLOCK_PATH))),
        [SETTINGS.reportsDir.env]: reports,
        [SETTINGS.rateLimit.env]: '100000',
        [SETTINGS.ci.env]: '1',
      };
      // The whole configuration at once: no variable of this process or .env file takes part.
      const config = JSON.stringify(loadConfig(env));
      suiteRun = await run(process.execPath, [PLAYWRIGHT, 'test', 'specs/secure-lifecycle.clock.spec.ts', '--grep', `${RULE} ${TEST}`, '--workers=1'], { ...process.env, [SETTINGS.explicit.env]: config });
      seen = proxy.seen;
    } finally {
      await proxy.close();
      await reference.close();
    }
  }, { timeout: 120_000 });

  test(`the run fails ${RULE} and leaves its reproducer, attached to the test`, () => {
    assert.equal(suiteRun.status, 1, suiteRun.output.slice(-3000));
    assert.deepEqual(readdirSync(join(reports, REPRODUCERS)), [RULE]);
    for (const file of ['reproduce.sh', 'exchanges.har']) assert.ok(existsSync(join(dir, file)), `${file} in ${dir}`);
    const allure = readdirSync(join(reports, 'allure-results')).map((name) => readFileSync(join(reports, 'allure-results', name), 'utf8')).join('\n');
    assert.match(allure, /"name":"reproduce\.sh \(SECURE-PRIVATE-AFTER\)"/);
    assert.match(allure, /"name":"exchanges\.har \(SECURE-PRIVATE-AFTER\)"/);
  });

  test('every request carried a traceparent of its test and the suite\'s User-Agent, and the HAR names the traces', () => {
    assert.ok(seen.length > 10, `the proxy saw ${seen.length} requests`);
    const spans = new Set<string>();
    for (const { method, url, headers } of seen) {
      assert.equal(headers['user-agent'], USER_AGENT, `${method} ${url}`);
      const trace = TRACEPARENT.exec(String(headers.traceparent));
      assert.ok(trace, `${method} ${url}: traceparent ${headers.traceparent}`);
      assert.ok(!spans.has(trace[2]), `${method} ${url}: span ${trace[2]} used twice`);
      spans.add(trace[2]);
    }
    assert.equal(USER_AGENT, 'platform-api-conformance/0.1.0');
    const traces = new Set(seen.map(({ headers }) => TRACEPARENT.exec(String(headers.traceparent))?.[1]));
    const har = JSON.parse(readFileSync(join(dir, 'exchanges.har'), 'utf8')) as { log: { entries: { _traceId?: string }[] } };
    const named = new Set(har.log.entries.map((entry) => entry._traceId));
    // One test: one trace for all its exchanges, one the proxy saw; the preflight has a trace of its own.
    assert.equal(named.size, 1);
    assert.ok(traces.has([...named][0]), 'the HAR names a trace the server saw');
  });

  test('exchanges.har is HAR 1.2; a document that is not is told apart', () => {
    const har = JSON.parse(readFileSync(join(dir, 'exchanges.har'), 'utf8')) as ReturnType<typeof toHar>;
    assert.equal(har.log.version, '1.2');
    assert.ok(har.log.entries.length > 10);
    assert.deepEqual(harProblems(har), []);
    assert.notDeepEqual(harProblems({ log: { ...har.log, entries: [{ ...har.log.entries[0], request: undefined }] } }), []);
    // Credentials by their setting's name only.
    const text = JSON.stringify(har);
    assert.match(text, /Bearer <ACCESS_TOKEN>/);
    for (const token of loadSeed().tokens) assert.ok(!text.includes(`Bearer ${token.value}`), token.env);
  });

  test('reproduce.sh exits 1 against a server with the fault, 0 against a correct one, 2 with a setting missing', { timeout: 120_000 }, async () => {
    const script = join(dir, 'reproduce.sh');
    const faulty = await reproduceAgainst(script, FAULT);
    assert.equal(faulty.status, 1, faulty.output.slice(-3000));
    assert.match(faulty.output, /BROKEN: expected no copy of the bytes of .* secure-after\.pdf; got 200/);
    const correct = await reproduceAgainst(script, undefined);
    assert.equal(correct.status, 0, correct.output.slice(-3000));
    assert.match(correct.output, /the \d+ answers checked hold/);
    const unset = await run('bash', [script], { PATH: process.env.PATH });
    assert.equal(unset.status, 2);
    assert.match(unset.output, /set BASE_URL/);
    assert.match(unset.output, /set ACCESS_TOKEN/);
  });
});

describe('reproduce.sh, written from made-up evidence', () => {
  const base = 'http://127.0.0.1:1';
  const signed = `${base}/files/signed/att-0123456789?expires=1&signature=[REDACTED]`;
  const file = { name: 'leak.pdf', size: 10, sha256: 'ab'.repeat(32) };
  const exchange = (fields: Partial<Exchange> & Pick<Exchange, 'url'>): Exchange => ({ label: 'l', startedAt: new Date(0).toISOString(), method: 'GET', requestHeaders: {}, status: 200, ms: 1, ...fields });
  const scriptOf = (exchanges: Exchange[]) => {
    const dir = join(work, `made-up-${Math.random().toString(36).slice(2)}`);
    return readFileSync(writeReproducer(dir, { rule: 'R', title: 'R t', why: ['Error: the reason'], exchanges, baseUrl: base }).script, 'utf8');
  };

  test('a signed URL handed over in Location is taken from this run\'s answer; the token is its setting; the expectations are checked', () => {
    const script = scriptOf([
      exchange({ url: `${base}/files/d/att-0123456789`, requestHeaders: { authorization: 'Bearer <NO_FILES_SCOPE_TOKEN>' }, status: 302, responseHeaders: { location: signed }, followRedirects: false, judged: [{ expected: 'refusal', held: false }] }),
      exchange({ url: signed, judged: [{ expected: 'withholds', file, held: false }] }),
    ]);
    assert.match(script, /--header 'authorization: Bearer '"\$NO_FILES_SCOPE_TOKEN"''/);
    assert.match(script, /set NO_FILES_SCOPE_TOKEN/);
    assert.match(script, /offered="\$\(header 0 location\)"/);
    assert.match(script, /expect_refusal 0 /);
    assert.match(script, new RegExp(`expect_withholds 1 ${file.sha256} `));
    // The redacted signed URL is never sent: only this run's answer names it.
    assert.doesNotMatch(script, /url=.*signature/);
    assert.match(script, /#   Error: the reason/);
  });

  test('a verdict no answer was judged against is said to be beyond the script, which exits 2', () => {
    const script = scriptOf([exchange({ url: `${base}/files/d/att-0123456789`, judged: [{ expected: 'acceptance', held: true }] })]);
    assert.match(script, /cannot check that verdict, and exits 2/);
    assert.match(script, /exit 2\n$/);
  });
});

describe('trace headers in recordings', () => {
  test('a recording keeps neither traceparent nor User-Agent, so fixtures stay byte-identical and replay matches without them', () => {
    const masker = new Masker('http://127.0.0.1:1', {});
    const headers = masker.requestHeaders({ version: 'v3', traceparent: '00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01', 'user-agent': USER_AGENT });
    assert.deepEqual(headers, { version: 'v3' });
  });
});
