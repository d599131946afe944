// Redaction: signature parameters of signed URLs, credential headers, known secrets in any text, and the
// evidence a test attaches, which must never hold a secret of the configuration.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { Evidence } from '../client/evidence.ts';
import { REDACTED, redactHeaders, redactText, redactUrl } from '../config/redact.ts';

const SIGNATURE = 'c2lnbmF0dXJlLXZhbHVlLTQyNDI0Mg';

/** Signed-URL parameters that must lose their value, by whose URLs carry them. */
const SIGNED_PARAMS: [string, string][] = [
  ['reference server', 'signature'],
  ['S3', 'X-Amz-Signature'],
  ['S3', 'X-Amz-Credential'],
  ['S3', 'X-Amz-Security-Token'],
  ['GCS', 'X-Goog-Signature'],
  ['GCS', 'X-Goog-Credential'],
  ['Azure SAS', 'sig'],
  ['CloudFront', 'Signature'],
  ['CloudFront', 'Key-Pair-Id'],
  ['CloudFront', 'Policy'],
];

describe('redactUrl', () => {
  for (const [who, name] of SIGNED_PARAMS) {
    test(`removes the value of ${name} (${who}) and keeps the other parameters`, () => {
      const url = `https://files.example.test/d/abc?expires=1760000000&${name}=${SIGNATURE}&download=1`;
      assert.equal(redactUrl(url), `https://files.example.test/d/abc?expires=1760000000&${name}=${REDACTED}&download=1`);
    });
  }

  test('matches parameter names in any case', () => {
    assert.equal(redactUrl(`https://x.test/o?x-amz-signature=${SIGNATURE}`), `https://x.test/o?x-amz-signature=${REDACTED}`);
    assert.equal(redactUrl(`https://x.test/o?SIG=${SIGNATURE}`), `https://x.test/o?SIG=${REDACTED}`);
  });

  test('redacts a full S3 presigned URL and keeps its non-secret parameters', () => {
    const url =
      'https://bucket.s3.amazonaws.com/key.pdf?X-Amz-Algorithm=AWS4-HMAC-SHA256&X-Amz-Credential=AKIAEXAMPLE%2F20261130%2Fus-east-1%2Fs3%2Faws4_request' +
      `&X-Amz-Date=20261130T000000Z&X-Amz-Expires=300&X-Amz-Security-Token=FwoGZXIvYXdzEXAMPLE&X-Amz-SignedHeaders=host&X-Amz-Signature=${SIGNATURE}`;
    const out = redactUrl(url);
    for (const secret of ['AKIAEXAMPLE', 'FwoGZXIvYXdzEXAMPLE', SIGNATURE]) assert.ok(!out.includes(secret), `${secret} in ${out}`);
    for (const kept of ['X-Amz-Algorithm=AWS4-HMAC-SHA256', 'X-Amz-Date=20261130T000000Z', 'X-Amz-Expires=300', 'X-Amz-SignedHeaders=host']) assert.ok(out.includes(kept), kept);
  });

  test('leaves URLs without secret parameters unchanged', () => {
    for (const url of ['https://x.test/files/p/1/a.png', 'https://x.test/a?b=1&c=2', 'https://x.test/a?design=1&signatures_total=2', '/files/d/slug']) {
      assert.equal(redactUrl(url), url);
    }
  });

  test('does not throw on a malformed escape', () => {
    assert.equal(redactUrl(`https://x.test/a?%zz=1&signature=${SIGNATURE}`), `https://x.test/a?%zz=1&signature=${REDACTED}`);
  });
});

