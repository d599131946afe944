// The reference server honours the contract: the behaviour every fault departs from.
import type { FastifyInstance } from 'fastify';
import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { type AddressInfo, createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, test } from 'node:test';
import { atAddress, environmentOf } from '../../src/config/config.ts';
import { REPLACEMENT_EXECUTE_PATH } from '../../src/contract/contract.ts';
import { TEST_CLOCK_PATH } from '../plugins/test-clock.ts';
import { validatorFor } from '../../src/contract/schemas.ts';
import { buildServer } from '../server.ts';
import { listenReference } from '../listen.ts';
import { STYLE_NAMES } from '../style.ts';
import { DEFAULT_POLICY } from '../policy.ts';
import {
  apiHeaders,
  bytesOf,
  execute,
  fetchUrl,
  server,
  setClock,
  sha256,
  T0,
  upload,
  uploadedUrl,
  absoluteUrls,
  validFields,
  WORLD,
} from './helpers.ts';

const secureFields = validFields({ isSecureAttachment: 'true' });
const photo = bytesOf('photo', 1000);

/** A fresh server for each test: no state or clock leaks from one test to the next. */
function withServer(): () => FastifyInstance {
  let app: FastifyInstance;
  beforeEach(async () => {
    app = await server();
  });
  afterEach(async () => app.close());
  return () => app;
}

describe('upload', () => {
  const app = withServer();

  test('answers 200 JSON with a map of file name to URL', async () => {
    const response = await upload(app(), { files: [{ name: 'a.png', bytes: photo }, { name: 'b.pdf', bytes: photo }] });
    assert.equal(response.statusCode, 200);
    assert.match(response.headers['content-type'] as string, /^application\/json/);
    assert.deepEqual(Object.keys(response.json().uploadedFiles), ['a.png', 'b.pdf']);
    assert.ok(validatorFor('upload-response')(response.json()));
  });

  test('keeps both files of one name', async () => {
    const response = await upload(app(), { files: [{ name: 'a.png', bytes: photo }, { name: 'a.png', bytes: photo }] });
    assert.deepEqual(Object.keys(response.json().uploadedFiles), ['a.png', 'a (2).png']);
  });

  // A name percent-encoded three times: its URL's path segment runs past a router's default parameter length (100).
  test('serves a file of a long name under the URL it gave', async () => {
    const name = `${encodeURIComponent(encodeURIComponent(encodeURIComponent('model 1-1 résumé 日本')))}.zip`;
    const response = await fetchUrl(app(), await uploadedUrl(app(), { files: [{ name, bytes: photo }] }));
    assert.equal(response.statusCode, 200);
    assert.equal(sha256(response.rawPayload), sha256(photo));
  });

  test('serves a non-secure upload anonymously, exact bytes, typed by extension, after the hour too', async () => {
    const url = await uploadedUrl(app(), { files: [{ name: 'doc.pdf', bytes: photo }] });
    await setClock(app(), { advanceSeconds: 30 * 24 * 3600 });
    const response = await fetchUrl(app(), url);
    assert.equal(response.statusCode, 200);
    assert.equal(sha256(response.rawPayload), sha256(photo));
    assert.equal(response.headers['content-type'], 'application/pdf');
    assert.equal(response.headers['x-content-type-options'], 'nosniff');
  });

  test('refuses a secure upload on a conversation that is not email', async () => {
    const response = await upload(app(), { fields: validFields({ isSecureAttachment: 'true', conversationId: WORLD.nonEmailConversationId }) });
    assert.equal(response.statusCode, 400);
  });

  test('refuses a conversation of another location and a token of another location', async () => {
    assert.equal((await upload(app(), { fields: validFields({ conversationId: 'conv-ref-foreign' }) })).statusCode, 422);
    assert.equal((await upload(app(), { fields: validFields({ locationId: WORLD.foreignLocationId }) })).statusCode, 403);
  });
});

