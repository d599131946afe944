import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { timingSafeEqual } from 'node:crypto';
import { Readable } from 'node:stream';
import { FILES_READONLY_SCOPE, SECURE_PATH_PREFIX } from '../../src/contract/contract.ts';
import { authenticate, authorize } from '../auth.ts';
import type { Context } from '../context.ts';
import { ApiError, badRequest, forbidden, notFound } from '../errors.ts';
import { referenceTo } from '../policy.ts';
import type { StoredFile } from '../file-store.ts';
import { contentTypeOf } from '../mime.ts';

/** The origin a file's URLs name: the files' own when the style gives them one, else the API's as the client reached it. */
export const filesBase = (request: FastifyRequest, ctx: Context) => ctx.filesOrigin ?? `${request.protocol}://${request.host}`;

/** The key a CDN-form signature names (KeyName): the reference has one. */
const KEY_NAME = 'reference-key-1';

type SignedQuery = Record<string, string | undefined>;

export async function fileRoutes(app: FastifyInstance, { ctx }: { ctx: Context }): Promise<void> {
  const { permanentPrefix, secureUrlPrefix } = ctx.policy;
  // With an origin of their own, file routes answer only there (a host constraint); the API call of §4.2 stays on the API's.
  const filesHost = ctx.filesOrigin === undefined ? undefined : new URL(ctx.filesOrigin).host;
  const onFilesOrigin = filesHost === undefined ? {} : { constraints: { host: filesHost } };

  // Permanent URL of a non-secure upload: anonymous, no headers needed.
  app.get<{ Params: { id: string; name: string } }>(`${permanentPrefix}:id/:name`, onFilesOrigin, async (request, reply) => {
    const file = ctx.files.byId(request.params.id);
    if (!file || file.slug) throw notFound('no such file');
    if (ctx.policy.permanentNameChecked && request.params.name !== file.fileName) throw notFound('no such file of that name');
    if (ctx.policy.permanentUrlsNeedVersion && request.headers.version === undefined) throw badRequest('the Version header is required');
    if (ctx.clock.now() >= ctx.policy.permanentUntil(file.uploadedAt)) throw notFound('this file has expired');
    return handOver(request, reply, file, ctx);
  });

  // A secure attachment: anonymous within the public window; with a token, a signed download URL.
  app.get<{ Params: { slug: string } }>(`${secureUrlPrefix}:slug`, { ...onFilesOrigin, config: { version: 'with-token' } }, async (request, reply) =>
    request.headers.authorization === undefined ? servePublic(request, reply, ctx) : signedUrl(request, reply, ctx),
  );
  // The API call of §4.2 stays at /files/d/{slug} on the API's origin, whatever and wherever the attachment URL is.
  if (secureUrlPrefix !== SECURE_PATH_PREFIX || filesHost !== undefined) {
    app.get<{ Params: { slug: string } }>(`${SECURE_PATH_PREFIX}:slug`, { config: { version: 'required' } }, async (request, reply) => signedUrl(request, reply, ctx));
  }

  // Where files are handed over to storage: a short-lived URL of the bytes, as a redirect of their own URL gives it.
  app.get<{ Params: { id: string }; Querystring: SignedQuery }>('/blob/:id', onFilesOrigin, async (request, reply) => {
    const file = ctx.files.byId(request.params.id);
    const expires = request.query.expires ?? '';
    if (!file || !safeEqual(request.query.signature ?? '', ctx.ids.sign(`blob:${file.id}:${expires}`))) throw forbidden('invalid signature');
    if (!/^\d+$/.test(expires) || Number(expires) * 1000 <= ctx.clock.now()) throw new ApiError(403, 'url_expired', 'this download URL has expired');
    return bytesOf(reply, file, ctx);
  });

  const form = SIGNED_FORMS[ctx.policy.signedUrlForm];
  app.get<{ Params: { slug: string }; Querystring: SignedQuery }>(form.route, onFilesOrigin, async (request, reply) => {
    const { slug } = request.params;
    const expires = request.query[form.expires] ?? '';
    const file = ctx.files.bySlug(slug);
    if (!file) throw notFound('no such file');
    const expected = ctx.ids.sign(signedText(slug, expires, ctx));
    if (ctx.policy.verifySignature && !safeEqual(request.query[form.signature] ?? '', expected)) throw forbidden('invalid signature');
    const expired = !/^\d+$/.test(expires) || Number(expires) * 1000 <= ctx.clock.now();
    if (expired && ctx.policy.signedUrlsExpire) throw new ApiError(403, 'url_expired', 'this download URL has expired');
    return serve(reply, file, ctx, ctx.policy.signedDownloadRange(file));
  });
}

