// The preflight against the in-process reference server, in both styles (their codes and bodies differ; the contract
// shows none): all right gives the all-clear, and each broken variable gives exactly one line naming it, with no
// token in the output. Then a live `npm run conformance` stopped by the preflight: non-zero, the lines, no matrix.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { createServer as createHttpServer } from 'node:http';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { type Listening, listenReference } from '../../reference/listen.ts';
import { TEST_CLOCK_PATH } from '../../reference/plugins/test-clock.ts';
import { SERVER_SETTINGS } from '../../reference/config.ts';
import type { FaultName } from '../../reference/faults.ts';
import type { StyleName } from '../../reference/style.ts';
import { loadSeed, worldOf } from '../../reference/world.ts';
import { atAddress, environmentOf, SETTINGS } from '../config/config.ts';
import { doctor } from '../preflight/doctor.ts';
import { SpentRefreshTokens } from '../client/refresh-chain.ts';
import { redactText } from '../config/redact.ts';

const ROOT = new URL('../../', import.meta.url).pathname;
const seed = loadSeed();
const world = worldOf(seed);
/** Every secret of the world, and every made-up one a case sets: none may be printed. */
const SECRET_VALUES = [...seed.tokens.map((token) => token.value)];
const BEFORE_CUTOVER = Date.parse('2026-11-25T12:00:00Z');
const AFTER_CUTOVER = Date.parse('2026-12-01T12:00:00Z');
const SMS_CONVERSATION = seed.conversations.find((c) => c.channel !== 'email' && c.locationId === world.locationId)?.id as string;
const FOREIGN_CONTACT = seed.contacts.find((c) => c.locationId !== world.locationId)?.id as string;
const MADE_UP_TOKEN = 'doctor-test-made-up-token-0000';
SECRET_VALUES.push(MADE_UP_TOKEN);

/** The reference world with the token of `env` lacking `scope`. */
const seedWithout = (env: string, scope: string) => ({
  ...seed,
  tokens: seed.tokens.map((token) => (token.env === env && 'scopes' in token ? { ...token, scopes: token.scopes.filter((held: string) => held !== scope) } : token)),
});

const STATE = mkdtempSync(join(tmpdir(), 'doctor-state-'));
after(() => rmSync(STATE, { recursive: true, force: true }));

/** The variables that point the suite at a reference server, with `overrides`; what the runs keep, in a folder of these tests. */
const environmentAt = (server: Listening, overrides: Record<string, string> = {}) => ({
  ...Object.fromEntries(environmentOf(atAddress(world, server.address, TEST_CLOCK_PATH))),
  [SETTINGS.stateDir.env]: STATE,
  ...overrides,
});

/**
 * One variable set wrong: the preflight must give exactly one line, naming it. Only an ACCESS_TOKEN refused everywhere
 * stops the run; every other line is a finding the run goes on with, naming the rule a server could be breaking where
 * the same answer explains both.
 */