describe('secure attachments', () => {
  const app = withServer();

  test('serve anonymously until the hour ends, then are private', async () => {
    const url = await uploadedUrl(app(), { fields: secureFields, files: [{ name: 'a.png', bytes: photo }] });
    assert.match(new URL(url).pathname, /^\/files\/d\/[^/]+$/);
    await setClock(app(), { advanceSeconds: 3599 });
    const within = await fetchUrl(app(), url);
    assert.equal(within.statusCode, 200);
    assert.equal(sha256(within.rawPayload), sha256(photo));
    await setClock(app(), { advanceSeconds: 1 });
    assert.equal((await fetchUrl(app(), url)).statusCode, 401);
  });

  test('give a files.readonly token a signed URL that serves the bytes until it expires', async () => {
    const url = await uploadedUrl(app(), { fields: secureFields, files: [{ name: 'a.png', bytes: photo }] });
    await setClock(app(), { advanceSeconds: 7200 });
    const response = await fetchUrl(app(), url, apiHeaders(WORLD.tokens.filesReadonly));
    assert.equal(response.statusCode, 302);
    const location = String(response.headers.location);
    const signed = await fetchUrl(app(), location);
    assert.equal(signed.statusCode, 200);
    assert.equal(sha256(signed.rawPayload), sha256(photo));
    assert.equal((await fetchUrl(app(), location.replace(/signature=./, 'signature=A'))).statusCode, 403);
    await setClock(app(), { advanceSeconds: DEFAULT_POLICY.signedUrlSeconds });
    assert.equal((await fetchUrl(app(), location)).statusCode, 403);
  });

  test('refuse a token lacking the scope (403), an unknown token (401) and an unknown slug (404)', async () => {
    const url = await uploadedUrl(app(), { fields: secureFields });
    assert.equal((await fetchUrl(app(), url, apiHeaders(WORLD.tokens.noFilesScope))).statusCode, 403);
    assert.equal((await fetchUrl(app(), url, apiHeaders('unknown-token'))).statusCode, 401);
    assert.equal((await fetchUrl(app(), url.replace(/[^/]+$/, 'att-none'), apiHeaders(WORLD.tokens.filesReadonly))).statusCode, 404);
  });

  test('need the Version header only on the API call, not on the anonymous read', async () => {
    const url = await uploadedUrl(app(), { fields: secureFields });
    assert.equal((await fetchUrl(app(), url, { authorization: `Bearer ${WORLD.tokens.filesReadonly}` })).statusCode, 400);
    assert.equal((await fetchUrl(app(), url)).statusCode, 200);
  });
});

