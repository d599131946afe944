// The forms HTTP, multipart and OAuth permit a client to write one request in. The suite's own form (lower-case field
// names, an unquoted boundary, the scheme as RFC 6750 writes it, JSON without a charset) is the default of every test,
// so that a refusal elsewhere is pinned to what the test varies; a spelling changes one thing, as a real client would
// (a browser, a mail client, an SDK, a proxy that rewrites headers).

/** One way of writing a request other than the suite's own; each field changes one thing of it. */
export interface Spelling {
  /** Header field names in Title-Case or UPPER case: case-insensitive (RFC 9110 §5.1). */
  fieldNames?: 'title' | 'upper';
  /** The auth-scheme in lower or upper case: a case-insensitive token (RFC 9110 §11.1). */
  scheme?: 'lower' | 'upper';
  /** The multipart boundary as a quoted-string (RFC 2046 §5.1.1, RFC 7578 §4.1, RFC 9110 §5.6.6). */
  quotedBoundary?: true;
  /** A part's header field names in Title-Case (RFC 7578 §4.8 keeps RFC 2045's case-insensitive names). */
  partFieldNames?: 'title';
  /** `application/json; charset=utf-8`: a parameter RFC 8259 §11 defines none of, and says has no effect. */
  jsonCharset?: true;
  /** The body in chunks, without a Content-Length (RFC 9112 §6.1, §7.1), as a client streaming it sends it. */
  chunked?: true;
  /** `Expect: 100-continue` (RFC 9110 §10.1.1), as curl sends it before a large body; the body follows at once. */
  expectContinue?: true;
  /** The request-target in absolute-form (`GET http://host/path HTTP/1.1`), as a proxy forwards it: a server MUST accept it (RFC 9112 §3.2.2). */
  absoluteForm?: true;
}

/** What a request without a body (a GET of a file URL) can be written otherwise in: its header names, its auth-scheme, its request-target. */
const BODILESS: readonly (keyof Spelling)[] = ['fieldNames', 'scheme', 'absoluteForm'];
export const bodiless = (spelling: Spelling) => Object.keys(spelling).every((key) => BODILESS.includes(key as keyof Spelling));

const title = (name: string) => name.replace(/(^|-)([a-z])/g, (_, dash: string, letter: string) => `${dash}${letter.toUpperCase()}`);

/** A header field name as the spelling writes it. */
const fieldName = (name: string, spelling: Spelling | undefined) =>
  spelling?.fieldNames === 'title' ? title(name) : spelling?.fieldNames === 'upper' ? name.toUpperCase() : name;

/** A part header's field name as the spelling writes it. */
export const partFieldName = (name: string, spelling: Spelling | undefined) => (spelling?.partFieldNames === 'title' ? title(name) : name);

/** The headers of a request as the spelling writes them: names, the Authorization scheme, a JSON type's charset. */
export function spelled(headers: Record<string, string>, spelling: Spelling | undefined): Record<string, string> {
  if (spelling === undefined) return headers;
  return Object.fromEntries(
    Object.entries({ ...headers, ...(spelling.expectContinue ? { expect: '100-continue' } : {}) }).map(([name, value]) => {
      const lower = name.toLowerCase();
      let written = value;
      if (lower === 'authorization' && spelling.scheme) written = value.replace(/^(\S+)/, (scheme) => (spelling.scheme === 'lower' ? scheme.toLowerCase() : scheme.toUpperCase()));
      if (lower === 'content-type' && spelling.jsonCharset && /^application\/json\s*$/i.test(value)) written = `${value}; charset=utf-8`;
      return [fieldName(name, spelling), written];
    }),
  );
}

/** What a spelling changes, for a test's title and the evidence: `header field names in Title-Case`. */
export function describeSpelling(spelling: Spelling): string {
  const parts = [
    spelling.fieldNames && `header field names in ${spelling.fieldNames === 'title' ? 'Title-Case' : 'upper case'}`,
    spelling.scheme && `the auth-scheme in ${spelling.scheme} case`,
    spelling.quotedBoundary && 'the boundary quoted',
    spelling.partFieldNames && "each part's header names in Title-Case",
    spelling.jsonCharset && 'Content-Type application/json; charset=utf-8',
    spelling.chunked && 'the body in chunks, without a Content-Length',
    spelling.expectContinue && 'Expect: 100-continue',
    spelling.absoluteForm && 'the request-target in absolute form',
  ].filter((part): part is string => typeof part === 'string');
  return parts.join(', ') || 'the suite\'s own form';
}
