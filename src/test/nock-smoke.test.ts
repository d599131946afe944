// Replay rests on one fact: nock, in this process, answers the requests of Playwright's APIRequestContext.
// If a Playwright or nock upgrade breaks that, this fails first and says so.
import { request } from '@playwright/test';
import nock from 'nock';
import assert from 'node:assert/strict';
import { test } from 'node:test';

test("nock intercepts Playwright's APIRequestContext, and lockdown refuses the rest", async () => {
  nock.disableNetConnect();
  const scope = nock('http://smoke.invalid').post('/echo').reply(201, { ok: true }, { 'content-type': 'application/json' });
  const context = await request.newContext();
  try {
    const response = await context.post('http://smoke.invalid/echo', { data: { ping: 1 } });
    assert.equal(response.status(), 201, "nock no longer intercepts Playwright's requests: replay mode cannot work with these versions");
    assert.ok(scope.isDone());
    await assert.rejects(context.get('http://smoke.invalid/unrecorded'), /Nock: No match/, 'an unrecorded request must be refused, not sent');
  } finally {
    await context.dispose();
    nock.cleanAll();
    nock.enableNetConnect();
  }
});
