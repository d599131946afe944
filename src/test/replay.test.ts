// Replay of a recording made against a staging-like target: another origin for the API, a signed URL on a
// storage host, tokens by name, a signature masked; and the clear failure of a request with no recording.
import { request } from '@playwright/test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { Masker, Replay, REPLAY_BASE_URL, type Recording, writeRecording } from '../recording.ts';
import { testFile } from '../test-files.ts';
import { ReplayMismatchError, Transport } from '../transport.ts';

const dir = mkdtempSync(join(tmpdir(), 'replay-test-'));
after(() => rmSync(dir, { recursive: true, force: true }));

const STORAGE = 'https://storage.example.invalid/bucket/att-1?X-Amz-Signature=REDACTEDREDACTEDRE&X-Amz-Expires=300';

test('replays a recording of another host with a signed URL on a storage host, and names what it cannot answer', async () => {
  const file = testFile('staging.pdf', 5000);
  const recording: Recording = {
    test: 'a staging recording',
    interactions: [
      {
        request: { method: 'GET', url: '{base_url}/files/d/att-1', headers: { authorization: 'Bearer <FILES_READONLY_TOKEN>', version: 'v3' } },
        response: { status: 302, headers: { location: STORAGE }, body: undefined },
      },
      {
        request: { method: 'GET', url: STORAGE, headers: {} },
        response: { status: 200, headers: { 'content-type': 'application/pdf' }, body: { testFile: { name: file.name, size: 5000 } } },
      },
    ],
  };
  const path = join(dir, 'staging.json');
  writeRecording(path, recording);
  const replay = await Replay.load(path, new Masker(REPLAY_BASE_URL, { FILES_READONLY_TOKEN: '<FILES_READONLY_TOKEN>' }));
  const context = await request.newContext();
  const transport = new Transport(context, 5000, { replay });
  try {
    const redirect = await transport.fetch({
      method: 'GET',
      url: `${REPLAY_BASE_URL}/files/d/att-1`,
      headers: { authorization: 'Bearer <FILES_READONLY_TOKEN>', version: 'v3' },
      maxRedirects: 0,
    });
    assert.equal(redirect.status, 302);
    // The signature the suite sends back is the masked one it was given; it matches whatever its value.
    const download = await transport.fetch({ method: 'GET', url: redirect.headers.location, headers: {} });
    assert.ok(download.body.equals(file.bytes));
    assert.deepEqual(replay.unused(), []);
    await assert.rejects(
      transport.fetch({ method: 'GET', url: `${REPLAY_BASE_URL}/files/d/att-2`, headers: {} }),
      (error: unknown) =>
        error instanceof ReplayMismatchError &&
        /GET \{base_url\}\/files\/d\/att-2/.test(error.message) &&
        error.message.includes('staging.json') &&
        error.message.includes('npm run record'),
    );
  } finally {
    await context.dispose();
    replay.close();
  }
});