/** Each form of a signed URL: its route, how a URL of a file is written, and the names of its query parameters. */
const SIGNED_FORMS = {
  plain: {
    route: '/files/signed/:slug',
    expires: 'expires',
    signature: 'signature',
    url: (base: string, file: StoredFile, expires: string, signature: string) => `${base}/files/signed/${file.slug}?expires=${expires}&signature=${signature}`,
  },
  // A CDN's signed URL (Google Cloud CDN's form), naming the file in its path.
  cdn: {
    route: '/cdn/:slug/:name',
    expires: 'Expires',
    signature: 'Signature',
    url: (base: string, file: StoredFile, expires: string, signature: string) =>
      `${base}/cdn/${file.slug}/${encodeURIComponent(file.fileName)}?Expires=${expires}&KeyName=${KEY_NAME}&Signature=${signature}`,
  },
} as const;

async function servePublic(request: FastifyRequest<{ Params: { slug: string } }>, reply: FastifyReply, ctx: Context) {
  const file = ctx.files.bySlug(request.params.slug);
  if (!file) throw notFound('no such file');
  const { publicWindowMs, privateForMs, publicAfterWindow, anonymousSignedUrls } = ctx.policy;
  const until = file.uploadedAt + publicWindowMs;
  const now = ctx.clock.now();
  if (now >= until && now < until + privateForMs && !publicAfterWindow(request, { signed: ctx.signedSlugs.has(file.slug as string) })) {
    if (anonymousSignedUrls) return signedUrlOf(file, request, reply, ctx);
    // A HEAD route sends no body, whatever the handler gives it: what goes out are the file's headers.
    if (request.method === 'HEAD' && ctx.policy.privateHeadShowsFile) return serve(reply, file, ctx);
    throw new ApiError(401, 'private_attachment', 
      `this secure attachment is private since ${new Date(until).toISOString()}; ` +
        `GET /files/d/{slug} with a ${FILES_READONLY_SCOPE} token gives a signed download URL`,
    );
  }
  if (ctx.policy.secureReadCacheControl !== undefined) reply.header('cache-control', ctx.policy.secureReadCacheControl);
  return handOver(request, reply, file, ctx);
}

/** §4.2: a short-lived signed download URL for a token holding files.readonly. */
async function signedUrl(request: FastifyRequest<{ Params: { slug: string } }>, reply: FastifyReply, ctx: Context) {
  const token = authenticate(request, ctx);
  if (!ctx.policy.issueSignedUrls) throw forbidden(`the token lacks the scope ${FILES_READONLY_SCOPE}`);
  const { slug } = request.params;
  const asked = ctx.files.bySlug(slug);
  const file = asked && ctx.policy.signedFileOf(asked, ctx.files.byId(asked.firstOfUpload) ?? asked);
  if (!file) {
    if (ctx.policy.crashOnUnknownSlug) throw new Error(`no record for slug ${slug}`);
    throw notFound('no such file');
  }
  if (ctx.policy.signedUrlChecksAccess(request) && !(ctx.policy.signedGrantReused && ctx.signedSlugs.has(file.slug as string))) authorize(token, ctx, file.locationId, FILES_READONLY_SCOPE);
  if (ctx.clock.now() >= file.uploadedAt + ctx.policy.signedUrlMaxAgeMs) throw forbidden('this file is too old to download');
  return signedUrlOf(file, request, reply, ctx);
}

/** The URL of this request as the client reached it: what the references of its answer are resolved against. */
export const requestUrl = (request: FastifyRequest) => `${request.protocol}://${request.host}${request.url}`;

/** The answer of §4.2 (shape not shown): a redirect to the signed URL, the platform's JSON around it, a nested JSON, a URI list, or a Link. */
function signedUrlOf(file: StoredFile, request: FastifyRequest, reply: FastifyReply, ctx: Context) {
  const expires = String(Math.floor(ctx.clock.now() / 1000) + ctx.policy.signedUrlSeconds);
  const signature = ctx.ids.sign(signedText(file.slug as string, expires, ctx));
  const url = referenceTo(SIGNED_FORMS[ctx.policy.signedUrlForm].url(filesBase(request, ctx), file, expires, signature), requestUrl(request), ctx.policy.urlReference);
  ctx.signedSlugs.add(file.slug as string);
  reply.header('cache-control', 'no-store');
  switch (ctx.policy.signedUrlDelivery) {
    case 'redirect':
      return reply.code(ctx.policy.signedUrlRedirect).header('location', url).send();
    case 'uri-list':
      return reply.type('text/uri-list').send(`# a download URL of ${file.id}\r\n${url}\r\n`);
    case 'link':
      return reply.header('link', `<${url}>; rel="alternate"; type="${contentTypeOf(file.extension)}"`).send({ expiresIn: ctx.policy.signedUrlSeconds });
    case 'json-nested':
      return { data: { attachment: { id: file.id, download: { href: url, expiresAt: new Date(Number(expires) * 1000).toISOString() } } } };
    case 'json':
      return { url, asset_id: file.id, content_type: contentTypeOf(file.extension), filename: file.fileName, size: file.size, allow_download: true };
  }
}

