// The alt style (style.ts): each choice it makes where the contract is silent, as a client meets it; then the space of
// styles itself. The mutation run's baselines and sampled styles show the suite takes every point of it for correct.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { FastifyInstance } from 'fastify';
import { MAX_FILE_BYTES_BINARY } from '../../src/contract/contract.ts';
import { DEFAULT_POLICY, type Policy, referenceTo } from '../policy.ts';
import { buildServer } from '../server.ts';
import { DIMENSIONS, parseStyle, policyOfStyle, sampleStyle, SPACE, styleSpec } from '../style.ts';
import { absoluteUrls, apiHeaders, bytesOf, execute, fetchUrl, setClock, sha256, T0, upload, validFields, WORLD } from './helpers.ts';

const FILES = 'http://files.reference.test';
/** A PNG and a PDF as the alt style's check of leading bytes sees them. */
const png = (name: string, size = 600) => ({ name, bytes: Buffer.concat([Buffer.from('89504e470d0a1a0a', 'hex'), bytesOf(name, size)]) });
const pdf = (name: string, size = 600) => ({ name, bytes: Buffer.concat([Buffer.from('%PDF-1.7\n'), bytesOf(name, size)]) });
const secureFields = validFields({ isSecureAttachment: 'true' });

let app: FastifyInstance;
before(async () => {
  app = await buildServer({ style: 'alt', seed: 'reference-tests', testClock: { start: Date.parse(T0) }, filesOrigin: FILES });
});
after(() => app.close());

const json = (body: string) => JSON.parse(body) as Record<string, unknown>;

describe('the alt style refuses as the platform does', () => {
  const cases: [string, () => Promise<{ statusCode: number; body: string; headers: Record<string, unknown> }>, number, string[]][] = [
    ['no Version header: 401 {error}', () => upload(app, { files: [png('a.png')], headers: { authorization: `Bearer ${WORLD.tokens.access}` } }), 401, ['error']],
    ['an unknown Version: 401 {error}', () => upload(app, { files: [png('a.png')], headers: { ...apiHeaders(), version: 'v2' } }), 401, ['error']],
    ['a token without the scope: 401 {error}', () => upload(app, { files: [png('a.png')], headers: apiHeaders(WORLD.tokens.filesReadonly) }), 401, ['error']],
    ['a conversation of another location: 404 {error}', () => upload(app, { files: [png('a.png')], fields: validFields({ conversationId: 'conv-ref-foreign' }) }), 404, ['error']],
    ['a file over 5 MiB: 413 {status, message}', () => upload(app, { files: [pdf('big.pdf', MAX_FILE_BYTES_BINARY)] }), 413, ['message', 'status']],
    ['a .exe: 415 {status, message}', () => upload(app, { files: [{ name: 'tool.exe', bytes: bytesOf('tool', 64) }] }), 415, ['message', 'status']],
    ['a .pdf that is not a PDF: 415 {status, message}', () => upload(app, { files: [{ name: 'fake.pdf', bytes: bytesOf('fake', 64) }] }), 415, ['message', 'status']],
    ['a missing locationId: 422 with a list of messages', () => upload(app, { files: [png('a.png')], fields: { conversationId: WORLD.conversationId, attachmentUrls: '[]' } }), 422, ['error', 'message', 'statusCode']],
    ['an agent of another location: 404 {error}', () => execute(app, { body: { message: 'hi', locationId: WORLD.foreignLocationId } }), 404, ['error']],
  ];
  for (const [what, send, status, keys] of cases) {
    test(what, async () => {
      const response = await send();
      assert.equal(response.statusCode, status, response.body);
      assert.match(String(response.headers['content-type']), /^application\/json/);
      assert.deepEqual(Object.keys(json(response.body)).sort(), keys);
    });
  }

  test('a route it does not have: 404 in HTML', async () => {
    const response = await app.inject({ url: '/no-such-route' });
    assert.equal(response.statusCode, 404);
    assert.match(String(response.headers['content-type']), /^text\/html/);
  });
});

