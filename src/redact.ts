// The one redaction function of the project: evidence, recordings and logs all pass through it.

const SECRET_HEADERS = new Set(['authorization', 'proxy-authorization', 'cookie', 'set-cookie', 'x-api-key']);
/** Query parameters that carry signatures or credentials on signed URLs (ours, S3, GCS, Azure, CloudFront). */
const SECRET_PARAMS = /^(signature|sig|token|access_token|x-amz-signature|x-amz-credential|x-amz-security-token|x-goog-signature|x-goog-credential|googleaccessid|se|sp|skoid|sktid|key-pair-id|policy)$/i;

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
      const name = decodeURIComponent(eq < 0 ? pair : pair.slice(0, eq));
      return eq >= 0 && SECRET_PARAMS.test(name) ? `${pair.slice(0, eq)}=${REDACTED}` : pair;
    })
    .join('&');
  return `${url.slice(0, queryAt)}?${query}`;
}

/** Headers with secrets replaced; the names stay, so evidence still shows a token was sent. */
export function redactHeaders(headers: Record<string, string | string[] | undefined>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [name, value] of Object.entries(headers)) {
    if (value === undefined) continue;
    const text = Array.isArray(value) ? value.join(', ') : value;
    out[name] = SECRET_HEADERS.has(name.toLowerCase()) ? redactCredential(text) : text;
  }
  return out;
}

/** `Bearer abc` → `Bearer [REDACTED]`: the scheme stays visible because malformed-header tests judge it. */
function redactCredential(value: string): string {
  const space = value.indexOf(' ');
  return space > 0 ? `${value.slice(0, space)} ${REDACTED}` : REDACTED;
}

/** Known secret values (tokens of the configuration) replaced wherever they appear in a text. */
export function redactText(text: string, secrets: readonly string[]): string {
  let out = text;
  for (const secret of secrets) if (secret.length >= 6) out = out.split(secret).join(REDACTED);
  return redactUrlsIn(out);
}

/** Every absolute URL inside a text, with its signature parameters redacted. */
function redactUrlsIn(text: string): string {
  return text.replace(/https?:\/\/[^\s"'<>]+/g, (url) => redactUrl(url));
}