describe('redactHeaders', () => {
  test('keeps the scheme of Authorization and Proxy-Authorization', () => {
    assert.deepEqual(redactHeaders({ Authorization: 'Bearer abc.def.ghi', 'proxy-authorization': 'Basic dXNlcjpwYXNz' }), {
      Authorization: `Bearer ${REDACTED}`,
      'proxy-authorization': `Basic ${REDACTED}`,
    });
  });

  test('redacts a credential without a scheme whole', () => {
    assert.equal(redactHeaders({ authorization: 'abc.def.ghi' }).authorization, REDACTED);
    assert.equal(redactHeaders({ authorization: 'Bearer' }).authorization, REDACTED);
  });

  test('does not keep a token sent before the scheme', () => {
    assert.equal(redactHeaders({ authorization: 'tok-123.secret Bearer' }).authorization, REDACTED);
  });

  test('redacts cookies, set-cookie and API keys whole', () => {
    const out = redactHeaders({ cookie: 'session=s3cr3t; theme=dark', 'set-cookie': ['id=s3cr3t; Path=/; HttpOnly', 'b=2'], 'X-Api-Key': 'key one' });
    assert.deepEqual(out, { cookie: REDACTED, 'set-cookie': REDACTED, 'X-Api-Key': REDACTED });
  });

  test('removes signatures from URLs in other headers, such as Location', () => {
    assert.deepEqual(redactHeaders({ location: `https://x.test/signed/s?expires=1&signature=${SIGNATURE}`, link: `<https://x.test/o?sig=${SIGNATURE}>; rel="alternate"` }), {
      location: `https://x.test/signed/s?expires=1&signature=${REDACTED}`,
      link: `<https://x.test/o?sig=${REDACTED}>; rel="alternate"`,
    });
  });

  test('keeps other headers, joins lists and drops undefined values', () => {
    assert.deepEqual(redactHeaders({ version: 'v3', 'content-type': 'application/json', vary: ['a', 'b'], gone: undefined }), {
      version: 'v3',
      'content-type': 'application/json',
      vary: 'a, b',
    });
  });
});

describe('redactText', () => {
  const TOKEN = 'pit-0a1b2c3d4e5f';

  test('removes known secrets wherever they appear', () => {
    const text = `token ${TOKEN} and again:${TOKEN}, in JSON {"t":"${TOKEN}"}`;
    const out = redactText(text, [TOKEN]);
    assert.ok(!out.includes(TOKEN), out);
    assert.equal(out.split(REDACTED).length - 1, 3);
  });

  test('ignores secrets too short to be tokens', () => {
    assert.equal(redactText('a b c', ['a']), 'a b c');
  });

  test('removes signatures of URLs embedded in JSON', () => {
    const body = JSON.stringify({ url: `https://files.example.test/signed/abc?expires=1760000000&signature=${SIGNATURE}`, asset_id: 'a1' });
    const out = redactText(body, []);
    assert.ok(!out.includes(SIGNATURE), out);
    assert.deepEqual(JSON.parse(out), { url: `https://files.example.test/signed/abc?expires=1760000000&signature=${REDACTED}`, asset_id: 'a1' });
  });

  test('removes signatures of URLs in JSON with escaped slashes, \\u0026, HTML or percent-encoding', () => {
    const bodies = [
      `{"url":"https:\\/\\/storage.googleapis.com\\/b\\/o?X-Goog-Algorithm=GOOG4-RSA-SHA256&X-Goog-Signature=${SIGNATURE}"}`,
      `{"url":"https://storage.googleapis.com/b/o?X-Goog-Algorithm=GOOG4-RSA-SHA256\\u0026X-Goog-Signature=${SIGNATURE}"}`,
      `<a href="https://x.blob.core.windows.net/c/f?sv=2022-11-02&amp;sig=${SIGNATURE}">`,
      `https://app.example.test/login?next=https%3A%2F%2Fx.test%2Fd%3Fexpires%3D1%26signature%3D${SIGNATURE}`,
    ];
    for (const body of bodies) assert.ok(!redactText(body, []).includes(SIGNATURE), body);
  });

  test('keeps the JSON around a redacted URL valid', () => {
    const body = JSON.stringify({ note: `see https://x.test/a?sig=${SIGNATURE}"quoted" and https://x.test/b?sig=${SIGNATURE}\\` });
    const out = redactText(body, []);
    assert.ok(!out.includes(SIGNATURE), out);
    assert.doesNotThrow(() => JSON.parse(out), out);
  });

  test('leaves other parameters and ordinary text alone', () => {
    const text = 'GET https://x.test/files/p/1/a.png?download=1&expires=3 answered 200; the signature is checked';
    assert.equal(redactText(text, []), text);
  });
});