describe('the alt style serves files from their own origin', () => {
  test('uploadedFiles lists objects whose URLs are on the files origin; the API origin does not serve them', async () => {
    const files = [png('one.png'), pdf('two.pdf')];
    const response = await upload(app, { files });
    assert.equal(response.statusCode, 200, response.body);
    const body = json(response.body) as { uploadedFiles: { files: { url: string; name: string }[] }; traceId?: string };
    assert.deepEqual(body.uploadedFiles.files.map((f) => f.name), ['one.png', 'two.pdf']);
    assert.match(String(body.traceId), /^[0-9a-f]{8}-[0-9a-f]{4}-4/);
    for (const [i, { url }] of body.uploadedFiles.files.entries()) {
      assert.equal(new URL(url).origin, FILES);
      const read = await fetchUrl(app, url);
      assert.equal(sha256(read.rawPayload), sha256(files[i].bytes));
      const onApi = await app.inject({ url: new URL(url).pathname });
      assert.equal(onApi.statusCode, 404, 'the API origin does not serve files');
    }
  });

  test('GET /files/d/{slug} answers the platform JSON; the signed URL is a CDN one on the files origin, 410 once expired', async () => {
    const file = png('secret.png');
    const [url] = absoluteUrls(json((await upload(app, { files: [file], fields: secureFields })).body));
    assert.equal(new URL(url).origin, FILES);
    const slug = new URL(url).pathname.split('/').pop() as string;
    await setClock(app, { advanceSeconds: 3601 });
    const anonymous = await fetchUrl(app, url);
    assert.equal(anonymous.statusCode, 403);
    assert.deepEqual(Object.keys(json(anonymous.body)), ['error']);
    const answer = await app.inject({ url: `/files/d/${slug}`, headers: apiHeaders(WORLD.tokens.filesReadonly) });
    assert.equal(answer.statusCode, 200, answer.body);
    const signed = json(answer.body);
    assert.deepEqual(Object.keys(signed).sort(), ['allow_download', 'asset_id', 'content_type', 'filename', 'size', 'url']);
    const link = new URL(String(signed.url));
    assert.equal(link.origin, FILES);
    assert.deepEqual([...link.searchParams.keys()], ['Expires', 'KeyName', 'Signature']);
    assert.equal(sha256((await fetchUrl(app, link.href)).rawPayload), sha256(file.bytes));
    link.searchParams.set('Signature', 'A'.repeat(43));
    assert.equal((await fetchUrl(app, link.href)).statusCode, 403);
    await setClock(app, { advanceSeconds: 901 });
    const expired = await fetchUrl(app, String(signed.url));
    assert.equal(expired.statusCode, 410);
    assert.deepEqual(Object.keys(json(expired.body)), ['error']);
  });
});

test('the alt style gives executions UUIDs and its own values for the open fields', async () => {
  const response = await execute(app, { body: { message: 'hi', locationId: WORLD.locationId } });
  assert.equal(response.statusCode, 200, response.body);
  const body = json(response.body);
  assert.match(String(body.executionId), /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-a[0-9a-f]{3}-[0-9a-f]{12}$/);
  assert.equal(body.type, 'message');
  assert.equal((body.generativeOutputs as unknown[]).length, 1);
});

test('the alt style cannot start without the files origin it serves from', async () => {
  await assert.rejects(buildServer({ style: 'alt' }), /origin of their own/);
});

describe('the style space', () => {
  test('the default point is DEFAULT_POLICY itself, and every value of every dimension names only fields of the policy', () => {
    assert.deepEqual(policyOfStyle(parseStyle('default')), {});
    const unknown = DIMENSIONS.flatMap((dimension) =>
      Object.entries(SPACE[dimension]).flatMap(([value, fields]) => Object.keys(fields).filter((key) => !(key in DEFAULT_POLICY)).map((key) => `${dimension}=${value}: ${key}`)),
    );
    assert.deepEqual(unknown, []);
  });

  test('a style is a named point and changes; a wrong one is named with what it takes', () => {
    assert.equal(parseStyle('alt+urlReference=relative').urlReference, 'relative');
    assert.equal(parseStyle('alt+urlReference=relative').uploadedFiles, 'list');
    assert.throws(() => parseStyle('fancy', 'REFERENCE_STYLE'), /REFERENCE_STYLE=fancy is not a reference style; known: default, alt/);
    assert.throws(() => parseStyle('default+colour=red'), /colour is not a dimension of the style space/);
    assert.throws(() => parseStyle('default+urlReference=upside-down'), /urlReference takes absolute, scheme-relative, path-absolute, relative/);
  });

  test('a seed names one point for good, written so that it reads back the same', () => {
    assert.deepEqual(sampleStyle('abc:1'), sampleStyle('abc:1'));
    assert.notDeepEqual(sampleStyle('abc:1'), sampleStyle('abc:2'));
    const point = sampleStyle('abc:1');
    assert.deepEqual(parseStyle(styleSpec(point)), point);
  });

  test('every form of a URL reference resolves back to the URL, on the same origin or another', () => {
    const request = 'http://127.0.0.1:4010/conversations/messages/upload';
    const urls = ['http://127.0.0.1:4010/files/d/att-1', 'http://127.0.0.1:4010/files/p/f-1/a%20b.pdf?v=1', 'http://127.0.0.1:5000/media/f/x.png', 'http://127.0.0.1:4010/conversations/x'];
    for (const form of Object.keys(SPACE.urlReference) as Policy['urlReference'][]) {
      for (const url of urls) assert.equal(new URL(referenceTo(url, request, form), request).href, url, `${form} of ${url}`);
    }
    assert.equal(referenceTo(urls[0], request, 'relative'), '../../files/d/att-1');
    assert.equal(referenceTo(urls[2], request, 'path-absolute'), '//127.0.0.1:5000/media/f/x.png');
  });
});
