import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { timingSafeEqual } from 'node:crypto';
import { Transform } from 'node:stream';
import { FILES_READONLY_SCOPE, SECURE_PUBLIC_WINDOW_SECONDS } from '../../src/contract.ts';
import { authenticate, authorize } from '../auth.ts';
import type { Context } from '../context.ts';
import { badRequest, forbidden, notFound, unauthorized } from '../errors.ts';
import type { StoredFile } from '../file-store.ts';
import { contentTypeOf } from '../mime.ts';

/** How long a signed download URL serves. */
export const SIGNED_URL_SECONDS = 300;

export async function fileRoutes(app: FastifyInstance, { ctx }: { ctx: Context }): Promise<void> {
  // Permanent URL of a non-secure upload: anonymous, no headers needed.
  app.get<{ Params: { id: string; name: string } }>('/files/p/:id/:name', async (request, reply) => {
    const file = ctx.files.byId(request.params.id);
    if (!file || file.slug) throw notFound('no such file');
    if (ctx.fault('permanent-requires-version') && request.headers.version === undefined) throw badRequest('the Version header is required');
    if (ctx.fault('permanent-expires') && ctx.clock.now() >= file.uploadedAt + SECURE_PUBLIC_WINDOW_SECONDS * 1000) throw notFound('this file has expired');
    return serve(reply, file, ctx);
  });

  // A secure attachment: anonymous within the public window; with a token, a signed download URL.
  const securePaths = ctx.fault('secure-wrong-path') ? ['/files/s/:slug'] : ['/files/d/:slug'];
  for (const path of securePaths) {
    app.get<{ Params: { slug: string } }>(path, { config: { version: 'with-token' } }, async (request, reply) =>
      request.headers.authorization === undefined ? servePublic(request, reply, ctx) : signedUrl(request, ctx),
    );
  }
  // The API call of §4.2 stays at /files/d/{slug} whatever the attachment URL looks like.
  if (ctx.fault('secure-wrong-path')) {
    app.get<{ Params: { slug: string } }>('/files/d/:slug', { config: { version: 'required' } }, async (request) => signedUrl(request, ctx));
  }

  app.get<{ Params: { slug: string }; Querystring: { expires?: string; signature?: string } }>(
    '/files/signed/:slug',
    async (request, reply) => {
      const { slug } = request.params;
      const { expires = '', signature = '' } = request.query;
      const file = ctx.files.bySlug(slug);
      if (!file) throw notFound('no such file');
      const expected = ctx.ids.sign(signedText(slug, expires, ctx));
      const valid = ctx.fault('signed-unverified') || safeEqual(signature, expected);
      if (!valid) throw forbidden('invalid signature');
      const expired = !/^\d+$/.test(expires) || Number(expires) * 1000 <= ctx.clock.now();
      if (expired && !ctx.fault('signed-never-expires')) throw forbidden('this download URL has expired');
      return serve(reply, file, ctx, ctx.fault('signed-truncated-bytes') ? { start: 0, end: file.size - 2 } : undefined);
    },
  );
}

function publicUntil(file: StoredFile, ctx: Context): number {
  if (ctx.fault('secure-private-at-once')) return file.uploadedAt;
  if (ctx.fault('secure-never-private')) return Number.POSITIVE_INFINITY;
  const minutes = ctx.fault('secure-window-59-minutes') ? 59 : ctx.fault('secure-window-61-minutes') ? 61 : SECURE_PUBLIC_WINDOW_SECONDS / 60;
  return file.uploadedAt + minutes * 60_000;
}

async function servePublic(request: FastifyRequest<{ Params: { slug: string } }>, reply: FastifyReply, ctx: Context) {
  const file = ctx.files.bySlug(request.params.slug);
  if (!file) throw notFound('no such file');
  const until = publicUntil(file, ctx);
  if (ctx.clock.now() >= until) {
    throw unauthorized(
      `this secure attachment is private since ${new Date(until).toISOString()}; ` +
        `GET /files/d/{slug} with a ${FILES_READONLY_SCOPE} token gives a signed download URL`,
    );
  }
  return serve(reply, file, ctx);
}

/** §4.2: a short-lived signed download URL for a token holding files.readonly. */
async function signedUrl(request: FastifyRequest<{ Params: { slug: string } }>, ctx: Context) {
  const token = authenticate(request, ctx);
  if (ctx.fault('signed-scope-refused')) throw forbidden(`the token lacks the scope ${FILES_READONLY_SCOPE}`);
  const { slug } = request.params;
  const file = ctx.files.bySlug(slug);
  if (!file) {
    if (ctx.fault('signed-unknown-slug-500')) throw new Error(`no record for slug ${slug}`);
    throw notFound('no such file');
  }
  if (!ctx.fault('signed-scope-unchecked')) authorize(token, ctx, file.locationId, FILES_READONLY_SCOPE);
  const expires = String(Math.floor(ctx.clock.now() / 1000) + SIGNED_URL_SECONDS);
  const signature = ctx.ids.sign(signedText(slug, expires, ctx));
  const base = `${request.protocol}://${request.host}`;
  return {
    url: `${base}/files/signed/${slug}?expires=${expires}&signature=${signature}`,
    asset_id: file.id,
    content_type: contentTypeOf(file.extension),
    filename: file.fileName,
    size: file.size,
    allow_download: true,
  };
}

/** What a signature covers: the slug and the expiry, so it is bound to one file. */
function signedText(slug: string, expires: string, ctx: Context): string {
  return ctx.fault('signed-not-bound') ? expires : `${slug}:${expires}`;
}

function safeEqual(a: string, b: string): boolean {
  const left = Buffer.from(a);
  const right = Buffer.from(b);
  return left.length === right.length && timingSafeEqual(left, right);
}

function serve(reply: FastifyReply, file: StoredFile, ctx: Context, range?: { start: number; end: number }) {
  const type = ctx.fault('file-octet-stream') ? 'application/octet-stream' : contentTypeOf(file.extension);
  const length = range ? range.end - range.start + 1 : file.size;
  const disposition = ctx.fault('svg-inline') && file.extension === 'svg' ? 'inline' : 'attachment';
  reply
    .type(type)
    .header('content-length', length)
    // A download, never a page: an uploaded SVG or HTML-like file must not run in the API's origin.
    .header('content-disposition', `${disposition}; filename*=UTF-8''${encodeURIComponent(file.fileName)}`);
  if (!ctx.fault('no-nosniff')) reply.header('x-content-type-options', 'nosniff');
  const stream = ctx.files.open(file, range);
  return ctx.fault('permanent-corrupt-bytes') && !file.slug ? stream.pipe(flipFirstByte()) : stream;
}

function flipFirstByte(): Transform {
  let first = true;
  return new Transform({
    transform(chunk: Buffer, _encoding, done) {
      if (first && chunk.length > 0) {
        chunk = Buffer.from(chunk);
        chunk[0] ^= 0xff;
        first = false;
      }
      done(null, chunk);
    },
  });
}
