// Network faults are retried, never judged: the transport against the reference server behind scripts/flaky-proxy.ts,
// which answers 503 (as a gateway, without Retry-After) and resets connections before any answer, at given rates.
import { request } from '@playwright/test';
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { listenReference } from '../../reference/listen.ts';
import { startFlakyProxy } from '../../scripts/flaky-proxy.ts';
import { Transport } from '../client/transport.ts';

async function behindProxy(rates: { unavailable: number; reset: number }, check: (base: string, transport: Transport, notes: { retries: string[]; unreachable: string[] }) => Promise<void>) {
  const server = await listenReference({}, { host: '127.0.0.1', port: 0 });
  const proxy = await startFlakyProxy({ target: server.address, ...rates, seed: 7 });
  const context = await request.newContext();
  const notes = { retries: [] as string[], unreachable: [] as string[] };
  try {
    const transport = new Transport(context, 5000, { maxRetries: 3, onRetry: (what) => notes.retries.push(what), onUnreachable: (what) => notes.unreachable.push(what) });
    await check(proxy.address, transport, notes);
  } finally {
    await context.dispose();
    await proxy.close();
    await server.close();
  }
}

test('every GET gets through a network that answers 503 and resets connections, each retry reported', async () => {
  await behindProxy({ unavailable: 0.2, reset: 0.1 }, async (base, transport, notes) => {
    const answers = [];
    // Backoff waits 1 s a retry: few requests, and the proxy never fails more than two in a row.
    for (let i = 0; i < 8; i++) answers.push((await transport.fetch({ method: 'GET', url: `${base}/no-such-route-${i}`, headers: {} })).status);
    assert.deepEqual(answers, Array(8).fill(404), 'the server itself answered every request');
    assert.ok(notes.retries.length > 0, 'the proxy injected faults and they were retried');
    for (const retry of notes.retries) assert.match(retry, /^GET .* (answered 503|failed \(connection reset\)): retry \d of 3 after \d+ s$/);
    assert.deepEqual(notes.unreachable, []);
  });
});

test('a POST reset before any answer is re-sent and says so; a POST answered 503 is not re-sent and is no verdict', async () => {
  await behindProxy({ unavailable: 0, reset: 0.5 }, async (base, transport, notes) => {
    for (let i = 0; i < 4; i++) assert.equal((await transport.fetch({ method: 'POST', url: `${base}/no-such-route`, headers: {}, data: { i } })).status, 404);
    assert.ok(notes.retries.length > 0);
    for (const retry of notes.retries) assert.match(retry, /^POST .* failed \(connection reset\): retry \d of 3 after \d+ s \(re-sent: no byte of an answer came back\)$/);
  });
  await behindProxy({ unavailable: 0.5, reset: 0 }, async (base, transport, notes) => {
    const attempts = Array.from({ length: 6 }, (_, i) => transport.fetch({ method: 'POST', url: `${base}/no-such-route`, headers: {}, data: { i } }).then((r) => r.status, (e: Error) => e.message));
    const outcomes = await Promise.all(attempts);
    const unavailable = outcomes.filter((o) => typeof o === 'string');
    assert.ok(unavailable.length > 0, 'some POSTs were answered 503 by the proxy');
    for (const message of unavailable) assert.match(String(message), /answered 503 \(a POST that was answered is not re-sent\)/);
    assert.equal(notes.unreachable.length, unavailable.length, 'each is reported as infrastructure, never judged');
    assert.deepEqual(notes.retries, []);
  });
});

test('a POST that has the same effect sent twice (the test clock set to an instant) is retried after a 503 as a GET is', async () => {
  await behindProxy({ unavailable: 0.5, reset: 0 }, async (base, transport, notes) => {
    for (let i = 0; i < 4; i++) assert.equal((await transport.fetch({ method: 'POST', url: `${base}/no-such-route`, headers: {}, data: { i }, idempotent: true })).status, 404);
    assert.ok(notes.retries.length > 0);
    assert.deepEqual(notes.unreachable, []);
  });
});

test('the flaky proxy forwards to loopback only', async () => {
  await assert.rejects(startFlakyProxy({ target: 'http://example.com', unavailable: 0.1, reset: 0 }), /loopback only/);
  await assert.rejects(startFlakyProxy({ target: 'http://127.0.0.1:1', unavailable: 0.9, reset: 0 }), /--unavailable 0.9 is not a fraction/);
});
