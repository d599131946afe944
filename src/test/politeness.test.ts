// Polite live runs: the rate limit, retries of 429 and 503 after Retry-After (against the reference server told
// to throttle), the timeout of every request, and the guard against production hosts.
import { request } from '@playwright/test';
import assert from 'node:assert/strict';
import { createServer } from 'node:net';
import { test } from 'node:test';
import { listenReference } from '../../reference/listen.ts';
import { loadConfig, readEnvironment } from '../config/config.ts';
import { describeRateShare, RateLimiter, rateShare, retryDelaySeconds } from '../client/politeness.ts';
import { Transport } from '../client/transport.ts';

test('the rate limiter lets no more than max requests through in any window', async () => {
  const limiter = new RateLimiter(4, 300);
  const started = Date.now();
  const times: number[] = [];
  for (let i = 0; i < 10; i++) {
    await limiter.acquire();
    times.push(Date.now() - started);
  }
  for (let i = 4; i < times.length; i++) assert.ok(times[i] - times[i - 4] >= 295, `requests ${i - 4} and ${i} were ${times[i] - times[i - 4]} ms apart`);
  assert.ok(times[9] >= 590 && times[9] < 1500, `10 requests at 4 per 300 ms took ${times[9]} ms`);
});

// The shards of a run cannot see each other: each keeps to its fraction of RATE_LIMIT, shared by its workers.
const SHARES = [
  { rateLimit: 50, shards: 1, workers: 2, worker: 25, shard: 50, line: 'Rate limit: this run sends at most 50 requests per 10 s (RATE_LIMIT=50), 25 per worker × 2' },
  { rateLimit: 50, shards: 3, workers: 2, worker: 8, shard: 16, line: 'Rate limit: shard 2/3 sends at most 16 requests per 10 s (RATE_LIMIT=50 shared by 3 shards), 8 per worker × 2' },
  { rateLimit: 50, shards: 3, workers: 1, worker: 16, shard: 16, line: 'Rate limit: shard 2/3 sends at most 16 requests per 10 s (RATE_LIMIT=50 shared by 3 shards), 16 per worker × 1' },
  { rateLimit: 4, shards: 3, workers: 2, worker: 1, shard: 2, line: 'Rate limit: shard 2/3 sends at most 2 requests per 10 s (RATE_LIMIT=4 shared by 3 shards), 1 per worker × 2; more than RATE_LIMIT=4 in all, since each worker sends at least 1' },
];

for (const { rateLimit, shards, workers, worker, shard, line } of SHARES) {
  test(`RATE_LIMIT=${rateLimit} over ${shards} shards of ${workers} workers: ${worker} per worker, ${shard} per shard, said in one line`, () => {
    const config = loadConfig(readEnvironment({ SUITE_MODE: 'live', BASE_URL: 'https://staging.example.test', LOCATION_ID: 'l', CONVERSATION_ID: 'c', CONTACT_ID: 'k', AGENT_ID: 'a', ACCESS_TOKEN: 't1', FILES_READONLY_TOKEN: 't2', NO_FILES_SCOPE_TOKEN: 't3', RATE_LIMIT: String(rateLimit) }, false));
    const share = rateShare(config, shards, workers);
    assert.deepEqual(share, { worker, shard });
    assert.equal(describeRateShare(rateLimit, share, shards === 1 ? null : { current: 2, total: shards }, workers), line);
  });
}

test('replay and the in-process reference server are not limited', () => {
  for (const env of [{ SUITE_MODE: 'replay' }, { SUITE_MODE: 'live', REFERENCE_SERVER: '1' }]) {
    assert.equal(rateShare(loadConfig(readEnvironment(env, false)), 3, 2), undefined);
  }
});