describe('Evidence.add', () => {
  const BY_NAME = { ACCESS_TOKEN: 'access-0123456789abcdef', FILES_READONLY_TOKEN: 'files-0123456789abcdef' };
  const SECRETS = Object.values(BY_NAME);
  const [ACCESS, FILES] = SECRETS;

  /** The evidence as one text, to search for secrets in every field. */
  function recorded(exchange: Omit<Parameters<Evidence['add']>[0], 'startedAt'>): string {
    const evidence = new Evidence(BY_NAME);
    evidence.add({ ...exchange, startedAt: new Date(0).toISOString() });
    assert.equal(evidence.exchanges.length, 1);
    return JSON.stringify(evidence.exchanges);
  }

  const assertClean = (text: string) => {
    for (const secret of [...SECRETS, SIGNATURE]) assert.ok(!text.includes(secret), `${secret} stored in ${text}`);
  };

  test('stores no secret of the Authorization header: a known one by its name, any other redacted', () => {
    const text = recorded({ label: 'upload', method: 'POST', url: 'https://api.example.test/upload', requestHeaders: { authorization: `Bearer ${ACCESS}`, version: 'v3' }, ms: 5 });
    assertClean(text);
    assert.ok(text.includes('Bearer <ACCESS_TOKEN>'));
    for (const [sent, kept] of [[`Basic ${FILES}`, 'Basic <FILES_READONLY_TOKEN>'], [ACCESS, '<ACCESS_TOKEN>'], ['Bearer', 'Bearer'], ['Bearer made-up-0123456789', `Bearer ${REDACTED}`], [`Bearer ${ACCESS}x`, `Bearer ${REDACTED}`]]) {
      assert.ok(recorded({ label: 'l', method: 'GET', url: 'https://api.example.test/x', requestHeaders: { authorization: sent }, ms: 1 }).includes(`"authorization":"${kept}"`), sent);
    }
  });

  test('stores no signature of the URL', () => {
    assertClean(recorded({ label: 'download', method: 'GET', url: `https://api.example.test/files/signed/s?expires=1&signature=${SIGNATURE}`, requestHeaders: {}, ms: 1 }));
  });

  test('stores no secret of the request summary', () => {
    const text = recorded({
      label: 'execute',
      method: 'POST',
      url: 'https://api.example.test/execute',
      requestHeaders: {},
      requestBody: { message: `my token is ${FILES}`, nested: { list: [ACCESS], link: `https://x.test/a?sig=${SIGNATURE}` } },
      ms: 1,
    });
    assertClean(text);
  });

  test('stores no secret of the response headers and body', () => {
    const body = Buffer.from(JSON.stringify({ url: `https://x.test/signed/s?expires=1&signature=${SIGNATURE}`, echo: `Bearer ${ACCESS}` }));
    const text = recorded({
      label: 'signed url',
      method: 'GET',
      url: 'https://api.example.test/files/d/s',
      requestHeaders: { authorization: `Bearer ${FILES}` },
      status: 200,
      responseHeaders: { 'content-type': 'application/json', 'set-cookie': `session=${ACCESS}`, location: `https://x.test/signed/s?signature=${SIGNATURE}` },
      responseBody: body,
      ms: 3,
    });
    assertClean(text);
  });

  test('stores no secret of an error', () => {
    assertClean(
      recorded({ label: 'l', method: 'GET', url: 'https://api.example.test/x', requestHeaders: {}, error: `connect ECONNREFUSED for https://x.test/a?sig=${SIGNATURE} with ${ACCESS}`, ms: 1 }),
    );
  });

  test('a body with a non-JSON content type is redacted too', () => {
    assertClean(
      recorded({ label: 'l', method: 'GET', url: 'https://api.example.test/x', requestHeaders: {}, responseHeaders: { 'content-type': 'text/plain' }, responseBody: Buffer.from(`token ${ACCESS}`), ms: 1 }),
    );
  });

  // The two below fail with src/client/evidence.ts as it is: it runs only redactUrl on the URL and redactHeaders on the
  // headers, never the known secrets. The fix (redact both with this.redact too) is in the helper's report.

  test('stores no secret sent in another header', () => {
    assertClean(recorded({ label: 'l', method: 'GET', url: 'https://api.example.test/x', requestHeaders: { 'x-token': ACCESS }, responseHeaders: { 'x-echo': FILES }, ms: 1 }));
  });

  test('stores no secret in the path or an ordinary parameter of the URL', () => {
    assertClean(recorded({ label: 'l', method: 'GET', url: `https://api.example.test/tokens/${ACCESS}?t=${FILES}`, requestHeaders: {}, ms: 1 }));
  });
});