const BROKEN: readonly { env: string; value: string; why: string; stops?: true; rule?: string; names?: string }[] = [
  { env: 'CONVERSATION_ID', value: SMS_CONVERSATION, why: 'a conversation of the sms channel' },
  { env: 'AGENT_ID', value: world.inactiveAgentId as string, why: 'an inactive agent', rule: 'DEPRECATED-STILL-SERVED' },
  { env: 'AGENT_ID', value: 'agent-that-does-not-exist', why: 'an unknown agent' },
  { env: 'ACCESS_TOKEN', value: MADE_UP_TOKEN, why: 'an unknown token', stops: true },
  { env: 'ACCESS_TOKEN', value: world.tokens.pit as string, why: 'a token holding files.readonly', rule: 'SECURE-SCOPE-REQUIRED' },
  { env: 'REPLACEMENT_EXECUTE_PATH', value: '/agents/{agentId}/run', why: 'a path the reference does not serve', rule: 'REPLACEMENT-EXISTS' },
  { env: 'CONTACT_ID', value: FOREIGN_CONTACT, why: 'a contact of another location' },
  // Refused as a token is, on the upload and the execution: the token's line, which names the location too.
  { env: 'LOCATION_ID', value: world.foreignLocationId as string, why: 'a location the token does not reach', stops: true, names: 'ACCESS_TOKEN' },
  { env: 'FILES_READONLY_TOKEN', value: world.tokens.noFilesScope as string, why: 'a token lacking files.readonly', rule: 'SECURE-SIGNED-URL' },
  { env: 'NO_FILES_SCOPE_TOKEN', value: MADE_UP_TOKEN, why: 'an unknown token' },
  { env: 'FOREIGN_ACCESS_TOKEN', value: MADE_UP_TOKEN, why: 'an unknown token' },
  { env: 'INACTIVE_AGENT_ID', value: world.agentId, why: 'an active agent', rule: 'AGENT-INACTIVE' },
  { env: 'FOREIGN_LOCATION_ID', value: world.locationId, why: 'LOCATION_ID itself' },
  { env: 'NON_EMAIL_CONVERSATION_ID', value: world.conversationId, why: 'CONVERSATION_ID itself' },
  { env: 'NON_EMAIL_CONVERSATION_ID', value: 'conversation-that-does-not-exist', why: 'an unknown conversation' },
  { env: 'FOREIGN_AGENT_ID', value: world.agentId, why: 'AGENT_ID itself' },
  { env: 'FOREIGN_AGENT_ID', value: 'agent-that-does-not-exist', why: 'an unknown agent' },
  { env: 'FOREIGN_CONVERSATION_ID', value: world.conversationId, why: 'CONVERSATION_ID itself' },
  { env: 'FOREIGN_CONVERSATION_ID', value: 'conversation-that-does-not-exist', why: 'an unknown conversation' },
  { env: 'FOREIGN_CONTACT_ID', value: world.contactId, why: 'CONTACT_ID itself' },
  { env: 'TEST_CLOCK_URL', value: 'http://127.0.0.1:1/__test/clock', why: 'a clock nobody serves' },
];

function assertNoSecret(lines: string[]): void {
  const text = lines.join('\n');
  for (const value of SECRET_VALUES) assert.ok(!text.includes(value), `the output shows a token:\n${text}`);
}

