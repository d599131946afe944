// Every fault of the catalogue is observable: one probe per fault, run against a clean server and
// against the faulty one; the two observations must differ. The table is keyed by fault name, so
// the type checker refuses a fault without a probe.
import type { FastifyInstance } from 'fastify';
import assert from 'node:assert/strict';
import { get } from 'node:http';
import { Readable } from 'node:stream';
import { describe, test } from 'node:test';
import { MAX_FILE_BYTES_BINARY, MAX_FILE_BYTES_DECIMAL, REPLACEMENT_EXECUTE_PATH } from '../../src/contract/contract.ts';
import { validatorFor } from '../../src/contract/schemas.ts';
import { FAULTS, type FaultName, faultCatalogue } from '../faults.ts';
import {
  apiHeaders,
  bytesOf,
  execute,
  fetchUrl,
  offeredUrl,
  type FilePart,
  server,
  setClock,
  sha256,
  upload,
  uploadedUrl,
  absoluteUrls,
  multipart,
  validFields,
  WORLD,
} from './helpers.ts';

type Probe = (app: FastifyInstance) => Promise<unknown>;

const files = (count: number, size = 100): FilePart[] =>
  Array.from({ length: count }, (_, i) => ({ name: `file-${i}.png`, bytes: bytesOf(`file-${i}`, size) }));
const uploadStatus = (options: Parameters<typeof upload>[1]): Probe => async (app) => (await upload(app, options)).statusCode;
const secureFields = validFields({ isSecureAttachment: 'true' });

const DAY = 86_400;

/** Status of an anonymous read of a secure URL (as `spell` writes it), `seconds` after the upload. */
const secureReadAfter = (seconds: number, spell = (url: string) => url, headers: Record<string, string> = {}): Probe => async (app) => {
  const url = await uploadedUrl(app, { fields: secureFields });
  await setClock(app, { advanceSeconds: seconds });
  return (await fetchUrl(app, spell(url), headers)).statusCode;
};

/** The path of the URL of an upload without the flag, made at `at`. */
const urlPathAt = (at: string, fields = validFields()): Probe => async (app) => {
  await setClock(app, { now: at });
  return new URL(await uploadedUrl(app, { fields })).pathname.split('/').slice(0, 3).join('/');
};

async function signedUrl(app: FastifyInstance): Promise<{ url: string; slug: string }> {
  const secure = await uploadedUrl(app, { fields: secureFields });
  const slug = secure.split('/').pop()!;
  const response = await fetchUrl(app, secure, apiHeaders(WORLD.tokens.filesReadonly));
  const url = offeredUrl(response);
  if (url === undefined) throw new Error(`no signed URL: ${response.statusCode} ${response.body}`);
  return { url, slug };
}

const signedStatus = (token: string, slug?: string, afterSeconds = 0): Probe => async (app) => {
  const secure = await uploadedUrl(app, { fields: secureFields });
  await setClock(app, { advanceSeconds: afterSeconds });
  return (await fetchUrl(app, slug ? secure.replace(/[^/]+$/, slug) : secure, apiHeaders(token))).statusCode;
};

const exec = (options: Parameters<typeof execute>[1]): Probe => async (app) => (await execute(app, options)).statusCode;

/** Status of a continuation of a fresh session with this body (its executionId added) and these headers. */
const continuation = (body: Record<string, unknown>, headers?: Record<string, string>): Probe => async (app) => {
  const { executionId } = (await execute(app)).json();
  return (await execute(app, { body: { ...body, executionId }, headers })).statusCode;
};

/** Whether a fresh session's last continuation, after these (each with its body's changes, by these headers), is answered in it. */
const sessionAfter = (changes: Record<string, unknown>[], headers?: Record<string, string>): Probe => async (app) => {
  const { executionId } = (await execute(app)).json();
  let last: unknown;
  for (const change of changes) last = (await execute(app, { body: { message: 'again', locationId: WORLD.locationId, executionId, ...change }, headers })).json().executionId;
  return last === executionId;
};
const validExecution = validatorFor('execution-response');