describe('the cutover of 30 November 2026 (00:00Z on this server)', () => {
  const app = withServer();
  const pathAt = async (now: string, fields = validFields()) => {
    await setClock(app(), { now });
    return new URL(await uploadedUrl(app(), { fields })).pathname;
  };

  test('keeps uploads without the flag permanent until 23:59:59Z', async () => {
    assert.match(await pathAt('2026-11-29T23:59:59Z'), /^\/files\/p\//);
  });

  test('stores every upload as secure from 00:00:00Z, whatever the flag', async () => {
    assert.match(await pathAt('2026-11-30T00:00:00Z'), /^\/files\/d\//);
    assert.match(await pathAt('2026-11-30T00:00:01Z', validFields({ isSecureAttachment: 'false' })), /^\/files\/d\//);
    assert.match(await pathAt('2026-12-30T00:00:00Z', validFields({ conversationId: WORLD.nonEmailConversationId })), /^\/files\/d\//);
  });
});

describe('agent execution', () => {
  const app = withServer();

  test('starts a session, continues it with a new interactionId each turn, on both paths', async () => {
    const validate = validatorFor('execution-response');
    const first = await execute(app());
    assert.equal(first.statusCode, 200);
    assert.ok(validate(first.json()), JSON.stringify(validate.errors));
    const { executionId, interactionId } = first.json();
    const second = await execute(app(), {
      path: REPLACEMENT_EXECUTE_PATH,
      body: { message: 'again', locationId: WORLD.locationId, executionId },
    });
    assert.equal(second.json().executionId, executionId);
    assert.notEqual(second.json().interactionId, interactionId);
    assert.match(second.json().response, /^Turn 2 /);
    assert.equal(second.headers.deprecation, undefined);
    assert.match(first.headers.deprecation as string, /^@\d+$/);
    assert.match(first.headers.link as string, /rel="successor-version"/);
  });

  const refusals: [string, Parameters<typeof execute>[1], number][] = [
    ['an inactive agent', { agentId: WORLD.inactiveAgentId }, 422],
    ['an agent of another location', { body: { message: 'hi', locationId: WORLD.foreignLocationId } }, 403],
    ['an unknown agent', { agentId: 'agent-none' }, 404],
    ['a missing message', { body: { locationId: WORLD.locationId } }, 400],
    ['a missing locationId', { body: { message: 'hi' } }, 400],
    ['an unknown executionId', { body: { message: 'hi', locationId: WORLD.locationId, executionId: 'exec-none' } }, 404],
    ['no token', { headers: apiHeaders(null) }, 401],
    ['a malformed Authorization header', { headers: { version: 'v3', authorization: WORLD.tokens.access } }, 401],
    ['a token lacking the execute scope', { headers: apiHeaders(WORLD.tokens.filesReadonly) }, 403],
    ['no Version header', { headers: { authorization: `Bearer ${WORLD.tokens.access}` } }, 400],
    ['an unknown Version', { headers: { ...apiHeaders(), version: 'v2' } }, 400],
  ];
  // The same rules on every path: the deprecated one and the replacement's, the contract's and the platform's.
  for (const path of DEFAULT_POLICY.executePaths) {
    for (const [what, options, status] of refusals) {
      test(`refuses ${what} with ${status} on ${path}`, async () => {
        assert.equal((await execute(app(), { ...options, path })).statusCode, status);
      });
    }
  }

  test('accepts a private integration token and the source parameter', async () => {
    assert.equal((await execute(app(), { headers: apiHeaders(WORLD.tokens.pit), query: '?source=public_api' })).statusCode, 200);
  });
});

describe('oauth', () => {
  const app = withServer();
  const form = (fields: Record<string, string>) => ({
    method: 'POST' as const,
    headers: { version: 'v3', 'content-type': 'application/x-www-form-urlencoded' },
    payload: new URLSearchParams(fields).toString(),
  });
  const client = { client_id: 'ref-app-client', client_secret: 'ref-app-secret' };

  test('exchanges a code once, rotates single-use refresh tokens, and trades an Agency token for a location token', async () => {
    const code = { ...client, grant_type: 'authorization_code', code: 'ref-code-agency' };
    const first = await app().inject({ url: '/oauth/token', ...form(code) });
    assert.equal(first.statusCode, 200);
    assert.equal(first.json().userType, 'Company');
    assert.equal((await app().inject({ url: '/oauth/token', ...form(code) })).statusCode, 400);

    const refresh = { ...client, grant_type: 'refresh_token', refresh_token: first.json().refresh_token };
    const renewed = await app().inject({ url: '/oauth/token', ...form(refresh) });
    assert.equal(renewed.statusCode, 200);
    assert.notEqual(renewed.json().refresh_token, first.json().refresh_token);
    assert.equal((await app().inject({ url: '/oauth/token', ...form(refresh) })).statusCode, 400);

    const exchange = await app().inject({
      method: 'POST',
      url: '/oauth/location-token',
      headers: apiHeaders(renewed.json().access_token),
      payload: { companyId: 'company-ref-main', locationId: WORLD.locationId },
    });
    assert.equal(exchange.statusCode, 200);
    assert.equal(exchange.json().userType, 'Location');
    assert.equal((await execute(app(), { headers: apiHeaders(exchange.json().access_token) })).statusCode, 200);
    const refused = await app().inject({
      method: 'POST',
      url: '/oauth/location-token',
      headers: apiHeaders(WORLD.tokens.access),
      payload: { companyId: 'company-ref-main', locationId: WORLD.locationId },
    });
    assert.equal(refused.statusCode, 403);
  });

  test('refuses a wrong client secret', async () => {
    const response = await app().inject({ url: '/oauth/token', ...form({ ...client, client_secret: 'x', grant_type: 'authorization_code', code: 'ref-code-location' }) });
    assert.equal(response.statusCode, 401);
  });
});

describe('clock and determinism', () => {
  test('the test clock answers and moves; the Date header follows it', async () => {
    const app = await server();
    try {
      assert.deepEqual((await app.inject({ url: '/__test/clock' })).json(), { now: T0 });
      await setClock(app, { advanceSeconds: 90 });
      const response = await execute(app);
      assert.equal(response.headers.date, new Date(Date.parse(T0) + 90_000).toUTCString());
      assert.equal((await app.inject({ method: 'POST', url: '/__test/clock', payload: { now: 'soon' } })).statusCode, 400);
    } finally {
      await app.close();
    }
  });

  test('there is no test clock unless it is switched on', async () => {
    const app = await buildServer();
    try {
      assert.equal((await app.inject({ url: '/__test/clock' })).statusCode, 404);
    } finally {
      await app.close();
    }
  });

  test('two servers of one seed answer the same requests byte for byte', async () => {
    const transcript = async () => {
      const app = await server();
      try {
        const bodies = [(await upload(app, { fields: secureFields })).body];
        const url = absoluteUrls(JSON.parse(bodies[0]))[0];
        bodies.push((await fetchUrl(app, url, apiHeaders(WORLD.tokens.filesReadonly))).body, (await execute(app)).body);
        return bodies;
      } finally {
        await app.close();
      }
    };
    assert.deepEqual(await transcript(), await transcript());
  });
});

describe('npm run serve', () => {
  test('listens on 127.0.0.1 and prints the block of variables that points the suite at it', async () => {
    const child = spawn(process.execPath, ['--import', 'tsx', 'reference/main.ts'], {
      env: { ...process.env, PORT: '0', SEED: '7', TEST_CLOCK: '1', LOG_LEVEL: 'silent' },
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    try {
      let out = '';
      for await (const chunk of child.stdout) {
        out += chunk;
        if (out.includes('TEST_CLOCK_URL=')) break;
      }
      const names = [...out.matchAll(/^([A-Z_]+)=/gm)].map((m) => m[1]);
      // The block is environmentOf's, in the order of SETTINGS: every id and credential the seed's world has.
      assert.deepEqual(names, environmentOf(atAddress(WORLD, 'http://127.0.0.1', TEST_CLOCK_PATH)).map(([name]) => name));
      for (const name of ['ACCESS_TOKEN', 'FILES_READONLY_TOKEN', 'NO_FILES_SCOPE_TOKEN', 'FOREIGN_ACCESS_TOKEN', 'INACTIVE_AGENT_ID']) assert.ok(names.includes(name), name);
      const base = /^BASE_URL=(.+)$/m.exec(out)![1];
      assert.match(base, /^http:\/\/127\.0\.0\.1:\d+$/);
      const clock = await fetch(`${base}/__test/clock`);
      assert.equal(clock.status, 200);
    } finally {
      child.kill('SIGTERM');
    }
  });

  test('on a port in use, says in one line that it is taken and that PORT picks another, in either style, and leaves no store behind', async () => {
    const busy = createServer();
    await new Promise<void>((listening) => busy.listen(0, '127.0.0.1', listening));
    const { port } = busy.address() as AddressInfo;
    const tmp = mkdtempSync(join(tmpdir(), 'serve-busy-'));
    try {
      for (const style of STYLE_NAMES) {
        const result = spawnSync(process.execPath, ['--import', 'tsx', 'reference/main.ts'], { env: { ...process.env, PORT: String(port), STYLE: style, TMPDIR: tmp }, encoding: 'utf8' });
        assert.equal(result.status, 1, result.stderr);
        assert.equal(result.stdout, '');
        assert.equal(result.stderr, `Port ${port} on 127.0.0.1 is taken: set PORT to another one (PORT=0 picks a free one).\n`);
        assert.deepEqual(readdirSync(tmp).filter((name) => name.startsWith('reference-server-')), [], 'the store directory is left behind');
      }
    } finally {
      busy.close();
      rmSync(tmp, { recursive: true, force: true });
    }
  });

  test('names the known faults when FAULT is unknown', async () => {
    const result = spawnSync(process.execPath, ['--import', 'tsx', 'reference/main.ts'], {
      env: { ...process.env, PORT: '0', FAULT: 'no-such-fault' },
      encoding: 'utf8',
    });
    assert.equal(result.status, 2);
    assert.match(result.stderr, /FAULT=no-such-fault is not in reference\/faults\.ts; known faults: upload-six-files/);
  });
});

describe('reset with a fault (listen.ts)', () => {
  test('the same sockets answer as a fresh server of that fault, and of none again', async () => {
    const listening = await listenReference({ seed: '1', testClock: { start: Date.parse(T0) } }, { host: '127.0.0.1', port: 0 });
    const unknownSlug = async () => (await fetch(`${listening.address}/files/d/no-such-slug`, { headers: apiHeaders(WORLD.tokens.filesReadonly) })).status;
    try {
      assert.equal(await unknownSlug(), 404);
      await listening.reset('signed-unknown-slug-500');
      assert.equal(await unknownSlug(), 500);
      await listening.reset('signed-unknown-slug-500');
      assert.equal(await unknownSlug(), 500, 'a reset keeps the fault');
      await listening.reset(undefined);
      assert.equal(await unknownSlug(), 404);
    } finally {
      await listening.close();
    }
  });
});

describe('resetState', () => {
  test('brings a server back to the state of a fresh one of the same options', async () => {
    const app = await server();
    try {
      const first = (await upload(app, { fields: secureFields })).body;
      await setClock(app, { advanceSeconds: 7200 });
      await execute(app);
      await app.resetState();
      assert.deepEqual((await app.inject({ url: '/__test/clock' })).json(), { now: T0 });
      assert.equal((await upload(app, { fields: secureFields })).body, first);
    } finally {
      await app.close();
    }
  });
});