test('Retry-After is read as seconds or as a date, capped, and defaults to 1, 2, 4 s', () => {
  assert.equal(retryDelaySeconds('3', 0), 3);
  assert.equal(retryDelaySeconds(new Date(Date.parse('2026-11-22T10:00:05Z')).toUTCString(), 0, Date.parse('2026-11-22T10:00:00Z')), 5);
  assert.equal(retryDelaySeconds('3600', 0), 60);
  assert.equal(retryDelaySeconds(undefined, 0), 1);
  assert.equal(retryDelaySeconds(undefined, 2), 4);
});

// The alt style answers a 429 without Retry-After, as the platform does: the retry then waits 1 s, 2 s, 4 s.
const THROTTLED = [
  { status: 429, style: 'default', how: 'with Retry-After' },
  { status: 503, style: 'default', how: 'with Retry-After' },
  { status: 429, style: 'alt', how: 'without Retry-After' },
] as const;

for (const { status, style, how } of THROTTLED) {
  test(`a ${status} ${how} is retried after the wait, each retry reported, up to the bound`, async () => {
    const { address: base, close } = await listenReference({ style, throttle: { max: 2, windowMs: 1000, status } }, { host: '127.0.0.1', port: 0 });
    const context = await request.newContext();
    try {
      const retries: string[] = [];
      const transport = new Transport(context, 5000, { maxRetries: 3, onRetry: (what) => retries.push(what) });
      const started = Date.now();
      const answers = [];
      for (let i = 0; i < 3; i++) answers.push((await transport.fetch({ method: 'GET', url: `${base}/no-such-route`, headers: {} })).status);
      assert.deepEqual(answers, [404, 404, 404], 'after the retries the server answers the request itself');
      assert.equal(retries.length, 1);
      assert.match(retries[0], new RegExp(`answered ${status}: retry 1 of 3 after 1 s`));
      assert.ok(Date.now() - started >= 950, 'the wait was honoured');

      const impatient = new Transport(context, 5000, { maxRetries: 0 });
      await impatient.fetch({ method: 'GET', url: `${base}/a`, headers: {} });
      await impatient.fetch({ method: 'GET', url: `${base}/b`, headers: {} });
      const throttled = await impatient.fetch({ method: 'GET', url: `${base}/c`, headers: {} });
      assert.equal(throttled.status, status, 'without retries the answer comes back as it is');
      assert.equal(throttled.headers['retry-after'] !== undefined, how === 'with Retry-After');
    } finally {
      await context.dispose();
      await close();
    }
  });
}

test('a server that never answers is cut off by the request timeout', async () => {
  const silent = createServer(() => {});
  await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
  const context = await request.newContext();
  try {
    const transport = new Transport(context, 300, {});
    const port = (silent.address() as { port: number }).port;
    await assert.rejects(transport.fetch({ method: 'GET', url: `http://127.0.0.1:${port}/`, headers: {} }), /Timeout 300ms exceeded/);
  } finally {
    await context.dispose();
    silent.close();
  }
});

test('a production host is refused unless ALLOW_PRODUCTION=1', () => {
  const env = {
    SUITE_MODE: 'live',
    BASE_URL: 'https://services.leadconnectorhq.com',
    LOCATION_ID: 'l',
    CONVERSATION_ID: 'c',
    CONTACT_ID: 'k',
    AGENT_ID: 'a',
    ACCESS_TOKEN: 'access-token-x',
    FILES_READONLY_TOKEN: 'files-token-x',
    NO_FILES_SCOPE_TOKEN: 'nofiles-token-x',
  };
  assert.throws(() => loadConfig(readEnvironment(env, false)), /BASE_URL=https:\/\/services\.leadconnectorhq\.com is a production host/);
  assert.equal(loadConfig(readEnvironment({ ...env, ALLOW_PRODUCTION: '1' }, false)).target?.baseUrl, 'https://services.leadconnectorhq.com');
  assert.throws(() => loadConfig(readEnvironment({ ...env, BASE_URL: 'https://api.example.test', PRODUCTION_HOSTS: 'api.example.test' }, false)), /production host/);
});
