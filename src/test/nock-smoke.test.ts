// Replay rests on one fact: nock, in this process, answers the requests of Node's own HTTP client, which replay
// sends through (src/client/transport.ts, sendByNode). If a Node or nock upgrade breaks that, this fails first and says so.
import nock from 'nock';
import assert from 'node:assert/strict';
import http from 'node:http';
import { test } from 'node:test';

/** A POST by Node's client, as replay sends one: its status and body, or the client's error. */
function post(url: string, body: string): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const request = http.request(url, { method: 'POST', headers: { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) } }, (response) => {
      const chunks: Buffer[] = [];
      response.on('data', (chunk: Buffer) => chunks.push(chunk));
      response.on('end', () => resolve({ status: response.statusCode ?? 0, body: Buffer.concat(chunks).toString('utf8') }));
    });
    request.on('error', reject);
    request.end(body);
  });
}

test("nock answers Node's HTTP client, and lockdown refuses the rest", async () => {
  nock.disableNetConnect();
  let received: unknown;
  const scope = nock('http://smoke.invalid')
    .post('/echo')
    .reply(201, (_path, body) => ((received = body), { ok: true }), { 'content-type': 'application/json' });
  try {
    const response = await post('http://smoke.invalid/echo', JSON.stringify({ ping: 1 }));
    assert.equal(response.status, 201, "nock no longer answers Node's HTTP client: replay mode cannot work with these versions");
    assert.deepEqual(JSON.parse(response.body), { ok: true });
    assert.deepEqual(received, { ping: 1 }, 'nock no longer hands the reply the request body, JSON parsed, as replay matches it');
    assert.ok(scope.isDone());
    await assert.rejects(post('http://smoke.invalid/unrecorded', '{}'), /Nock: No match/, 'an unrecorded request must be refused, not sent');
    await assert.rejects(post('http://elsewhere.invalid/', '{}'), /Nock: Disallowed net connect/, 'a request to an origin never recorded must be refused, not sent');
  } finally {
    nock.cleanAll();
    nock.enableNetConnect();
  }
});
