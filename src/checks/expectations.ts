// The suite's checks: one small matcher per property, each failure saying Received, Expected and a hint.
// Tests call them at the call site (`expect(reply).toBeRefusal()`), so what is expected stays visible.
import { expect as base } from '@playwright/test';
import { accepted, type Reply, refused, serves } from '../client/api.ts';
import { fileRef, judge, type Judgement } from '../client/evidence.ts';
import { SECURE_PATH_PREFIX } from '../contract/contract.ts';
import { describeErrors, type SchemaId, validatorFor } from '../contract/schemas.ts';
import { sha256, type TestFile } from '../files/test-file.ts';

/** The start of a reply's body as a report shows it, secrets redacted. */
export const excerpt = (reply: Reply) => {
  const text = reply.shown();
  return text.length > 300 ? `${text.slice(0, 300)}…` : text;
};

const result = (pass: boolean, name: string, received: string, expected: string, hint: string) => ({
  pass,
  name,
  message: () => `${name}\n\nExpected: ${expected}\nReceived: ${received}\nHint: ${hint}`,
});

/** A matcher's verdict on a reply, noted on its exchange for a reproducer (under `.not` the expectation is the matcher's opposite, which a reproducer does not check). */
function judged(isNot: boolean, reply: Reply, pass: boolean, expected: Judgement['expected'], file?: TestFile): boolean {
  if (!isNot) judge(reply, { expected, ...(file ? { file: fileRef(file) } : {}), held: pass });
  return pass;
}

