// The protocol under the API (§1: "The service is an HTTP REST API"): the request forms HTTP, multipart and OAuth
// permit a client (specs/cases/request-forms.json), and what HTTP says of the URLs the server hands out, for the
// requests real clients send them (a byte range, HEAD, a conditional GET). The contract is silent on each: SHOULD
// rules, their RFC sections in each test's title and hint.
import { offeredUrls, slugOf, urlsServing } from '../src/checks/discover.ts';
import { requestFormCases } from '../src/contract/cases.ts';
import { SECURE_PUBLIC_WINDOW_SECONDS } from '../src/contract/contract.ts';
import { describeSpelling } from '../src/contract/spelling.ts';
import type { Api, Reply } from '../src/client/api.ts';
import { expect, prerequisiteFailed, requireAccepted, requireControl, rule, test } from '../src/suite.ts';
import { type TestFile, testFile } from '../src/files/test-file.ts';

/**
 * The URLs a server hands out that serve a file to any client: the upload's own (permanent, or secure within its public
 * hour; after it, a secure URL is private to every form, the anonymous routes' matter), and the signed URL of §4.2.
 */
const URL_KINDS = ['upload URL', 'signed URL'] as const;

/**
 * A file uploaded just now, the upload's answer, and a URL of that kind serving it: a secure upload for a secure
 * upload URL and for the signed URL, asked for with files.readonly.
 */
async function servedFile(api: Api, name: string, kind: (typeof URL_KINDS)[number] | 'secure upload URL'): Promise<{ file: TestFile; url: string; reply: Reply }> {
  const file = testFile(name, 300);
  const fields = kind === 'upload URL' ? api.uploadFields() : api.uploadFields({ isSecureAttachment: 'true' });
  const reply = await api.upload(`a valid upload of ${name}`, { fields, files: [file] });
  requireAccepted(reply, 'a valid upload', 'UPLOAD-ACCEPTED');
  if (kind !== 'signed URL') {
    return { file, reply, url: (await urlsServing(api, offeredUrls(reply), [file])).get(file.name) ?? prerequisiteFailed('UPLOAD-URL-PER-FILE', `no URL of the upload of ${name} served its bytes`) };
  }
  const slug = offeredUrls(reply).map(slugOf).find((found) => found !== undefined) ?? prerequisiteFailed('SECURE-URL-FORM', 'the secure upload offered no URL of the form /files/d/{slug}');
  const signed = await api.signedUrlFor('GET /files/d/{slug} with files.readonly', slug, 'filesReadonly');
  return { file, reply, url: (await urlsServing(api, offeredUrls(signed), [file])).get(file.name) ?? prerequisiteFailed('SECURE-SIGNED-URL', `no URL offered by GET /files/d/{slug} with files.readonly (${signed.status}) served the file`) };
}

test.describe('HTTP semantics', () => {
  for (const row of requestFormCases()) {
    const form = describeSpelling(row.spelling);
    test(...rule('HTTP-REQUEST-FORMS', row.statement), async ({ api }) => {
      const permitted = `${form}, which ${row.rfc} permits`;
      if (row.operation === 'upload') {
        const files = [testFile('request-form.txt', 300)];
        requireControl(await api.upload("the same upload in the suite's own form (the control)", { files }), "a valid upload in the suite's own form", 'UPLOAD-ACCEPTED');
        expect(await api.upload(`the same upload with ${form}`, { files, spelling: row.spelling }), permitted).toBeAcceptance();
      } else {
        requireControl(await api.execute("a first message in the suite's own form (the control)"), "a first message in the suite's own form", 'SESSION-START');
        expect(await api.execute(`the same first message with ${form}`, { spelling: row.spelling }), permitted).toBeAcceptance();
      }
    });
  }

  for (const kind of URL_KINDS) {
    test(...rule('FILE-RANGE', `a byte range of a file's ${kind} is answered with those bytes or all of them`), async ({ api }) => {
      const { file, url } = await servedFile(api, 'range.pdf', kind);
      const size = file.bytes.length;
      // A range inside, a suffix and an open end: the forms a media player or a resumed download sends (§14.1.2).
      for (const [header, range] of [['bytes=10-99', [10, 99]], ['bytes=-50', [size - 50, size - 1]], ['bytes=100-', [100, size - 1]]] as const) {
        expect.soft(await api.anonymous(`GET of the file with Range: ${header}`, url, { headers: { range: header } }), `Range: ${header}`).toServeRangeOf(file, range);
      }
    });

    test(...rule('FILE-HEAD', `a HEAD of a file's ${kind} is answered as its GET, without the body`), async ({ api }) => {
      const { file, url } = await servedFile(api, 'head.pdf', kind);
      const get = await api.anonymous('GET of the file', url);
      expect(await api.anonymous('HEAD of the file', url, { method: 'HEAD' })).toAnswerHeadAsGet(get, file);
    });

    test(...rule('FILE-CONDITIONAL', `a conditional GET of a file's ${kind} is answered by its validator`), async ({ api }) => {
      const { file, url } = await servedFile(api, 'conditional.pdf', kind);
      const get = await api.anonymous('GET of the file', url);
      const { etag, 'last-modified': lastModified } = get.headers;
      test.skip(etag === undefined && lastModified === undefined, 'not applicable: the file was served without a validator (ETag, Last-Modified), which RFC 9110 §8.8 leaves to the server');
      if (etag !== undefined) {
        expect.soft(await api.anonymous('GET of the file with If-None-Match: its ETag', url, { headers: { 'if-none-match': etag } }), 'If-None-Match: its ETag').toAnswerConditionally(file, true);
        expect.soft(await api.anonymous('GET of the file with If-None-Match: another ETag', url, { headers: { 'if-none-match': '"conformance-other-etag"' } }), 'If-None-Match: another ETag').toAnswerConditionally(file, false);
      }
      if (lastModified !== undefined) {
        expect.soft(await api.anonymous('GET of the file with If-Modified-Since: its Last-Modified', url, { headers: { 'if-modified-since': lastModified } }), 'If-Modified-Since: its Last-Modified').toAnswerConditionally(file, true);
        expect.soft(await api.anonymous('GET of the file with If-Modified-Since: 1 January 2000', url, { headers: { 'if-modified-since': 'Sat, 01 Jan 2000 00:00:00 GMT' } }), 'If-Modified-Since: 1 January 2000').toAnswerConditionally(file, false);
      }
    });
  }

  test(...rule('SECURE-NOT-CACHED', "a secure URL's answer in its hour lets no shared cache keep it past it"), async ({ api }) => {
    const { url, reply } = await servedFile(api, 'not-cached.pdf', 'secure upload URL');
    const read = await api.anonymous('the secure URL, read anonymously in its hour', url);
    // The hour left by the server's own Date headers, whole seconds; without them, all of it.
    const elapsed = Math.max(0, (Date.parse(read.headers.date ?? '') - Date.parse(reply.headers.date ?? '')) / 1000) || 0;
    expect(read).toLetNoSharedCacheKeepPast(SECURE_PUBLIC_WINDOW_SECONDS - elapsed);
  });
});
