// Polite live runs: the rate limit (the test clock outside it), retries of 429 and 503 after Retry-After (against the reference server told
// to throttle), the timeout of every request, and the guard against production hosts.
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { listenReference } from '../../reference/listen.ts';
import { loadConfig, readEnvironment } from '../config/config.ts';
import { announcedLimit, bucketOf, describePace, describeRateShare, handOver, noneSent, Pace, paceFile, rateShare, readPace, sleep, slotFile, throttleWaitSeconds } from '../client/politeness.ts';
import { Transport } from '../client/transport.ts';
import { TEST_CLOCK_PATH } from '../../reference/plugins/test-clock.ts';
import { ServerClock } from '../time/server-clock.ts';

test('the pace lets no more than its limit through in any window', async () => {
  const pace = new Pace(4, 300, 1);
  const started = Date.now();
  const times: number[] = [];
  for (let i = 0; i < 10; i++) {
    await pace.acquire();
    // The instant the pace let it through, by its own record: a clock read after the await also counts how late a
    // busy machine resumed this test, which once put two grants 290 ms apart on the page (CI, 28 Nov).
    times.push((pace.recent().credentialed.at(-1) as number) - started);
  }
  for (let i = 4; i < times.length; i++) assert.ok(times[i] - times[i - 4] >= 295, `requests ${i - 4} and ${i} were ${times[i] - times[i - 4]} ms apart`);
  assert.ok(times[9] >= 590 && times[9] < 1500, `10 requests at 4 per 300 ms took ${times[9]} ms`);
});

// A read near an edge follows the move of the test clock at once: the pace is waited for before the move, never between.
test('reserved slots go out back to back, within the limit, and are waited for once before them', async () => {
  // Bounds from the first request, never from a later instant: a busy machine (CI's lanes) delays steps, and may only
  // make a wait look longer. Within them: the reserve waits a window past the first request, its slots a window more.
  const window = 1500;
  const pace = new Pace(4, window, 1);
  const first = Date.now();
  for (let i = 0; i < 3; i++) await pace.acquire();
  await pace.reserve(4);
  assert.ok(Date.now() - first >= window, `4 slots with 1 free waited for the first request to leave the window (${Date.now() - first} ms)`);
  for (let i = 0; i < 4; i++) assert.equal(await pace.acquire(), 0, `reserved request ${i + 1} did not wait`);
  await pace.acquire();
  assert.ok(Date.now() - first >= 2 * window, `the request after the reserved ones waited for them to leave the window: they were counted (${Date.now() - first} ms)`);
  // A reserved slot is taken in both windows, and given back in the one its request does not count in.
  const fresh = new Pace(4, 60_000, 1);
  await fresh.reserve(2);
  assert.deepEqual([fresh.recent().credentialed.length, fresh.recent().anonymous.length], [2, 2]);
  await fresh.acquire('anonymous');
  await fresh.acquire('credentialed');
  assert.deepEqual([fresh.recent().credentialed.length, fresh.recent().anonymous.length], [1, 1], 'each reserved request counts in its own window only');
});

// The platform's limit is per app and location: a GET with no credential names neither, and waits in a window of its own.
test('a GET with no credential counts in a window of its own; every other request in the credentialed one', async () => {
  assert.equal(bucketOf('GET', {}), 'anonymous');
  assert.equal(bucketOf('HEAD', { accept: '*/*' }), 'anonymous');
  assert.equal(bucketOf('GET', { AUTHORIZATION: 'bearer t' }), 'credentialed', 'a header name in any case');
  assert.equal(bucketOf('POST', {}), 'credentialed', 'a token endpoint or an upload with no token still names an app');
  const window = 3000;
  const pace = new Pace(3, window, 1);
  for (let i = 0; i < 3; i++) assert.equal(await pace.acquire('credentialed'), 0);
  // The credentialed window is full: the anonymous one is not, and its requests go at once (a wait is 0 only where none was).
  const first = Date.now();
  for (let i = 0; i < 3; i++) assert.equal(await pace.acquire('anonymous'), 0, `anonymous request ${i + 1} did not wait`);
  assert.deepEqual([pace.recent().credentialed.length, pace.recent().anonymous.length], [3, 3]);
  await pace.acquire('anonymous');
  assert.ok(Date.now() - first >= window - 50, `a fourth anonymous request waited for its own window (${Date.now() - first} ms)`);
});

