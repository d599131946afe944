// Replay of a recording made against a staging-like target: another origin for the API, a signed URL on a
// storage host, tokens by name, a signature masked; and the clear failure of a request with no recording.
import { REPLAY_BASE_URL } from '../config/config.ts';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { Masker, Replay, type Recording, writeRecording } from '../client/recording.ts';
import { sha256, testFile } from '../files/test-file.ts';
import { ReplayMismatchError, Transport } from '../client/transport.ts';

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
  const transport = new Transport(5000, { replay });
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
    // An origin the recording never saw is named the same way (nock calls it a disallowed connection).
    await assert.rejects(
      transport.fetch({ method: 'GET', url: 'https://elsewhere.example.invalid/files/d/att-1', headers: {} }),
      (error: unknown) => error instanceof ReplayMismatchError && error.message.includes('GET https://elsewhere.example.invalid/files/d/att-1'),
    );
  } finally {
    replay.close();
  }
});

/** A Transport replaying `recording` (written to a file of its own), and its teardown. */
async function replaying(name: string, recording: Recording) {
  const path = join(dir, `${name}.json`);
  writeRecording(path, recording);
  const replay = await Replay.load(path, new Masker(REPLAY_BASE_URL, {}));
  return { replay, transport: new Transport(5000, { replay }), close: () => replay.close() };
}

test('requests in flight together each get a recording of their own, and one too many is named', async () => {
  const answer = (text: string) => ({
    request: { method: 'GET', url: '{base_url}/files/d/att-1', headers: {} },
    response: { status: 200, headers: { 'content-type': 'text/plain' }, body: { text } },
  });
  const { replay, transport, close } = await replaying('twins', { test: 'twins', interactions: [answer('first'), answer('second')] });
  try {
    const get = () => transport.fetch({ method: 'GET', url: `${REPLAY_BASE_URL}/files/d/att-1`, headers: {} });
    const results = await Promise.allSettled([get(), get(), get()]);
    const bodies = results.flatMap((result) => (result.status === 'fulfilled' ? [result.value.body.toString()] : []));
    const refused = results.flatMap((result) => (result.status === 'rejected' ? [result.reason as Error] : []));
    assert.deepEqual(bodies.sort(), ['first', 'second']);
    assert.equal(refused.length, 1);
    assert.ok(refused[0] instanceof ReplayMismatchError && /GET \{base_url\}\/files\/d\/att-1/.test(refused[0].message), refused[0].message);
    assert.deepEqual(replay.unused(), []);
  } finally {
    await close();
  }
});

test('an upload matches on each file by name, size and digest, and a file changed by one byte does not', async () => {
  const file = testFile('digest.pdf', 6000);
  const { transport, close } = await replaying('upload', {
    test: 'upload',
    interactions: [
      {
        request: {
          method: 'POST',
          url: '{base_url}/conversations/messages/upload',
          headers: { 'content-type': 'multipart/form-data' },
          body: { multipart: { fields: [['locationId', 'loc-1']], files: [{ field: 'fileAttachment', name: file.name, size: file.bytes.length, sha256: file.sha256 }] } },
        },
        response: { status: 200, headers: { 'content-type': 'application/json' }, body: { json: { uploadedFiles: {} } } },
      },
    ],
  });
  const upload = (bytes: Buffer) => {
    // As the API client lays a file out: replay sends its size and digest in place of its bytes.
    const form = [{ name: 'locationId', value: 'loc-1' }, { name: 'fileAttachment', file: { name: file.name, bytes, sha256: sha256(bytes) } }];
    return transport.fetch({ method: 'POST', url: `${REPLAY_BASE_URL}/conversations/messages/upload`, headers: {}, multipart: form });
  };
  try {
    const changed = Buffer.from(file.bytes);
    changed[changed.length - 1] ^= 1;
    await assert.rejects(upload(changed), ReplayMismatchError);
    assert.equal((await upload(file.bytes)).status, 200);
  } finally {
    await close();
  }
});
