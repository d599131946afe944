// The one redaction function of the project: evidence, recordings and logs all pass through it.

const SECRET_HEADERS = new Set(['authorization', 'proxy-authorization', 'cookie', 'set-cookie', 'x-api-key']);
/** Query parameters that carry signatures or credentials on signed URLs (ours, S3, GCS, Azure, CloudFront). */
const SECRET_PARAM_NAMES = [
  'signature', 'sig', 'token', 'access_token',
  'x-amz-signature', 'x-amz-credential', 'x-amz-security-token',
  'x-goog-signature', 'x-goog-credential', 'googleaccessid',
  'se', 'sp', 'skoid', 'sktid',
  'key-pair-id', 'policy',
];
const SECRET_PARAMS = new RegExp(`^(${SECRET_PARAM_NAMES.join('|')})$`, 'i');
/**
 * A secret parameter anywhere in a text, however the URL around it is written: plain, inside JSON with escaped
 * slashes (`https:\/\/…`) or `\u0026` for `&` (Go's encoder), HTML-escaped (`&amp;`), or percent-encoded inside
 * another URL's query (`%3Fsignature%3D…`). The value runs to the next separator; a backslash ends it, so an
 * escaped quote of the JSON around it stays intact.
 */
const SECRET_PARAM_IN_TEXT = new RegExp(
  String.raw`((?:[?&;]|\\u0026|%26|%3F)(?:${SECRET_PARAM_NAMES.join('|')})(?:=|%3D))(?:[^&\s"'<>\\#%]|%(?!26)[0-9A-Fa-f]{2})+`,
  'gi',
);

export const REDACTED = '[REDACTED]';

/** A URL with every signature or credential parameter value replaced. */
export function redactUrl(url: string): string {
  const queryAt = url.indexOf('?');
  if (queryAt < 0) return url;
  const query = url
    .slice(queryAt + 1)
    .split('&')
    .map((pair) => {
      const eq = pair.indexOf('=');
      const name = safeDecode(eq < 0 ? pair : pair.slice(0, eq));
      return eq >= 0 && SECRET_PARAMS.test(name) ? `${pair.slice(0, eq)}=${REDACTED}` : pair;
    })
    .join('&');
  return `${url.slice(0, queryAt)}?${query}`;
}

/** A malformed escape (`%zz`) must not make redaction throw: the name is then compared as written. */
function safeDecode(text: string): string {
  try {
    return decodeURIComponent(text);
  } catch {
    return text;
  }
}

/** Headers with secrets and signatures replaced; the names stay, so evidence still shows a token was sent. */
export function redactHeaders(headers: Record<string, string | string[] | undefined>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [name, value] of Object.entries(headers)) {
    if (value === undefined) continue;
    const text = Array.isArray(value) ? value.join(', ') : value;
    const lower = name.toLowerCase();
    // Other headers keep their value, less any signature: Location or Link may carry a signed URL.
    out[name] = !SECRET_HEADERS.has(lower) ? redactUrlsIn(text) : CREDENTIAL_HEADERS.has(lower) ? redactCredential(text) : REDACTED;
  }
  return out;
}

/** Headers whose value is `<scheme> <credentials>`; cookies and API keys have no scheme and are redacted whole. */
const CREDENTIAL_HEADERS = new Set(['authorization', 'proxy-authorization']);

/**
 * `Bearer abc` → `Bearer [REDACTED]`: the scheme stays visible because malformed-header tests judge it. Only a
 * word that looks like a scheme (letters, at most 20) is kept, so a token sent first (`<token> Bearer`) is not.
 */
function redactCredential(value: string): string {
  const scheme = /^([A-Za-z]{1,20}) /.exec(value);
  return scheme ? `${scheme[1]} ${REDACTED}` : REDACTED;
}

/** A secret as it may appear in a text: as it is, percent-encoded, and form-encoded (a form body or a query string). */
const spellingsOf = (secret: string): string[] => {
  // Every request is masked and redacted several times over, with the same few secrets.
  let spellings = SPELLINGS.get(secret);
  if (!spellings) SPELLINGS.set(secret, (spellings = [...new Set([secret, encodeURIComponent(secret), new URLSearchParams({ s: secret }).toString().slice(2)])]));
  return spellings;
};
const SPELLINGS = new Map<string, string[]>();

/** Each known secret, in each spelling, replaced by `replacement(name)`; secrets shorter than 6 characters are not. */
function replaceSecrets(text: string, secretsByName: Readonly<Record<string, string>>, replacement: (name: string) => string): string {
  let out = text;
  for (const [name, secret] of Object.entries(secretsByName)) {
    if (secret.length >= 6) for (const spelling of spellingsOf(secret)) out = out.split(spelling).join(replacement(name));
  }
  return out;
}

/**
 * For evidence: an Authorization value whose credential is a known secret names it (`Bearer <ACCESS_TOKEN>`), so a
 * reproducer can send it again from the environment; a scheme alone stays; any other credential is redacted.
 */
export function nameCredential(value: string, secretsByName: Readonly<Record<string, string>>): string {
  const named = replaceSecrets(value, secretsByName, (name) => `<${name}>`);
  return /^([A-Za-z]{1,20} )?<[A-Z0-9_]+>$|^[A-Za-z]{0,20}$/.test(named) ? named : redactCredential(value);
}

/** Known secret values (tokens of the configuration, tokens issued) replaced wherever they appear in a text. */
export function redactText(text: string, secrets: readonly string[]): string {
  return redactUrlsIn(replaceSecrets(text, Object.fromEntries(secrets.map((secret, i) => [i, secret])), () => REDACTED));
}

/** Every signature or credential parameter inside a text, in whatever URL encoding it appears. */
function redactUrlsIn(text: string): string {
  return text.replace(SECRET_PARAM_IN_TEXT, (_, prefix: string) => `${prefix}${REDACTED}`);
}

/**
 * For recordings: each known secret becomes `<NAME>` (so replay can tell which token a request carried) and each
 * signature a placeholder of the same length (so code that picks a parameter by its length picks the same one).
 * Applied alike to what was recorded and to what is replayed, so the two compare equal.
 */
export function maskForRecording(text: string, secretsByName: Readonly<Record<string, string>>): string {
  return replaceSecrets(text, secretsByName, (name) => `<${name}>`).replace(SECRET_PARAM_IN_TEXT, (match: string, prefix: string) => {
    const length = match.length - prefix.length;
    return prefix + 'REDACTED'.repeat(Math.ceil(length / 8)).slice(0, length);
  });
}