export const expect = base.extend({
  /**
   * Error codes are not shown by the contract: any 4xx is a refusal; a 5xx never is; a 2xx is an acceptance. A 429
   * refuses nothing in particular: the check is then inconclusive (the transport marks it), never passed.
   */
  toBeRefusal(reply: Reply) {
    const pass = judged(this.isNot, reply, refused(reply), 'refusal');
    return result(pass, 'toBeRefusal', `${reply.status} ${excerpt(reply)}`, 'a 4xx refusal (any code: the contract shows none)',
      reply.status === 429 ? 'Inconclusive: the server was still rate-limiting after the retries, so this proves nothing'
      : reply.status >= 500 ? 'a 5xx is a server error, never a valid refusal'
      : 'a 2xx or 3xx means the server accepted what the contract forbids');
  },

  toBeAcceptance(reply: Reply) {
    return result(judged(this.isNot, reply, accepted(reply), 'acceptance'), 'toBeAcceptance', `${reply.status} ${excerpt(reply)}`, 'a 2xx acceptance',
      'the request is valid under the contract; the body above says why the server refused it');
  },

  toHaveJsonContentType(reply: Reply) {
    const type = reply.headers['content-type'] ?? '(none)';
    return result(/^application\/([\w.+-]+\+)?json\b/i.test(type), 'toHaveJsonContentType', type, 'application/json', 'the contract documents an application/json response');
  },

  toMatchSchema(value: unknown, id: SchemaId) {
    const validate = validatorFor(id);
    const pass = validate(value) === true;
    return result(pass, 'toMatchSchema', pass ? 'valid' : describeErrors(validate.errors), `a document valid against schemas/${id}.schema.json`,
      'every property the contract marks required must be present with its documented type');
  },

  /** The body is the uploaded file, byte for byte (compared by SHA-256). */
  toServeBytesOf(reply: Reply, file: TestFile) {
    const digest = sha256(reply.body);
    return result(judged(this.isNot, reply, serves(reply, file), 'serves', file), 'toServeBytesOf', `${reply.status}, ${reply.body.length} bytes, sha256 ${digest}`,
      `2xx with ${file.bytes.length} bytes of ${file.name}, sha256 ${file.sha256}`,
      reply.status >= 300 ? 'the URL did not serve the file' : 'the bytes served differ from the bytes uploaded');
  },

  /** The file is not handed out: any answer but a 2xx carrying its bytes, and never a 5xx. */
  toWithholdBytesOf(reply: Reply, file: TestFile) {
    const served = serves(reply, file);
    return result(judged(this.isNot, reply, !served && reply.status < 500, 'withholds', file), 'toWithholdBytesOf', `${reply.status}, ${reply.body.length} bytes`,
      `no copy of ${file.name}: a refusal (any 4xx) or an answer without its bytes`,
      served ? 'the file was served to a request that has no right to it' : 'a 5xx is a server error, never a valid refusal');
  },

  /** A HEAD that tells nothing of the file: no 2xx giving its size as Content-Length (a page of the server's own, such as a sign-in page, is no copy of it). */
  toHideMetadataOf(reply: Reply, file: TestFile) {
    const type = reply.headers['content-type'] ?? '(none)';
    const length = reply.headers['content-length'];
    const told = reply.status >= 200 && reply.status < 300 && length === String(file.bytes.length) && !/^text\/html\b/i.test(type);
    return result(!told, 'toHideMetadataOf', `${reply.status}, Content-Type ${type}, Content-Length ${length ?? '(none)'}`,
      `no 2xx giving the size of ${file.name} (${file.bytes.length} bytes) as its Content-Length`,
      "a private attachment tells an anonymous caller nothing of itself: a HEAD answered as a GET of the file would be gives away the file's type and size");
  },

  /**
   * A read with `Range: bytes=first-last`: RFC 9110 lets a server ignore it (§14.2: 200 with the whole file), and a
   * 206 carries exactly those bytes under a Content-Range naming them (§14.4, §15.3.7).
   */
  toServeRangeOf(reply: Reply, file: TestFile, [first, last]: readonly [number, number]) {
    const wanted = file.bytes.subarray(first, last + 1);
    const range = reply.headers['content-range'];
    const pass =
      (reply.status === 200 && serves(reply, file)) ||
      (reply.status === 206 && sha256(reply.body) === sha256(wanted) && new RegExp(`^bytes ${first}-${last}/(${file.bytes.length}|\\*)$`).test(range ?? ''));
    return result(pass, 'toServeRangeOf', `${reply.status}, ${reply.body.length} bytes, sha256 ${sha256(reply.body)}, Content-Range ${range ?? '(none)'}`,
      `206 with bytes ${first}-${last} of ${file.name} (${wanted.length} bytes, sha256 ${sha256(wanted)}, Content-Range bytes ${first}-${last}/${file.bytes.length}), or 200 with all ${file.bytes.length}`,
      'RFC 9110 §14.2 and §15.3.7: a server may ignore Range, but a 206 holds exactly the range it names; a client that resumes a download or plays media from an offset gets a corrupt file');
  },

  /** A HEAD of a URL that serves a file: the status of its GET, no body, and, where it gives one, the file's length (RFC 9110 §9.3.2). */
  toAnswerHeadAsGet(head: Reply, get: Reply, file: TestFile) {
    const length = head.headers['content-length'];
    const [headType, getType] = [head.headers['content-type'], get.headers['content-type']];
    const pass = head.status === get.status && head.body.length === 0 && (length === undefined || length === String(file.bytes.length)) && (headType === undefined || getType === undefined || headType === getType);
    return result(pass, 'toAnswerHeadAsGet', `${head.status}, ${head.body.length} bytes of body, Content-Length ${length ?? '(none)'}, Content-Type ${headType ?? '(none)'}`,
      `${get.status} as the GET, no body, Content-Length ${file.bytes.length} if any, Content-Type ${getType ?? 'as the GET'} if any`,
      'RFC 9110 §9.3.2 (and §9.1: every general-purpose server supports HEAD): a HEAD is answered as the GET would be, without its content; caches, link checkers and download managers rely on it');
  },

  /**
   * A GET conditional on the validator the file's answer gave (an ETag in If-None-Match, or its Last-Modified in
   * If-Modified-Since): `current`, a 304 without a body or a 200 with the bytes; otherwise the bytes (RFC 9110 §13.1).
   */
  toAnswerConditionally(reply: Reply, file: TestFile, current: boolean) {
    const pass = (current && reply.status === 304 && reply.body.length === 0) || serves(reply, file);
    return result(pass, 'toAnswerConditionally', `${reply.status}, ${reply.body.length} bytes`,
      current ? `304 Not Modified, or 200 with the ${file.bytes.length} bytes of ${file.name}` : `200 with the ${file.bytes.length} bytes of ${file.name}: the validator sent is not the file's`,
      'RFC 9110 §13.1.2 and §15.4.5: a 304 says the copy the client holds is current, so a 304 to a validator that is not the file\'s leaves the client with another file, or none');
  },

  /**
   * An anonymous read of a secure URL in its hour, `left` seconds of it to go: no explicit lifetime a shared cache may
   * keep it for past them (RFC 9111 §3, §4.2.1, §5.2.2: s-maxage, else max-age, else Expires; private and no-store keep
   * it out of shared caches). A heuristic lifetime (§4.2.2) is a cache's own choice, not the answer's: not judged.
   */
  toLetNoSharedCacheKeepPast(reply: Reply, left: number) {
    const control = (reply.headers['cache-control'] ?? '').toLowerCase();
    const directive = (name: string) => new RegExp(`(?:^|,)\\s*${name}\\s*=\\s*"?(\\d+)`).exec(control)?.[1];
    const unshared = /(?:^|,)\s*(private|no-store)\b/.test(control);
    const expires = reply.headers.expires === undefined ? undefined : (Date.parse(reply.headers.expires) - Date.parse(reply.headers.date ?? '')) / 1000;
    const lifetime = unshared ? 0 : Number(directive('s-maxage') ?? directive('max-age') ?? (Number.isFinite(expires) ? expires : 0));
    return result(lifetime <= left, 'toLetNoSharedCacheKeepPast', `Cache-Control ${reply.headers['cache-control'] ?? '(none)'}, Expires ${reply.headers.expires ?? '(none)'}: a shared cache may keep it ${lifetime} s`,
      `no shared cache keeping it past the ${left} s left of its public hour (private, no-store, or a lifetime within them)`,
      'RFC 9111 §3 and §5.2.2: a cache between users and the server keeps what the answer lets it, and would serve the file to anyone once it is private (§4.1 rule 4)');
  },

  toBeSecureAttachmentUrl(url: string) {
    const path = new URL(url).pathname;
    const pass = new RegExp(`${SECURE_PATH_PREFIX}[^/]+$`).test(path);
    return result(pass, 'toBeSecureAttachmentUrl', url, `a URL whose path ends in ${SECURE_PATH_PREFIX}{slug}`, '§4.1 rule 4 gives the form of a secure attachment URL');
  },
});