for (const style of ['default', 'alt'] as StyleName[]) {
  describe(`the preflight against the ${style} style`, () => {
    let server: Listening;
    before(async () => {
      server = await listenReference({ seed: '1', style, testClock: { start: BEFORE_CUTOVER } }, { host: '127.0.0.1', port: 0 });
    });
    after(() => server.close());

    test('all right: a short all-clear with the server clock and its offset, exit 0', async () => {
      const { lines, exitCode } = await doctor(environmentAt(server));
      assert.equal(exitCode, 0, lines.join('\n'));
      assert.match(lines[0], /: all clear$/);
      assert.ok(lines.length <= 5, `a few lines, not ${lines.length}:\n${lines.join('\n')}`);
      assert.match(lines[1], /server clock 2026-11-25T12:00:00\.000Z by its test clock, .* (ahead of|behind) this machine's/);
      assertNoSecret(lines);
    });

    for (const { env, value, why, stops, rule, names = env } of BROKEN) {
      test(`${env} set to ${why}: exactly one line, naming ${names}${stops ? ', which stops the run' : rule ? ` and ${rule}` : ''}`, async () => {
        const { lines, exitCode } = await doctor(environmentAt(server, { [env]: value }));
        assert.equal(exitCode, stops ? 1 : 0, lines.join('\n'));
        assert.match(lines[0], stops ? /: 1 problem$/ : /: 1 finding \(the run goes on/);
        // The notes that follow a finding (the clock, what was accepted) start in lower case; a variable's line does not.
        assert.equal(lines.filter((line) => /^ {2}[A-Z_]+[=:]/.test(line)).length, 1, `one line:\n${lines.join('\n')}`);
        assert.ok(lines[1].startsWith(`  ${names}=`) || lines[1].startsWith(`  ${names}:`), lines[1]);
        if (names !== env) assert.ok(lines[1].includes(`${env}=${value}`), lines[1]);
        if (rule) assert.match(lines[1], new RegExp(`; or the server breaks ${rule} \\(.*\\), which the run judges: `));
        else assert.doesNotMatch(lines[1], /or the server breaks/);
        assertNoSecret(lines);
      });
    }
  });
}

describe('the preflight, whatever the style', () => {
  // A server breaking the rule answers as a wrong setting would: the line gives both readings and how to tell them apart.
  const VIOLATIONS: readonly { fault: FaultName; env: string; rule: string; tell: RegExp }[] = [
    { fault: 'signed-scope-unchecked', env: 'ACCESS_TOKEN', rule: 'SECURE-SCOPE-REQUIRED', tell: /a made-up token is refused \(\d+\), so the server checks tokens; if ACCESS_TOKEN lacks files.readonly in the platform, it does not check the scope/ },
    { fault: 'agent-inactive-runs', env: 'INACTIVE_AGENT_ID', rule: 'AGENT-INACTIVE', tell: /a made-up agent is refused \(\d+\); if INACTIVE_AGENT_ID is not active in the platform, the server runs inactive agents/ },
  ];
  for (const { fault, env, rule, tell } of VIOLATIONS) {
    test(`a server with the fault ${fault}: ${env}'s line names ${rule} and how to tell, and the run goes on`, async () => {
      const server = await listenReference({ seed: '1', fault, testClock: { start: BEFORE_CUTOVER } }, { host: '127.0.0.1', port: 0 });
      try {
        const { lines, exitCode } = await doctor(environmentAt(server));
        assert.equal(exitCode, 0, lines.join('\n'));
        const line = lines.find((l) => l.startsWith(`  ${env}`)) ?? '';
        assert.match(line, new RegExp(`or the server breaks ${rule}`), lines.join('\n'));
        assert.match(line, tell);
      } finally {
        await server.close();
      }
    });
  }

  // Issue 48: a server that refuses the suite's own spelling (the field name authorization, in lower case, goes unread:
  // every request is refused as a made-up token's) must not be blamed on ACCESS_TOKEN.
  test('a server that refuses a form HTTP permits: a finding under HTTP-REQUEST-FORMS naming the form it accepts, no setting blamed, the run goes on', async () => {
    const server = await listenReference({ seed: '1', fault: 'authorization-name-exact', testClock: { start: BEFORE_CUTOVER } }, { host: '127.0.0.1', port: 0 });
    try {
      const { lines, exitCode } = await doctor(environmentAt(server));
      assert.equal(exitCode, 0, lines.join('\n'));
      assert.ok(!lines.some((line) => /unknown or expired|^ {2}ACCESS_TOKEN/.test(line)), lines.join('\n'));
      assert.match(lines.find((line) => line.startsWith('  HTTP-REQUEST-FORMS')) ?? '', /in the suite's own form; the same upload with header field names in Title-Case was accepted \(200\).*the server refuses a form RFC 9110 §5\.1 permits .*no setting is at fault/, lines.join('\n'));
    } finally {
      await server.close();
    }
  });

  // The contract shows no scope for the upload or the execution (§5 item 7): a token refused on its own is the configuration, never a verdict.
  const SCOPELESS: readonly { lacks: string; refused: RegExp }[] = [
    { lacks: 'conversations/message.write', refused: /^ {2}ACCESS_TOKEN: POST \/conversations\/messages\/upload answered 40[13] .* \(a made-up token: 401\), while it executes AGENT_ID in LOCATION_ID; it may not upload: give it the permission to upload into LOCATION_ID/ },
    { lacks: 'agent-studio.write', refused: /^ {2}ACCESS_TOKEN: POST \/agent-studio\/public-api\/agents\/.*\/execute answered 40[13] .*, where its upload was accepted; either it may not execute agents/ },
  ];
  for (const style of ['default', 'alt'] as StyleName[]) {
    for (const { lacks, refused } of SCOPELESS) {
      test(`an ACCESS_TOKEN without the scope ${lacks} (${style} style): one problem naming it and what it was refused, which stops the run`, async () => {
        const server = await listenReference({ seed: '1', style, testClock: { start: BEFORE_CUTOVER }, seedData: seedWithout('ACCESS_TOKEN', lacks) }, { host: '127.0.0.1', port: 0 });
        try {
          const { lines, exitCode } = await doctor(environmentAt(server));
          assert.equal(exitCode, 1, lines.join('\n'));
          assert.match(lines[0], /: 1 problem$/);
          assert.match(lines[1], refused);
          assert.doesNotMatch(lines.join('\n'), /LOCATION_ID=.*: |CONVERSATION_ID|CONTACT_ID/, 'no other variable is blamed');
          assertNoSecret(lines);
        } finally {
          await server.close();
        }
      });
    }
  }

  // A web server that is no API: its answer to the upload is its answer to any path (the same 501, 405 or page).
  const NO_API: readonly { what: string; status: number; type: string; body: string }[] = [
    { what: "a static server's 501", status: 501, type: 'text/html', body: '<html><body><h1>501 Not Implemented</h1></body></html>' },
    { what: "a static server's 405", status: 405, type: 'text/html', body: '<html><body><h1>405 Not Allowed</h1></body></html>' },
    { what: 'an HTML page', status: 200, type: 'text/html', body: '<!doctype html><html><body>Welcome</body></html>' },
  ];
  for (const { what, status, type, body } of NO_API) {
    test(`a BASE_URL answering ${what} to everything: "does not serve this API", never a token`, async () => {
      const web = createHttpServer((request, response) => request.resume().on('end', () => response.writeHead(status, { 'content-type': type }).end(request.method === 'HEAD' ? undefined : body)));
      await new Promise<void>((resolve) => web.listen(0, '127.0.0.1', resolve));
      try {
        const env = Object.fromEntries(environmentOf(atAddress(world, `http://127.0.0.1:${(web.address() as { port: number }).port}`)));
        const { lines, exitCode } = await doctor(env);
        assert.equal(exitCode, 1, lines.join('\n'));
        assert.equal(lines.length, 2, lines.join('\n'));
        assert.match(lines[1], new RegExp(`^ {2}BASE_URL=http://127\\.0\\.0\\.1:\\d+: does not serve this API: POST /conversations/messages/upload answered ${status} .*, exactly as a path no server has .*; set BASE_URL to the base address of the API`));
        assert.doesNotMatch(lines.join('\n'), /ACCESS_TOKEN|made-up token/);
      } finally {
        await new Promise((resolve) => web.close(resolve));
      }
    });
  }

  test('a server reset since the last preflight: one finding, both readings and the command; what was kept of it is forgotten', async () => {
    const stateDir = mkdtempSync(join(STATE, 'reset-'));
    const first = await listenReference({ seed: '1', testClock: { start: BEFORE_CUTOVER } }, { host: '127.0.0.1', port: 0 });
    const port = Number(new URL(first.address).port);
    const env = environmentAt(first, { [SETTINGS.stateDir.env]: stateDir });
    // What an earlier run kept of it: the preflight's canary, and the refresh token a run spent on it.
    assert.equal((await doctor(env)).exitCode, 0);
    const canary = readdirSync(stateDir).map((name) => readFileSync(join(stateDir, name), 'utf8'));
    assert.equal(canary.length, 1);
    assert.equal(redactText(canary[0], SECRET_VALUES), canary[0], 'the canary holds no token and no signature');
    new SpentRefreshTokens(stateDir, new URL(first.address).origin).add(world.tokens.oauthRefreshToken as string);
    const held = await doctor(env);
    assert.match(held.lines.join('\n'), /as promised: .*what .* keeps of this server, which it still holds/);
    assert.match(held.lines.join('\n'), /OAUTH_REFRESH_TOKEN: .*spent by an earlier run/);
    await first.close();
    // The same address, a server started afresh: it holds nothing of the first.
    const second = await listenReference({ seed: '2', testClock: { start: BEFORE_CUTOVER } }, { host: '127.0.0.1', port });
    try {
      const { lines, exitCode } = await doctor(env);
      assert.equal(exitCode, 0, lines.join('\n'));
      assert.match(lines[0], /: 1 finding \(the run goes on/);
      assert.match(lines[1], new RegExp(`^ {2}STATE_DIR=${stateDir}: the server holds none of what earlier runs kept of it \\(the preflight upload kept .*: GET /files/d/.* answered 404\\), while it gives this run's upload: either it was reset or replaced since; what was kept of the server that is gone is forgotten, never judged \\(the OAUTH_REFRESH_TOKEN spent on it\\); to start afresh yourself after a reset: rm -rf ${stateDir}; or the server breaks PERMANENT-URL-LASTS`));
      assert.doesNotMatch(lines.join('\n'), /spent by an earlier run/, 'the refresh checks run on the new server');
      assert.equal(new SpentRefreshTokens(stateDir, new URL(second.address).origin).has(world.tokens.oauthRefreshToken as string), false);
      // Named once: the next preflight finds this server's own canary.
      const again = await doctor(env);
      assert.match(again.lines[0], /: all clear$/, again.lines.join('\n'));
    } finally {
      await second.close();
    }
  });

  test('a refused upload shows its status, body excerpt and the fields sent, attachmentUrls as it was encoded', async () => {
    const server = await listenReference({ seed: '1', testClock: { start: BEFORE_CUTOVER } }, { host: '127.0.0.1', port: 0 });
    try {
      const { lines } = await doctor(environmentAt(server, { CONVERSATION_ID: SMS_CONVERSATION }));
      assert.match(lines[1], /answered 400 \{.*email channel only.*\} to the fields \{.*"attachmentUrls":"\[\]".*"isSecureAttachment":"true"\}/);
    } finally {
      await server.close();
    }
  });

  test('after the cutover the channel cannot be seen, and the all-clear says so', async () => {
    const server = await listenReference({ seed: '1', testClock: { start: AFTER_CUTOVER } }, { host: '127.0.0.1', port: 0 });
    try {
      const { lines, exitCode } = await doctor(environmentAt(server, { CONVERSATION_ID: SMS_CONVERSATION }));
      assert.equal(exitCode, 0, lines.join('\n'));
      assert.match(lines.join('\n'), /not seen: CONVERSATION_ID's channel \(after the cutover/);
    } finally {
      await server.close();
    }
  });

  test('a refused connection says so, naming BASE_URL', async () => {
    const closed = createServer();
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
    const port = (closed.address() as { port: number }).port;
    await new Promise((resolve) => closed.close(resolve));
    const env = Object.fromEntries(environmentOf(atAddress(world, `http://127.0.0.1:${port}`)));
    const { lines, exitCode } = await doctor(env);
    assert.equal(exitCode, 1);
    assert.deepEqual(lines.slice(1).map((line) => line.split(':')[0]), [`  BASE_URL=http`]);
    assert.match(lines[1], /connection refused .*ECONNREFUSED/);
  });

  test("missing variables are the configuration's own problems, each named, all at once", async () => {
    const { lines, exitCode } = await doctor({ SUITE_MODE: 'live', BASE_URL: 'http://127.0.0.1:1' });
    assert.equal(exitCode, 1);
    assert.match(lines[0], /problems in the configuration/);
    for (const env of ['LOCATION_ID', 'CONVERSATION_ID', 'ACCESS_TOKEN']) assert.ok(lines.some((line) => line.startsWith(`  ${env} is missing`)), `${env} not named:\n${lines.join('\n')}`);
  });

  test('in replay, or with the in-process reference server, there is nothing to check', async () => {
    const environments: Record<string, string>[] = [{ SUITE_MODE: 'replay' }, { SUITE_MODE: 'live', REFERENCE_SERVER: '1' }];
    for (const env of environments) {
      const { lines, exitCode } = await doctor(env);
      assert.equal(exitCode, 0);
      assert.match(lines.join('\n'), /^Preflight: nothing to check: /);
    }
  });
});

describe('npm run conformance against a live target', () => {
  const reports = mkdtempSync(join(tmpdir(), 'doctor-conformance-'));
  let server: Listening;
  before(async () => {
    server = await listenReference({ seed: '1', testClock: { start: BEFORE_CUTOVER } }, { host: '127.0.0.1', port: 0 });
  });
  after(async () => {
    await server.close();
    rmSync(reports, { recursive: true, force: true });
  });

  /** The one test of UPLOAD-ACCEPTED, its spec file named: the runner loads no other. */
  const UPLOAD_ACCEPTED = ['specs/upload-fields.spec.ts', '--grep', 'UPLOAD-ACCEPTED'];

  /** The suite run as a child (asynchronously: the reference server answers from this process). */
  function conformance(env: Record<string, string>, args: string[]): Promise<{ status: number | null; output: string }> {
    const inherited = { ...process.env };
    for (const setting of [...Object.values(SETTINGS), ...Object.values(SERVER_SETTINGS)]) delete inherited[setting.env];
    const child = spawn(process.execPath, [join(ROOT, 'node_modules', '@playwright', 'test', 'cli.js'), 'test', ...args], {
      cwd: ROOT,
      env: { ...inherited, ...env, REPORTS_DIR: reports },
    });
    let output = '';
    child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
    return new Promise((resolve) => child.on('close', (status) => resolve({ status, output })));
  }

  test('a shard stopped by the preflight exits non-zero with its lines and the shard budget, no matrix', { timeout: 120_000 }, async () => {
    const { status, output } = await conformance(environmentAt(server, { ACCESS_TOKEN: MADE_UP_TOKEN }), ['--shard=2/3']);
    assert.equal(status, 1, output);
    // A target with a shared test clock runs one worker: this shard's third of RATE_LIMIT=50 is 16.
    assert.match(output, /Rate limit: shard 2\/3 sends at most 16 requests per 10 s \(RATE_LIMIT=50 shared by 3 shards\), 16 per worker × 1/);
    assert.match(output, /: 1 problem\n {2}ACCESS_TOKEN: refused on the upload and on .*, each time exactly as a made-up token; .*\nFix these, or set SKIP_PREFLIGHT=1/);
    assert.doesNotMatch(output, /Conformance of|Tests: /);
    assertNoSecret([output]);
  });

  test('an ACCESS_TOKEN that may not upload: the run stops with its one line, never a failure of the server', { timeout: 120_000 }, async () => {
    const scopeless = await listenReference({ seed: '1', testClock: { start: BEFORE_CUTOVER }, seedData: seedWithout('ACCESS_TOKEN', 'conversations/message.write') }, { host: '127.0.0.1', port: 0 });
    try {
      const { status, output } = await conformance(environmentAt(scopeless), UPLOAD_ACCEPTED);
      assert.equal(status, 1, output);
      assert.match(output, /: 1 problem\n {2}ACCESS_TOKEN: POST \/conversations\/messages\/upload answered 403 .*it may not upload.*\nFix these, or set SKIP_PREFLIGHT=1/);
      assert.doesNotMatch(output, /Conformance of|Tests: |FAIL/);
      assertNoSecret([output]);
    } finally {
      await scopeless.close();
    }
  });

  test('a server that runs inactive agents: the preflight names AGENT-INACTIVE, the run goes on and fails that rule', { timeout: 120_000 }, async () => {
    const faulty = await listenReference({ seed: '1', fault: 'agent-inactive-runs', testClock: { start: BEFORE_CUTOVER } }, { host: '127.0.0.1', port: 0 });
    try {
      // One test of the rule fails it: each failed test costs a worker of its own (Playwright replaces the worker after a failure).
      const { status, output } = await conformance(environmentAt(faulty), ['specs/agent-execution.spec.ts', '--grep', 'AGENT-INACTIVE .*\\(first message, deprecated\\)']);
      assert.equal(status, 1, output);
      assert.match(output, /: 1 finding \(the run goes on.*\n {2}INACTIVE_AGENT_ID=.*or the server breaks AGENT-INACTIVE/);
      assert.match(output, /FAIL +MUST +AGENT-INACTIVE\n/);
      assertNoSecret([output]);
    } finally {
      await faulty.close();
    }
  });

  test('SKIP_PREFLIGHT=1 runs the tests without it', { timeout: 120_000 }, async () => {
    const { status, output } = await conformance(environmentAt(server, { SKIP_PREFLIGHT: '1' }), UPLOAD_ACCEPTED);
    assert.equal(status, 0, output);
    assert.doesNotMatch(output, /Preflight of/);
    assert.match(output, /Conformance of .*\n[\s\S]*Tests: [1-9]\d* passed, 0 failed/);
  });
});
