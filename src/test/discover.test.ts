// How the suite finds the URLs an answer hands over when the contract shows no shape: in JSON at any depth, or in a
// header (a redirect, the content's own location, a link), as different correct servers do.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { Reply } from '../client/api.ts';
import { offeredUrls } from '../checks/discover.ts';

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
];

for (const [what, reply, expected] of CASES) {
  test(`offered URLs: ${what}`, () => assert.deepEqual(offeredUrls(reply), expected));
}
