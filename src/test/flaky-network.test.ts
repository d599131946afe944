// Network faults are retried, never judged: the transport against the reference server behind scripts/flaky-proxy.ts,
// which answers 503 (as a gateway, without Retry-After) and resets connections before any answer, at given rates.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { listenReference } from '../../reference/listen.ts';
import { startFlakyProxy } from '../../scripts/flaky-proxy.ts';
import { Transport } from '../client/transport.ts';

async function behindProxy(rates: { unavailable: number; reset: number }, check: (base: string, transport: Transport, notes: { retries: string[]; unreachable: string[] }) => Promise<void>) {
  const server = await listenReference({}, { host: '127.0.0.1', port: 0 });
  const proxy = await startFlakyProxy({ target: server.address, ...rates, seed: 7 });
  const notes = { retries: [] as string[], unreachable: [] as string[] };
  try {
    const transport = new Transport(5000, { maxRetries: 3, onRetry: (what) => notes.retries.push(what), onUnreachable: (what) => notes.unreachable.push(what) });
    await check(proxy.address, transport, notes);
  } finally {
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

test('a POST reset before any answer, or answered 503 (not handled, RFC 9110 §15.6.4), is re-sent and says so', async () => {
  await behindProxy({ unavailable: 0, reset: 0.5 }, async (base, transport, notes) => {
    for (let i = 0; i < 4; i++) assert.equal((await transport.fetch({ method: 'POST', url: `${base}/no-such-route`, headers: {}, data: { i } })).status, 404);
    assert.ok(notes.retries.length > 0);
    for (const retry of notes.retries) assert.match(retry, /^POST .* failed \(connection reset\): retry \d of 3 after \d+ s \(re-sent: no byte of an answer came back\)$/);
  });
  await behindProxy({ unavailable: 0.5, reset: 0 }, async (base, transport, notes) => {
    for (let i = 0; i < 4; i++) assert.equal((await transport.fetch({ method: 'POST', url: `${base}/no-such-route`, headers: {}, data: { i } })).status, 404);
    assert.ok(notes.retries.length > 0, 'some POSTs were answered 503 by the proxy');
    for (const retry of notes.retries) assert.match(retry, /^POST .* answered 503: retry \d of 3 after \d+ s \(re-sent: a 503 says it was not handled\)$/);
    assert.deepEqual(notes.unreachable, []);
  });
});

test('the flaky proxy forwards to loopback only', async () => {
  await assert.rejects(startFlakyProxy({ target: 'http://example.com', unavailable: 0.1, reset: 0 }), /loopback only/);
  await assert.rejects(startFlakyProxy({ target: 'http://127.0.0.1:1', unavailable: 0.9, reset: 0 }), /--unavailable 0.9 is not a fraction/);
});