/** What a signature covers: the slug and the expiry, so it is bound to one file. */
function signedText(slug: string, expires: string, ctx: Context): string {
  return ctx.policy.signedUrlBindsSlug ? `${slug}:${expires}` : expires;
}

function safeEqual(a: string, b: string): boolean {
  const left = Buffer.from(a);
  const right = Buffer.from(b);
  return left.length === right.length && timingSafeEqual(left, right);
}

/** A file its own URL serves: its bytes, or, where the style hands files over to storage, a redirect to a short-lived URL of them. */
function handOver(request: FastifyRequest, reply: FastifyReply, file: StoredFile, ctx: Context) {
  if (ctx.policy.fileHandOver === undefined) return bytesOf(reply, file, ctx);
  const expires = String(Math.floor(ctx.clock.now() / 1000) + 60);
  const url = `${filesBase(request, ctx)}/blob/${file.id}?expires=${expires}&signature=${ctx.ids.sign(`blob:${file.id}:${expires}`)}`;
  return reply.code(ctx.policy.fileHandOver).header('location', referenceTo(url, requestUrl(request), ctx.policy.urlReference)).send();
}

/** The bytes of a file, through the policy's permanentBody for a permanent one. */
function bytesOf(reply: FastifyReply, file: StoredFile, ctx: Context) {
  return file.slug ? serve(reply, file, ctx) : ctx.policy.permanentBody(serve(reply, file, ctx));
}

function serve(reply: FastifyReply, file: StoredFile, ctx: Context, cut?: { start: number; end: number }) {
  const { policy } = ctx;
  const { method, headers } = reply.request;
  if (method === 'HEAD' && policy.fileHeadRefused) throw new ApiError(405, 'method_not_allowed', 'HEAD is not served here');
  const type = policy.servedContentType(file.extension);
  const disposition = policy.inlineExtensions.has(file.extension) ? 'inline' : 'attachment';
  reply
    .type(type)
    // A download, never a page: an uploaded SVG or HTML-like file must not run in the API's origin.
    .header('content-disposition', `${disposition}; filename*=UTF-8''${encodeURIComponent(file.fileName)}`);
  if (policy.nosniff) reply.header('x-content-type-options', 'nosniff');
  if (policy.validators) {
    // A file never changes under its id: its id is a strong validator, its upload the instant it was last modified.
    const [etag, modified] = [`"${file.id}"`, new Date(file.uploadedAt).toUTCString()];
    reply.header('etag', etag).header('last-modified', modified);
    const since = Date.parse(String(headers['if-modified-since'] ?? ''));
    const current = headers['if-none-match'] !== undefined ? String(headers['if-none-match']).split(/\s*,\s*/).some((tag) => tag === etag || tag === '*') : since >= Math.floor(file.uploadedAt / 1000) * 1000;
    if (current || (policy.conditionalAlways304 && (headers['if-none-match'] ?? headers['if-modified-since']) !== undefined)) {
      reply.code(304);
      return Readable.from([]);
    }
  }
  const range = cut ?? (policy.byteRangeShift === undefined ? undefined : byteRange(String(headers.range ?? ''), file.size, policy.byteRangeShift));
  if (range && cut === undefined) reply.code(206).header('content-range', `bytes ${range.start - (policy.byteRangeShift ?? 0)}-${range.end - (policy.byteRangeShift ?? 0)}/${file.size}`);
  reply.header('content-length', range ? range.end - range.start + 1 : file.size);
  return ctx.files.open(file, range);
}

/** One range of `Range: bytes=…` (RFC 9110 §14.1.2) within a file of `size` bytes, moved by `shift`; undefined for none, several or one past the end. */
function byteRange(header: string, size: number, shift: number): { start: number; end: number } | undefined {
  const match = /^bytes=(\d*)-(\d*)$/.exec(header.trim());
  if (!match || (match[1] === '' && match[2] === '')) return undefined;
  const [start, end] = match[1] === '' ? [size - Number(match[2]), size - 1] : [Number(match[1]), match[2] === '' ? size - 1 : Math.min(Number(match[2]), size - 1)];
  if (start < 0 || start > end) return undefined;
  return { start: Math.min(start + shift, size - 1), end: Math.min(end + shift, size - 1) };
}
