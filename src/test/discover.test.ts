// How the suite finds the URLs an answer hands over when the contract shows no shape: in JSON at any depth, or in a
// header (a redirect, the content's own location, a link), as different correct servers do.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { Reply } from '../client/api.ts';
import { offeredUrls, referenceForms } from '../checks/discover.ts';

const replyOf = (headers: Record<string, string>, body: unknown = undefined): Reply => {
  const bytes = Buffer.from(body === undefined ? '' : JSON.stringify(body));
  return { method: 'GET', url: 'https://api.example.test/files/d/abc', status: body === undefined ? 302 : 200, headers, body: bytes, text: () => bytes.toString(), json: () => (body === undefined ? undefined : body), shown: () => bytes.toString() };
};

const CASES: [string, Reply, string[]][] = [
  ['a JSON body at any depth', replyOf({}, { data: { download: [{ href: 'https://cdn.example.test/a?Signature=x' }] } }), ['https://cdn.example.test/a?Signature=x']],
  ['a redirect, its Location relative', replyOf({ location: '/files/signed/abc?sig=1' }), ['https://api.example.test/files/signed/abc?sig=1']],
  ['Content-Location beside a body without URLs', replyOf({ 'content-location': 'https://storage.example.test/o/abc' }, { expiresIn: 300 }), ['https://storage.example.test/o/abc']],
  ['an RFC 8288 link', replyOf({ link: '<https://cdn.example.test/b>; rel="download", </help>; rel="help"' }), ['https://cdn.example.test/b', 'https://api.example.test/help']],
  ['the same URL in the body and a header, once', replyOf({ location: 'https://cdn.example.test/c' }, { url: 'https://cdn.example.test/c' }), ['https://cdn.example.test/c']],
  // RFC 3986 §4.1: every form of reference, resolved against the answer's URL (§5.2).
  ['a scheme-relative URL in the body', replyOf({}, { url: '//cdn.example.test/d' }), ['https://cdn.example.test/d']],
  ['a path-absolute URL in the body, with a query', replyOf({}, { url: '/files/signed/abc?sig=2' }), ['https://api.example.test/files/signed/abc?sig=2']],
  ['relative URLs in the body', replyOf({}, { a: '../signed/abc', b: './abc/raw', c: 'raw/abc' }), ['https://api.example.test/files/signed/abc', 'https://api.example.test/files/d/abc/raw', 'https://api.example.test/files/d/raw/abc']],
  ['relative URLs against Content-Location', replyOf({ 'content-location': '/v3/attachments/abc' }, { url: 'download/abc' }), ['https://api.example.test/v3/attachments/download/abc', 'https://api.example.test/v3/attachments/abc']],
  ['the lines of a text/uri-list answer', { ...replyOf({ 'content-type': 'text/uri-list' }), status: 200, body: Buffer.from('# the signed URL\r\nhttps://cdn.example.test/e?sig=3\r\n'), text: () => '# the signed URL\r\nhttps://cdn.example.test/e?sig=3\r\n' }, ['https://cdn.example.test/e?sig=3']],
  ['words, dates, media types and other schemes are no URLs', replyOf({}, { a: 'completed', b: '2026-11-30T00:00:00Z', c: 'image/png', d: 'mailto:a@b.test', e: 'a b/c', f: 'urn:x:y' }), []],
];

for (const [what, reply, expected] of CASES) {
  test(`offered URLs: ${what}`, () => assert.deepEqual(offeredUrls(reply), expected));
}

test('the form of each URL is named for the report', () => {
  const reply = { ...replyOf({}, { a: 'https://api.example.test/files/p/1/a.txt', b: '//cdn.example.test/x?v=1', c: '/files/d/abc', d: '../p/2/b.txt' }), url: 'https://api.example.test/conversations/messages/upload' };
  assert.deepEqual(referenceForms(reply), ["absolute, on the API's origin", 'scheme-relative, on an origin of their own, with a query', 'path-absolute', 'relative']);
});