/** A refresh-token exchange (RFC 6749 §6) of the seed's client, with these fields changed. */
const refresh = (app: FastifyInstance, fields: Record<string, string> = {}) =>
  app.inject({
    method: 'POST',
    url: '/oauth/token',
    headers: { version: 'v3', 'content-type': 'application/x-www-form-urlencoded' },
    payload: new URLSearchParams({ grant_type: 'refresh_token', client_id: WORLD.oauthClientId, client_secret: WORLD.tokens.oauthClientSecret, refresh_token: WORLD.tokens.oauthRefreshToken, ...fields }).toString(),
  });

/** A Sub-Account token of LOCATION_ID, from the Agency token's exchange. */
const locationToken = async (app: FastifyInstance): Promise<string> =>
  (
    await app.inject({
      method: 'POST',
      url: '/oauth/location-token',
      headers: apiHeaders(WORLD.tokens.agencyAccess),
      payload: { companyId: WORLD.companyId, locationId: WORLD.locationId },
    })
  ).json().access_token;

const PROBES: Record<FaultName, Probe> = {
  'upload-six-files': uploadStatus({ files: files(6) }),
  'upload-four-files': uploadStatus({ files: files(5) }),
  'upload-size-unchecked': uploadStatus({ files: [{ name: 'big.pdf', bytes: bytesOf('big', MAX_FILE_BYTES_BINARY + 1) }] }),
  'upload-size-four-mib': uploadStatus({ files: [{ name: 'big.pdf', bytes: bytesOf('big', MAX_FILE_BYTES_DECIMAL) }] }),
  'upload-size-first-file-only': uploadStatus({ files: [...files(1), { name: 'big.pdf', bytes: bytesOf('big', MAX_FILE_BYTES_BINARY + 1) }] }),
  'upload-size-decimal': uploadStatus({ files: [{ name: 'mid.pdf', bytes: bytesOf('mid', MAX_FILE_BYTES_DECIMAL + 1) }] }),
  'upload-body-cap': uploadStatus({ files: files(2, 3_000_000) }),
  'upload-total-cap': uploadStatus({ files: files(5, MAX_FILE_BYTES_BINARY) }),
  'upload-heic-refused': uploadStatus({ files: [{ name: 'photo.heic', bytes: bytesOf('heic', 10) }] }),
  'upload-ext-case-sensitive': uploadStatus({ files: [{ name: 'PHOTO.PNG', bytes: bytesOf('png', 10) }] }),
  'upload-any-extension': uploadStatus({ files: [{ name: 'tool.exe', bytes: bytesOf('exe', 10) }] }),
  'upload-ext-first-file-only': uploadStatus({ files: [...files(1), { name: 'tool.exe', bytes: bytesOf('exe', 10) }] }),
  'upload-ext-first-dot': uploadStatus({ files: [{ name: 'report.pdf.exe', bytes: bytesOf('exe', 10) }] }),
  'upload-ext-suffix': uploadStatus({ files: [{ name: 'reportpdf', bytes: bytesOf('pdf', 10) }] }),
  'upload-target-optional': uploadStatus({ fields: { locationId: WORLD.locationId, attachmentUrls: '[]' } }),
  'upload-conversation-required': uploadStatus({ fields: { locationId: WORLD.locationId, contactId: WORLD.contactId, attachmentUrls: '[]' } }),
  'upload-location-optional': uploadStatus({ fields: { conversationId: WORLD.conversationId, attachmentUrls: '[]' } }),
  'upload-attachment-urls-single': uploadStatus({ fields: validFields({ attachmentUrls: ['https://example.com/a.pdf', 'https://example.com/b.pdf'] }) }),
  'upload-fields-after-files-dropped': async (app) => {
    const { payload, contentType } = multipart({}, files(1));
    const fields = multipart(validFields(), []).payload;
    // The fields' parts moved after the file's: the body ends with them and the closing delimiter.
    const closing = Buffer.from('--reference-test-boundary--\r\n');
    const body = Buffer.concat([payload.subarray(0, payload.length - closing.length), fields]);
    return (await app.inject({ method: 'POST', url: '/conversations/messages/upload', headers: { ...apiHeaders(), 'content-type': contentType }, payload: body })).statusCode;
  },
  'upload-attachment-urls-optional': uploadStatus({ fields: { locationId: WORLD.locationId, conversationId: WORLD.conversationId } }),
  'upload-workflow-refused': uploadStatus({ fields: validFields({ workflowId: 'wf-1' }) }),
  'upload-no-file-accepted': uploadStatus({ files: [] }),
  'upload-text-response': async (app) => (await upload(app)).headers['content-type'],
  'upload-renamed-field': async (app) => Object.keys((await upload(app)).json()),
  'upload-urls-of-first-file': async (app) => new Set(absoluteUrls((await upload(app, { files: files(2) })).json())).size,
  'upload-missing-url': async (app) => absoluteUrls((await upload(app, { files: files(2) })).json()).length,

  'permanent-corrupt-bytes': async (app) => sha256((await fetchUrl(app, await uploadedUrl(app))).rawPayload),
  'permanent-requires-version': async (app) => (await fetchUrl(app, await uploadedUrl(app))).statusCode,
  'permanent-expires': async (app) => {
    const url = await uploadedUrl(app);
    await setClock(app, { advanceSeconds: 8 * DAY });
    return (await fetchUrl(app, url)).statusCode;
  },
  'cutover-early': urlPathAt('2026-11-29T09:00:00Z'),
  'file-octet-stream': async (app) => (await fetchUrl(app, await uploadedUrl(app))).headers['content-type'],
  'svg-inline': async (app) => (await fetchUrl(app, await uploadedUrl(app, { files: [{ name: 'drawing.svg', bytes: bytesOf('svg', 64) }] }))).headers['content-disposition'],
  'no-nosniff': async (app) => (await fetchUrl(app, await uploadedUrl(app))).headers['x-content-type-options'],
  'quoted-boundary-refused': async (app) => {
    const { payload, contentType } = multipart(validFields(), files(1));
    return (await app.inject({ method: 'POST', url: '/conversations/messages/upload', headers: { ...apiHeaders(), 'content-type': contentType.replace(/boundary=(.*)$/, 'boundary="$1"') }, payload })).statusCode;
  },
  'authorization-name-exact': uploadStatus({}),
  'bearer-scheme-exact': exec({ headers: { ...apiHeaders(), authorization: `bearer ${WORLD.tokens.access}` } }),
  'range-shifted': async (app) => sha256((await fetchUrl(app, await uploadedUrl(app), { range: 'bytes=10-19' })).rawPayload),
  'file-head-refused': async (app) => {
    const url = new URL(await uploadedUrl(app));
    return (await app.inject({ method: 'HEAD', url: url.pathname, headers: { host: url.host } })).statusCode;
  },
  'conditional-always-304': async (app) => (await fetchUrl(app, await uploadedUrl(app), { 'if-none-match': '"another"' })).statusCode,

  'secure-wrong-path': urlPathAt('2026-11-20T12:00:00Z', secureFields),
  'secure-private-at-once': secureReadAfter(0),
  'secure-first-file-only': async (app) => absoluteUrls((await upload(app, { fields: secureFields, files: files(2) })).json()).map((url) => new URL(url).pathname.split('/')[2]),
  'secure-window-5-seconds-short': secureReadAfter(3599),
  'secure-never-private': secureReadAfter(3601),
  'secure-window-5-seconds-long': secureReadAfter(3601),
  'secure-public-again': secureReadAfter(DAY),
  'secure-trailing-slash-public': secureReadAfter(3601, (url) => `${url}/`),
  'secure-range-public': secureReadAfter(3601, (url) => url, { range: 'bytes=0-' }),
  'secure-cacheable-past-hour': async (app) => (await fetchUrl(app, await uploadedUrl(app, { fields: secureFields }))).headers['cache-control'],
  'secure-absolute-form-public': async (app) => {
    // light-my-request sends a path only: the request line in absolute form needs a socket (RFC 9112 §3.2.2).
    const url = new URL(await uploadedUrl(app, { fields: secureFields }));
    await setClock(app, { advanceSeconds: 3601 });
    const { port } = new URL(await app.listen({ port: 0, host: '127.0.0.1' }));
    return new Promise((resolve, reject) => {
      get({ host: '127.0.0.1', port, path: url.href, headers: { host: url.host } }, (response) => response.resume().on('end', () => resolve(response.statusCode))).on('error', reject);
    });
  },
  'secure-upper-case-path-public': secureReadAfter(3601, (url) => url.replace('/files/d/', '/FILES/D/')),
  'secure-head-shows-file': async (app) => {
    const url = new URL(await uploadedUrl(app, { fields: secureFields }));
    await setClock(app, { advanceSeconds: 3601 });
    const head = await app.inject({ method: 'HEAD', url: url.pathname, headers: { host: url.host } });
    return [head.statusCode, head.headers['content-length']];
  },
  'signed-url-anonymous': async (app) => {
    const url = await uploadedUrl(app, { fields: secureFields });
    await setClock(app, { advanceSeconds: 3601 });
    const offered = offeredUrl(await fetchUrl(app, url));
    return offered === undefined ? 'no URL' : (await fetchUrl(app, offered)).statusCode;
  },
  'signed-scope-unchecked': signedStatus(WORLD.tokens.noFilesScope),
  'signed-scope-canonical-scheme-only': async (app) => {
    const secure = await uploadedUrl(app, { fields: secureFields });
    return (await fetchUrl(app, secure, { ...apiHeaders(), authorization: `bearer ${WORLD.tokens.noFilesScope}` })).statusCode;
  },
  'signed-scope-refused': signedStatus(WORLD.tokens.filesReadonly),
  'signed-grant-reused': async (app) => {
    const { slug } = await signedUrl(app);
    const secure = (await uploadedUrl(app, { fields: secureFields })).replace(/[^/]+$/, slug);
    return (await fetchUrl(app, secure, apiHeaders(WORLD.tokens.noFilesScope))).statusCode;
  },
  'signed-refused-after-a-week': signedStatus(WORLD.tokens.filesReadonly, undefined, 8 * DAY),
  'signed-unknown-slug-500': signedStatus(WORLD.tokens.filesReadonly, 'att-unknown'),
  'signed-truncated-bytes': async (app) => sha256((await fetchUrl(app, (await signedUrl(app)).url)).rawPayload),
  'signed-never-expires': async (app) => {
    const { url } = await signedUrl(app);
    await setClock(app, { advanceSeconds: 3600 });
    return (await fetchUrl(app, url)).statusCode;
  },
  'signed-not-bound': async (app) => {
    const first = await signedUrl(app);
    const other = await uploadedUrl(app, { fields: secureFields, files: [{ name: 'other.png', bytes: bytesOf('other', 50) }] });
    return (await fetchUrl(app, first.url.replace(first.slug, other.split('/').pop()!))).statusCode;
  },
  'signed-unverified': async (app) => {
    const { url } = await signedUrl(app);
    return (await fetchUrl(app, url.replace(/signature=./, 'signature=A'))).statusCode;
  },

  'cutover-ignored': urlPathAt('2026-11-30T12:00:00Z'),
  'cutover-late': urlPathAt('2026-11-30T12:00:00Z'),
  'cutover-flag-strict': async (app) => {
    await setClock(app, { now: '2026-11-30T12:00:00Z' });
    return (await upload(app, { fields: validFields({ isSecureAttachment: 'yes' }) })).statusCode;
  },
  'cutover-flag-honoured': urlPathAt('2026-11-30T12:00:00Z', validFields({ isSecureAttachment: 'false' })),
  'cutover-pacific': urlPathAt('2026-11-30T01:00:00Z'),

  'session-id-required': exec({}),
  'session-not-continued': async (app) => {
    const first = (await execute(app)).json();
    const next = (await execute(app, { body: { message: 'again', locationId: WORLD.locationId, executionId: first.executionId } })).json();
    return first.executionId === next.executionId;
  },
  'session-interaction-counted': async (app) => (await execute(app)).json().interactionId === (await execute(app)).json().interactionId,
  'session-interaction-reused': async (app) => {
    const first = (await execute(app)).json();
    const next = (await execute(app, { body: { message: 'again', locationId: WORLD.locationId, executionId: first.executionId } })).json();
    return first.interactionId === next.interactionId;
  },
  'session-per-contact': async (app) => {
    const body = { message: 'hi', locationId: WORLD.locationId, contactId: WORLD.contactId };
    return (await execute(app, { body })).json().executionId === (await execute(app, { body })).json().executionId;
  },
  'session-fixed-id': async (app) => (await execute(app)).json().executionId === (await execute(app)).json().executionId,
  'session-unknown-accepted': exec({ body: { message: 'hi', locationId: WORLD.locationId, executionId: 'exec-unknown' } }),
  'exec-field-missing': async (app) => validExecution((await execute(app)).json()),
  'exec-field-wrong-type': async (app) => validExecution((await execute(app)).json()),
  'exec-text-content-type': async (app) => (await execute(app)).headers['content-type'],
  'exec-success-false': async (app) => (await execute(app)).json().success,
  'agent-inactive-runs': exec({ agentId: WORLD.inactiveAgentId }),
  'agent-inactive-runs-on-replacement': exec({ agentId: WORLD.inactiveAgentId, path: REPLACEMENT_EXECUTE_PATH }),
  'agent-location-unchecked': exec({ body: { message: 'hi', locationId: WORLD.foreignLocationId } }),
  'agent-location-unchecked-on-continuation': continuation({ message: 'hi', locationId: WORLD.foreignLocationId }),
  'agent-message-optional': exec({ body: { locationId: WORLD.locationId } }),
  'agent-message-optional-on-continuation': continuation({ locationId: WORLD.locationId }),
  'agent-location-500': exec({ body: { message: 'hi' } }),
  'agent-unknown-runs': exec({ agentId: 'agent-unknown' }),
  'exec-input-variables-refused': exec({ body: { message: 'hi', locationId: WORLD.locationId, inputVariables: { name: 'Ada' } } }),
  'body-wrong-type-500': exec({ body: { message: 1.5, locationId: WORLD.locationId } }),
  'body-empty-runs': exec({ body: {} }),
  'agent-source-refused': exec({ query: '?source=public_api' }),
  'agent-source-internal-refused': exec({ query: '?source=internal' }),

  'deprecated-removed': exec({}),
  'replacement-missing': exec({ path: REPLACEMENT_EXECUTE_PATH }),
  'replacement-other-shape': exec({ path: REPLACEMENT_EXECUTE_PATH }),
  'deprecation-headers-absent': async (app) => (await execute(app)).headers.deprecation,

  'auth-optional-upload': uploadStatus({ headers: apiHeaders(null) }),
  'auth-continuation-takes-session-token': continuation({ message: 'hi', locationId: WORLD.locationId }, { version: 'v3' }),
  'auth-scheme-unchecked': exec({ headers: { version: 'v3', authorization: `Token ${WORLD.tokens.access}` } }),
  'auth-unknown-token-execute': exec({ headers: apiHeaders('not-a-known-token') }),
  'pit-upload-refused': uploadStatus({ headers: apiHeaders(WORLD.tokens.pit) }),
  'auth-pit-refused': exec({ headers: apiHeaders(WORLD.tokens.pit) }),
  'tenant-upload-unchecked': uploadStatus({ headers: apiHeaders(WORLD.tokens.foreignAccess) }),
  'tenant-execute-unchecked': exec({ headers: apiHeaders(WORLD.tokens.foreignAccess) }),
  'tenant-files-unchecked': signedStatus(WORLD.tokens.foreignAccess),
  'version-optional': exec({ headers: { authorization: `Bearer ${WORLD.tokens.access}` } }),
  'version-any': exec({ headers: { version: 'v2', authorization: `Bearer ${WORLD.tokens.access}` } }),

  'refresh-drops-scopes': async (app) => (await upload(app, { headers: apiHeaders((await refresh(app)).json().access_token) })).statusCode,
  'refresh-token-unchecked': async (app) => (await refresh(app, { refresh_token: 'rt-unknown-0000000000000000' })).statusCode,
  'refresh-client-secret-unchecked': async (app) => (await refresh(app, { client_secret: 'wrong-secret' })).statusCode,
  'refresh-not-rotated': async (app) => {
    await refresh(app);
    return (await refresh(app)).statusCode;
  },
  'location-token-superseded': async (app) => {
    const first = await locationToken(app);
    await locationToken(app);
    return (await upload(app, { headers: apiHeaders(first) })).statusCode;
  },
  'location-token-wrong-location': async (app) => (await upload(app, { headers: apiHeaders(await locationToken(app)) })).statusCode,
  'location-token-any-location': async (app) => {
    const foreign = validFields({ locationId: WORLD.foreignLocationId, conversationId: WORLD.foreignConversationId });
    return (await upload(app, { fields: foreign, headers: apiHeaders(await locationToken(app)) })).statusCode;
  },
  'upload-count-unchecked-when-secure': uploadStatus({ fields: secureFields, files: files(6) }),
  'upload-size-unchecked-contact-only': uploadStatus({
    fields: { locationId: WORLD.locationId, contactId: WORLD.contactId, attachmentUrls: '[]' },
    files: [{ name: 'big.pdf', bytes: bytesOf('big', MAX_FILE_BYTES_BINARY + 1) }],
  }),
  'upload-size-unchecked-non-ascii-name': uploadStatus({ files: [{ name: 'grand-résumé.pdf', bytes: bytesOf('big', MAX_FILE_BYTES_BINARY + 1) }] }),
  'cutover-ends-new-year': urlPathAt('2027-01-01T00:00:00Z'),
  'secure-public-once-signed': async (app) => {
    const secure = await uploadedUrl(app, { fields: secureFields });
    await fetchUrl(app, secure, apiHeaders(WORLD.tokens.filesReadonly));
    await setClock(app, { advanceSeconds: 3601 });
    return (await fetchUrl(app, secure)).statusCode;
  },
  'permanent-until-2038': async (app) => {
    const url = await uploadedUrl(app);
    await setClock(app, { now: '2038-01-19T03:14:08Z' });
    return (await fetchUrl(app, url)).statusCode;
  },
  // The probes' server starts before the change (T0), so the upload is older than it.
  'permanent-lost-at-cutover': async (app) => {
    const url = await uploadedUrl(app);
    await setClock(app, { now: '2026-12-01T00:00:00Z' });
    return (await fetchUrl(app, url)).statusCode;
  },
  'upload-size-unchecked-chunked': async (app) => {
    const { payload, contentType } = multipart(validFields(), [{ name: 'big.pdf', bytes: bytesOf('big', MAX_FILE_BYTES_BINARY + 1) }]);
    // inject() sends a stream as it comes, without a Content-Length (light-my-request sets one for a buffer only).
    return (await app.inject({ method: 'POST', url: '/conversations/messages/upload', headers: { ...apiHeaders(), 'content-type': contentType }, payload: Readable.from([payload]) })).statusCode;
  },
  'upload-ext-unchecked-both-targets': uploadStatus({ fields: validFields({ contactId: WORLD.contactId }), files: [{ name: 'tool.exe', bytes: bytesOf('exe', 10) }] }),
  'exec-field-missing-turn-5': async (app) => {
    const { executionId } = (await execute(app)).json();
    let reply: unknown;
    for (let turn = 2; turn <= 5; turn++) reply = (await execute(app, { body: { message: 'again', locationId: WORLD.locationId, executionId } })).json();
    return validExecution(reply);
  },
  'session-interaction-reused-turn-4': async (app) => {
    const { executionId } = (await execute(app)).json();
    const ids: string[] = [];
    for (let turn = 2; turn <= 4; turn++) ids.push((await execute(app, { body: { message: 'again', locationId: WORLD.locationId, executionId } })).json().interactionId);
    return new Set(ids).size;
  },
  'signed-url-first-file-of-upload': async (app) => {
    const response = await upload(app, { fields: secureFields, files: files(2) });
    const signed = await fetchUrl(app, absoluteUrls(response.json())[1], apiHeaders(WORLD.tokens.filesReadonly));
    return sha256((await fetchUrl(app, offeredUrl(signed)!)).rawPayload);
  },
  'permanent-name-unescaped': async (app) => {
    await setClock(app, { now: '2026-11-29T09:00:00Z' });
    const url = await uploadedUrl(app, { files: [{ name: 'hash #1.png', bytes: bytesOf('hash', 100) }] });
    return decodeURIComponent(new URL(url).pathname.split('/').pop() ?? '');
  },
  'upload-name-overwrites': async (app) => {
    const first = await uploadedUrl(app, { files: files(1) });
    await upload(app, { files: files(1, 200) });
    return (await fetchUrl(app, first)).rawPayload.length;
  },
  'cutover-email-only': urlPathAt('2026-11-30T12:00:00Z', validFields({ conversationId: WORLD.nonEmailConversationId })),
  'session-continues-latest': async (app) => {
    const { executionId } = (await execute(app)).json();
    await execute(app);
    return (await execute(app, { body: { message: 'again', locationId: WORLD.locationId, executionId } })).json().executionId === executionId;
  },
  'secure-flag-dropped-after-file': async (app) => {
    const { payload, contentType } = multipart(validFields(), files(1));
    // The flag's part moved after the file's: the body ends with it before the closing delimiter.
    const flag = Buffer.from('--reference-test-boundary\r\nContent-Disposition: form-data; name="isSecureAttachment"\r\n\r\ntrue\r\n');
    const closing = Buffer.from('--reference-test-boundary--\r\n');
    const body = Buffer.concat([payload.subarray(0, payload.length - closing.length), flag, closing]);
    const response = await app.inject({ method: 'POST', url: '/conversations/messages/upload', headers: { ...apiHeaders(), 'content-type': contentType }, payload: body });
    return new URL(absoluteUrls(response.json())[0]).pathname.split('/').slice(0, 3).join('/');
  },
  'upload-answers-crossed': async (app) => {
    // The first upload's body stops after its first bytes until the second upload is answered: both are in flight together.
    const first = multipart(validFields(), files(1));
    let release = () => {};
    const held = new Promise<void>((resolve) => (release = resolve));
    const rest = async function* () {
      yield first.payload.subarray(0, 64);
      await held;
      yield first.payload.subarray(64);
    };
    const headers = { ...apiHeaders(), 'content-type': first.contentType, 'content-length': String(first.payload.length) };
    const answer = app.inject({ method: 'POST', url: '/conversations/messages/upload', headers, payload: Readable.from(rest()) });
    await new Promise((resolve) => setTimeout(resolve, 50));
    const second = await upload(app, { files: files(1, 200) });
    release();
    return (await answer).body === second.body;
  },
  'secure-flag-dropped-chunked': async (app) => {
    const { payload, contentType } = multipart(validFields({ isSecureAttachment: 'true' }), files(1));
    // inject() sends a stream as it comes, without a Content-Length (light-my-request sets one for a buffer only).
    const response = await app.inject({ method: 'POST', url: '/conversations/messages/upload', headers: { ...apiHeaders(), 'content-type': contentType }, payload: Readable.from([payload]) });
    return new URL(absoluteUrls(response.json())[0]).pathname.split('/').slice(0, 3).join('/');
  },
  'refreshed-token-any-location': async (app) => {
    const token = (await refresh(app)).json().access_token;
    const foreign = { ...apiHeaders(token), 'content-type': 'application/json' };
    return (await execute(app, { agentId: WORLD.foreignAgentId, headers: foreign, body: { message: 'hi', locationId: WORLD.foreignLocationId } })).statusCode;
  },
  'session-forks-on-optional-field': sessionAfter([{ contactId: WORLD.contactId }]),
  'session-bound-to-other-token-forks': sessionAfter([{}], apiHeaders(WORLD.tokens.pit)),
  'session-bound-to-token': continuation({ message: 'again', locationId: WORLD.locationId }, apiHeaders(WORLD.tokens.pit)),
  'session-ended-by-refused-turn': sessionAfter([{ message: undefined }, {}]),
  'session-restarts-after-six-turns': sessionAfter(Array.from({ length: 6 }, () => ({}))),
  'secure-query-public-once-signed': async (app) => {
    const secure = await uploadedUrl(app, { fields: secureFields });
    await fetchUrl(app, secure, apiHeaders(WORLD.tokens.filesReadonly));
    await setClock(app, { advanceSeconds: 3601 });
    return (await fetchUrl(app, `${secure}?download=1`)).statusCode;
  },
  'session-concurrent-fork': async (app) => {
    const { executionId } = (await execute(app)).json();
    const next = () => execute(app, { body: { message: 'again', locationId: WORLD.locationId, executionId } });
    return (await Promise.all([next(), next()])).map((reply) => reply.json().executionId === executionId);
  },
  'upload-name-folded-overwrites': async (app) => {
    const first = await uploadedUrl(app, { files: [{ name: 'Résumé.png', bytes: bytesOf('first', 100) }] });
    await upload(app, { files: [{ name: 'RÉSUMÉ.png'.normalize('NFD'), bytes: bytesOf('second', 200) }] });
    return (await fetchUrl(app, first)).rawPayload.length;
  },
  'upload-dedupe-by-bytes': async (app) => {
    await upload(app, { files: files(1) });
    return new URL(await uploadedUrl(app, { fields: secureFields, files: [{ name: 'again.png', bytes: files(1)[0].bytes }] })).pathname.split('/').slice(0, 3).join('/');
  },
  'upload-store-ignores-location': async (app) => {
    const first = await uploadedUrl(app, { files: files(1) });
    const foreign = validFields({ locationId: WORLD.foreignLocationId, conversationId: WORLD.foreignConversationId });
    await upload(app, { fields: foreign, files: files(1, 200), headers: apiHeaders(WORLD.tokens.foreignAccess) });
    return (await fetchUrl(app, first)).rawPayload.length;
  },
  'upload-refused-still-stored': async (app) => {
    const first = await uploadedUrl(app, { files: files(1) });
    await upload(app, { files: files(6, 200) });
    return (await fetchUrl(app, first)).rawPayload.length;
  },
};

async function observe(probe: Probe, fault?: FaultName): Promise<unknown> {
  const app = await server(fault);
  try {
    return await probe(app);
  } finally {
    await app.close();
  }
}

describe('fault catalogue', () => {
  test('holds at least 30 faults with unique names, each naming a catalogued rule', () => {
    const catalogue = faultCatalogue();
    assert.ok(catalogue.length >= 30, `only ${catalogue.length} faults`);
    assert.equal(new Set(catalogue.map((f) => f.name)).size, catalogue.length);
    for (const fault of catalogue) assert.match(fault.level, /^(MUST|SHOULD|INFO)$/);
  });

  for (const { name, rule } of FAULTS) {
    test(`${name} is observable (${rule})`, async () => {
      const [clean, faulty] = await Promise.all([observe(PROBES[name]), observe(PROBES[name], name)]);
      assert.notDeepEqual(faulty, clean, `the probe saw the same thing with and without ${name}: ${JSON.stringify(clean)}`);
    });
  }
});