test("the setup's requests count in the workers' first window, each worker its share of them", async () => {
  const dir = mkdtempSync(join(tmpdir(), 'pace-'));
  try {
    // A window of seconds, the wait judged from the setup's first request: a busy machine may only make it look longer.
    const window = 3000;
    const setup = new Pace(10, window, 1);
    const first = Date.now();
    for (let i = 0; i < 6; i++) await setup.acquire();
    handOver(paceFile(dir), setup.recent());
    // Two workers of 5 each: 3 of the setup's 6 requests in each one's window, 2 slots left before it slides.
    const workers = [new Pace(5, window, 0.5, paceFile(dir)), new Pace(5, window, 0.5, paceFile(dir))];
    assert.deepEqual(workers.map((worker) => worker.recent().credentialed.length), [3, 3]);
    await Promise.all(workers.map(async (worker) => {
      for (let i = 0; i < 3; i++) await worker.acquire();
    }));
    assert.ok(Date.now() - first >= window, `each third request waited for the setup's to leave the window (${Date.now() - first} ms after the first)`);
    // Without a setup, no handover: a fresh pace.
    handOver(paceFile(dir), noneSent());
    assert.equal(new Pace(5, window, 1, paceFile(dir)).recent().credentialed.length, 0);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

// Playwright replaces a worker after a failed test: the new one must not send its whole share again within the window.
test("a worker that replaces another in its slot starts with that worker's requests of the last window", async () => {
  const dir = mkdtempSync(join(tmpdir(), 'pace-'));
  try {
    // A window of seconds: a machine busy with other work (CI's lanes) delays a step by hundreds of milliseconds, and
    // the predecessor's requests must still be in it when the successor starts. The wait is judged against the
    // predecessor's first request, a bound no delay can break.
    const window = 3000;
    const failed = new Pace(4, window, 0.5, paceFile(dir), slotFile(dir, 0));
    const first = Date.now();
    for (let i = 0; i < 3; i++) await failed.acquire();
    const successor = new Pace(4, window, 0.5, paceFile(dir), slotFile(dir, 0));
    assert.equal(successor.recent().credentialed.length, 3);
    assert.equal(new Pace(4, window, 0.5, paceFile(dir), slotFile(dir, 1)).recent().credentialed.length, 0, 'another slot starts empty');
    for (let i = 0; i < 2; i++) await successor.acquire();
    assert.ok(Date.now() - first >= window, `the successor's second request waited for the predecessor's first to leave the window (${Date.now() - first} ms after it)`);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('a throttled answer pauses every worker sharing the pace, halves it, and the pace climbs back slowly', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'pace-'));
  try {
    const [one, other] = [new Pace(20, 1000, 0.5, paceFile(dir)), new Pace(20, 1000, 0.5, paceFile(dir))];
    // Bounds from instants read around each call, never a fixed span: a busy machine (CI's lanes) delays the steps.
    const before = Date.now();
    assert.equal(one.throttled({ 'retry-after': '1' }, 0), 1);
    const after = Date.now();
    assert.equal(other.limit(), 10, 'the other worker slows down too');
    await other.acquire();
    assert.ok(Date.now() - before >= 1000, 'the other worker waited out the pause');
    await sleep(1000);
    // Half the ceiling, climbing back 10 % of it a window from the throttle.
    const climbed = (ms: number) => Math.floor(20 * Math.min(1, 0.5 + (0.1 * ms) / 1000));
    const [from, limit, to] = [Date.now(), other.limit(), Date.now()];
    assert.ok(limit >= climbed(from - after) && limit <= climbed(to - before) && limit >= 12, `two windows later the pace climbed back a little: ${limit}`);
    one.throttled({}, 0);
    assert.ok(readPace(paceFile(dir))?.throttles === 2);
    assert.match(describePace(paceFile(dir), 40) ?? '', /^Pace: the server slowed the run 2 times; it went down to \d+ requests per 10 s/);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('a limit the server announces caps the pace, and a spent window pauses until its reset', () => {
  const pace = new Pace(50, 10_000, 0.5);
  pace.observe({ 'x-ratelimit-limit': '40', 'x-ratelimit-remaining': '30', 'x-ratelimit-reset': '4' });
  assert.equal(pace.limit(), 16, 'half of 80 % of 40 per 10 s');
  pace.observe({ 'ratelimit-limit': '100', 'ratelimit-remaining': '0', 'ratelimit-reset': '3' });
  assert.deepEqual(announcedLimit({ ratelimit: 'limit=100, remaining=0, reset=3' }), { limit: 100, remaining: 0, resetSeconds: 3, windowSeconds: undefined });
  assert.equal(announcedLimit({ 'x-ratelimit-max': '100', 'x-ratelimit-remaining': '99', 'x-ratelimit-interval-milliseconds': '10000' })?.windowSeconds, 10);
  assert.equal(announcedLimit({ date: 'Sun, 22 Nov 2026 10:00:00 GMT', 'x-ratelimit-limit': '5', 'x-ratelimit-reset': String(Date.parse('2026-11-22T10:00:07Z') / 1000) })?.resetSeconds, 7);
  assert.equal(announcedLimit({ 'content-type': 'text/plain' }), undefined);
});

// The shards of a run cannot see each other: each keeps to its fraction of RATE_LIMIT, shared by its workers.
const SHARES = [
  { rateLimit: 50, shards: 1, workers: 2, worker: 25, shard: 50, line: 'Rate limit: this run sends at most 50 requests per 10 s (RATE_LIMIT=50), 25 per worker × 2; as many again of GETs with no credential (the files\' URLs)' },
  { rateLimit: 50, shards: 3, workers: 2, worker: 8, shard: 16, line: 'Rate limit: shard 2/3 sends at most 16 requests per 10 s (RATE_LIMIT=50 shared by 3 shards), 8 per worker × 2; as many again of GETs with no credential (the files\' URLs)' },
  { rateLimit: 50, shards: 3, workers: 1, worker: 16, shard: 16, line: 'Rate limit: shard 2/3 sends at most 16 requests per 10 s (RATE_LIMIT=50 shared by 3 shards), 16 per worker × 1; as many again of GETs with no credential (the files\' URLs)' },
  { rateLimit: 4, shards: 3, workers: 2, worker: 1, shard: 2, line: 'Rate limit: shard 2/3 sends at most 2 requests per 10 s (RATE_LIMIT=4 shared by 3 shards), 1 per worker × 2; more than RATE_LIMIT=4 in all, since each worker sends at least 1; as many again of GETs with no credential (the files\' URLs)' },
];

for (const { rateLimit, shards, workers, worker, shard, line } of SHARES) {
  test(`RATE_LIMIT=${rateLimit} over ${shards} shards of ${workers} workers: ${worker} per worker, ${shard} per shard, said in one line`, () => {
    const config = loadConfig(readEnvironment({ SUITE_MODE: 'live', BASE_URL: 'https://staging.example.test', LOCATION_ID: 'l', CONVERSATION_ID: 'c', CONTACT_ID: 'k', AGENT_ID: 'a', ACCESS_TOKEN: 't1', FILES_READONLY_TOKEN: 't2', NO_FILES_SCOPE_TOKEN: 't3', RATE_LIMIT: String(rateLimit) }, false).values);
    const share = rateShare(config, shards, workers);
    assert.deepEqual(share, { worker, shard });
    assert.equal(describeRateShare(rateLimit, share, shards === 1 ? null : { current: 2, total: shards }, workers), line);
  });
}

test('replay and the in-process reference server are not limited', () => {
  for (const env of [{ SUITE_MODE: 'replay' }, { SUITE_MODE: 'live', REFERENCE_SERVER: '1' }]) {
    assert.equal(rateShare(loadConfig(readEnvironment(env, false).values), 3, 2), undefined);
  }
});

test('Retry-After is read as seconds or as an HTTP-date against the answer\'s Date, bounded; else the announced reset; else 2, 4, 8 s', () => {
  assert.equal(throttleWaitSeconds({ 'retry-after': '3' }, 0), 3);
  // The server's test clock is a year ahead of this machine: its date is read against its own Date header.
  const serverDate = { date: 'Sun, 22 Nov 2027 10:00:00 GMT', 'retry-after': 'Sun, 22 Nov 2027 10:00:05 GMT' };
  assert.equal(throttleWaitSeconds(serverDate, 0, Date.parse('2026-11-22T10:00:00Z')), 5);
  assert.equal(throttleWaitSeconds({ ...serverDate, 'retry-after': 'Sun, 22 Nov 2027 09:00:00 GMT' }, 0), 0, 'a date in the past is no wait');
  assert.equal(throttleWaitSeconds({ 'retry-after': '3600' }, 0), 60);
  assert.equal(throttleWaitSeconds({ 'x-ratelimit-limit': '40', 'x-ratelimit-remaining': '0', 'x-ratelimit-reset': '7' }, 0), 7);
  assert.equal(throttleWaitSeconds({}, 0), 2);
  assert.equal(throttleWaitSeconds({}, 2), 8);
});

// The alt style answers a 429 without Retry-After, as the platform does: the retry then waits 2 s, 4 s, 8 s.
const THROTTLED = [
  { status: 429, style: 'default', how: 'with Retry-After' },
  { status: 503, style: 'default', how: 'with Retry-After' },
  { status: 429, style: 'alt', how: 'without Retry-After' },
] as const;

for (const { status, style, how } of THROTTLED) {
  test(`a ${status} ${how} is retried after the wait, each retry reported, up to the bound`, async () => {
    const { address: base, close } = await listenReference({ style, throttle: { max: 2, windowMs: 1000, status, tell: 'seconds', per: 'all' } }, { host: '127.0.0.1', port: 0 });
    try {
      const retries: string[] = [];
      const transport = new Transport(5000, { maxRetries: 3, onRetry: (what) => retries.push(what) });
      const started = Date.now();
      const answers = [];
      for (let i = 0; i < 3; i++) answers.push((await transport.fetch({ method: 'GET', url: `${base}/no-such-route`, headers: {} })).status);
      assert.deepEqual(answers, [404, 404, 404], 'after the retries the server answers the request itself');
      assert.equal(retries.length, 1);
      const wait = how === 'with Retry-After' ? 1 : 2;
      assert.match(retries[0], new RegExp(`answered ${status}: retry 1 of 3 after ${wait} s`));
      assert.ok(Date.now() - started >= wait * 1000 - 50, 'the wait was honoured');

      const impatient = new Transport(5000, { maxRetries: 0 });
      await impatient.fetch({ method: 'GET', url: `${base}/a`, headers: {} });
      await impatient.fetch({ method: 'GET', url: `${base}/b`, headers: {} });
      const throttled = await impatient.fetch({ method: 'GET', url: `${base}/c`, headers: {} });
      assert.equal(throttled.status, status, 'without retries the answer comes back as it is');
      assert.equal(throttled.headers['retry-after'] !== undefined, how === 'with Retry-After');
    } finally {
      await close();
    }
  });
}

// The test clock is the target's harness, not its API: its moves and readings take no share of RATE_LIMIT.
test('a request to the test clock takes no share of the pace; the requests around it keep to it', async () => {
  const { address: base, close } = await listenReference({ testClock: true }, { host: '127.0.0.1', port: 0 });
  try {
    const transport = new Transport(5000, { limiter: new Pace(2, 4000, 1) });
    const clock = new ServerClock(transport, base, `${base}${TEST_CLOCK_PATH}`);
    const started = Date.now();
    await transport.fetch({ method: 'GET', url: `${base}/a`, headers: {} });
    for (let i = 0; i < 4; i++) await clock.now();
    await clock.advance(60);
    await transport.fetch({ method: 'GET', url: `${base}/b`, headers: {} });
    // Well under the window, which a third request in it would wait for: a busy machine's steps take some of the rest.
    assert.ok(Date.now() - started < 3500, `two paced requests and five to the test clock, at 2 per 4 s, took ${Date.now() - started} ms`);
    await transport.fetch({ method: 'GET', url: `${base}/c`, headers: {} });
    assert.ok(Date.now() - started >= 3950, 'a third paced request waits for the window');
  } finally {
    await close();
  }
});

test('a server that never answers is cut off by the request timeout', async () => {
  const silent = createServer(() => {});
  await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
  try {
    const transport = new Transport(300, {});
    const port = (silent.address() as { port: number }).port;
    await assert.rejects(transport.fetch({ method: 'GET', url: `http://127.0.0.1:${port}/`, headers: {} }), /Timeout 300ms exceeded/);
  } finally {
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
  assert.throws(() => loadConfig(readEnvironment(env, false).values), /BASE_URL=https:\/\/services\.leadconnectorhq\.com is a production host/);
  assert.equal(loadConfig(readEnvironment({ ...env, ALLOW_PRODUCTION: '1' }, false).values).target?.baseUrl, 'https://services.leadconnectorhq.com');
  assert.throws(() => loadConfig(readEnvironment({ ...env, BASE_URL: 'https://api.example.test', PRODUCTION_HOSTS: 'api.example.test' }, false).values), /production host/);
});
