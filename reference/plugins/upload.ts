import multipart from '@fastify/multipart';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { IncomingMessage } from 'node:http';
import { FILE_FORM_KEY, MAX_FILES_PER_UPLOAD } from '../../src/contract/contract.ts';
import { describeErrors, validatorFor } from '../../src/contract/schemas.ts';
import { authenticate, authorize } from '../auth.ts';
import type { Context } from '../context.ts';
import { ApiError, badRequest, invalidBody, refuseFields, unauthorized } from '../errors.ts';
import type { Blob, StoredFile } from '../file-store.ts';
import { type Policy, sameNameInLocation, type UploadKind } from '../policy.ts';
import { leadingBytesMatch } from '../magic.ts';
import { filesBase, requestUrl } from './files.ts';
import { referenceTo } from '../policy.ts';

export const UPLOAD_SCOPE = 'conversations/message.write';
const MIB = 1024 * 1024;
const FIELD_BYTES = 64 * 1024;
/** After a refusal the rest of the body is read and dropped, up to this much, then the connection closes. */
const DRAIN_LIMIT = 64 * MIB;

interface ReceivedFile {
  blob: Blob;
  fileName: string;
  extension: string;
}

interface Received {
  fields: Record<string, string[]>;
  files: ReceivedFile[];
}

const validateFields = validatorFor('upload-request');

/** An upload from its arrival to its answer, with the uploads in flight beside it at some moment of that time. */
interface InFlight {
  readonly beside: Set<InFlight>;
  answer?: Record<string, unknown>;
}

export async function uploadRoutes(app: FastifyInstance, { ctx }: { ctx: Context }): Promise<void> {
  // preservePath: keep the client's file name whole, so path tricks are refused rather than silently cut.
  // throwFileSizeLimit off: a file over the limit ends cut short and marked truncated, and receive() decides.
  await app.register(multipart, { preservePath: true, throwFileSizeLimit: false });
  const inFlight = new Set<InFlight>();

  app.post('/conversations/messages/upload', { config: { version: 'required' } }, async (request, reply) => {
    if (!request.isMultipart()) {
      throw new ApiError(415, 'unsupported_media_type', `send multipart/form-data with the files under ${FILE_FORM_KEY}`);
    }
    if (ctx.policy.quotedBoundaryRefused && /boundary="/i.test(request.headers['content-type'] ?? '')) throw badRequest('malformed multipart boundary');
    const me: InFlight = { beside: new Set(inFlight) };
    for (const other of inFlight) other.beside.add(me);
    inFlight.add(me);
    try {
      const body = await answerUpload(request, ctx);
      me.answer = body;
      const answeredBeside = [...me.beside].flatMap((other) => (other.answer ? [other.answer] : []));
      const answer = ctx.policy.answerOfUpload(body, answeredBeside);
      if (ctx.policy.uploadResponseType === 'text') return reply.type('text/plain').send(JSON.stringify(answer));
      return answer;
    } finally {
      inFlight.delete(me);
    }
  });
}

/** Receives, checks and stores an upload; answers the body of its answer. */
async function answerUpload(request: FastifyRequest, ctx: Context): Promise<Record<string, unknown>> {
  const anonymousAllowed = !ctx.policy.uploadRequiresToken && request.headers.authorization === undefined;
  const token = anonymousAllowed ? undefined : authenticate(request, ctx);
  if (token?.kind === 'pit' && !ctx.policy.privateIntegrationTokensUpload) throw unauthorized('private integration tokens are not accepted here');
  const received = await receive(request, ctx);
  try {
    const fields = formFields(received.fields, ctx, token?.locationId);
    if (received.files.length === 0 && ctx.policy.requireFile) {
      throw badRequest(`no file: send 1 to ${MAX_FILES_PER_UPLOAD} files under ${FILE_FORM_KEY}`);
    }
    if (token) authorize(token, ctx, fields.locationId, UPLOAD_SCOPE);
    const conversation = checkTarget(fields, ctx);
    const secure = isSecure(fields, conversation?.channel, ctx);
    const base = filesBase(request, ctx);
    const stored: StoredFile[] = [];
    for (const [index, file] of received.files.entries()) stored.push(record(file, fields.locationId, secure && (index === 0 || ctx.policy.secureFiles === 'every'), stored[0]?.id, ctx));
    const query = ctx.policy.fileUrlQuery === undefined ? '' : `?${ctx.policy.fileUrlQuery}`;
    const urls = stored.map((file) =>
      referenceTo(
        file.slug ? `${base}${ctx.policy.secureUrlPrefix}${file.slug}${query}` : `${base}${ctx.policy.permanentPrefix}${file.id}/${ctx.policy.nameInUrl(file.fileName)}${query}`,
        requestUrl(request),
        ctx.policy.urlReference,
      ),
    );
    const listed = stored.map((file, index) => ({ file, url: urls[ctx.policy.urlOfFile === 'own' ? index : 0] }));
    if (!ctx.policy.listEveryFile) listed.pop();
    return { [ctx.policy.uploadResponseKey]: ctx.policy.uploadedFiles(listed), ...ctx.policy.extraFields(ctx.ids) };
  } catch (error) {
    await dropRefused(received, ctx);
    throw error;
  }
}

/** Streams the multipart body into the store, enforcing every limit as the bytes arrive. */
async function receive(request: FastifyRequest, ctx: Context): Promise<Received> {
  const { maxFiles, maxFileBytes, maxUploadBytes } = ctx.policy;
  const received: Received = { fields: {}, files: [] };
  // Watch from the first byte: nothing may stand between this and the start of the loop below.
  const closing = watchClosingDelimiter(request);
  let cutShort = false;
  try {
    const parts = request.parts({
      limits: { fileSize: maxFileBytes, fields: 50, fieldSize: FIELD_BYTES, parts: 100, headerPairs: 50 },
    });
    for await (const part of parts) {
      if (part.type === 'field') {
        if (received.files.length > 0 && ctx.policy.droppedAfterFiles.has(part.fieldname)) continue;
        if (request.headers['content-length'] === undefined && ctx.policy.droppedWhenChunked.has(part.fieldname)) continue;
        if (part.valueTruncated || part.fieldnameTruncated) throw new ApiError(413, 'field_too_large', `form field ${part.fieldname} is over ${FIELD_BYTES} bytes`);
        (received.fields[part.fieldname] ??= []).push(String(part.value));
        continue;
      }
      if (part.fieldname !== FILE_FORM_KEY) {
        throw badRequest(`a file was sent under ${part.fieldname}; files go under ${FILE_FORM_KEY}`);
      }
      const index = received.files.length;
      const kind = kindOf(received.fields, request.headers['content-length'] === undefined);
      if (index >= maxFiles && !ctx.policy.skipsUploadLimit('count', kind)) throw new ApiError(413, 'too_many_files', `at most ${maxFiles} files per upload`);
      const extension = checkFileName(part.filename, ctx, index < ctx.policy.typeCheckedFiles && !ctx.policy.skipsUploadLimit('type', kind));
      // @fastify/multipart destroys a file it has not handed over yet when the parse fails, and a pipeline
      // from a destroyed stream never settles. The parse error, if there is one, comes with the next part.
      if (part.file.destroyed) {
        cutShort = true;
        continue;
      }
      const blob = await ctx.files.write(ctx.ids.next('blob'), part.file);
      received.files.push({ blob, fileName: part.filename, extension });
      if (ctx.policy.checkLeadingBytes && index < ctx.policy.typeCheckedFiles && !leadingBytesMatch(extension, blob.head)) {
        throw new ApiError(415, 'file_content_mismatch', `the content of ${part.filename} is not a .${extension} file`);
      }
      if (part.file.truncated && index < ctx.policy.sizeCheckedFiles && ctx.policy.sizeCheckedName(part.filename) && !ctx.policy.skipsUploadLimit('size', kind)) throw new ApiError(413, 'file_too_large', `${part.filename} is over the 5 MB limit per file`);
      const total = received.files.reduce((sum, f) => sum + f.blob.size, 0);
      if (total > maxUploadBytes) throw new ApiError(413, 'upload_too_large', `the upload is over ${maxUploadBytes / MIB} MiB in total`);
    }
    // The parser takes a body that stops before its closing boundary for a complete one, minus the part it was in.
    if (cutShort || !closing.seen()) throw badRequest('malformed multipart body: it ends before the closing boundary');
    return received;
  } catch (error) {
    await dropRefused(received, ctx);
    const drained = await drain(request.raw);
    if (!drained) request.raw.socket.once('finish', () => request.raw.socket.destroy());
    throw translate(error);
  } finally {
    closing.stop();
  }
}

/** RFC 2046 boundary characters; a boundary of other characters is left to the parser alone. */
const BOUNDARY_PARAM = /;\s*boundary\s*=\s*(?:"([0-9A-Za-z'()+_,\-./:=? ]{1,70})"|([0-9A-Za-z'()+_,\-./:=?]{1,70})\s*(?:;|$))/i;

/**
 * Whether the raw body holds the closing delimiter `--boundary--`. Call it right before the parser starts: the
 * listener starts the flow on the next tick, by when the parser's pipe is attached too.
 */
function watchClosingDelimiter(request: FastifyRequest): { seen: () => boolean; stop: () => void } {
  const match = BOUNDARY_PARAM.exec(request.headers['content-type'] ?? '');
  if (!match) return { seen: () => true, stop: () => {} };
  const delimiter = Buffer.from(`\r\n--${match[1] ?? match[2]}--`);
  const keep = delimiter.length - 1;
  let tail: Buffer = Buffer.from('\r\n'); // the first delimiter may open the body without a line break before it
  let seen = false;
  const onData = (chunk: Buffer) => {
    if (seen) return;
    seen = Buffer.concat([tail, chunk.subarray(0, keep)]).includes(delimiter) || chunk.includes(delimiter);
    tail = chunk.length >= keep ? chunk.subarray(chunk.length - keep) : Buffer.concat([tail, chunk]).subarray(-keep);
  };
  request.raw.on('data', onData);
  return { seen: () => seen, stop: () => request.raw.off('data', onData) };
}

/** Multipart errors of the parser, reworded for the client; ours pass through. */
function translate(error: unknown): unknown {
  if (error instanceof ApiError) return error;
  const code = (error as { code?: string }).code;
  if (code === 'FST_PARTS_LIMIT' || code === 'FST_FIELDS_LIMIT') return new ApiError(413, 'too_many_parts', 'too many form parts');
  const message = (error as Error).message ?? String(error);
  return badRequest(`malformed multipart body: ${message}`);
}

/** The kind of upload the fields received so far make (a client sends them before the files), and how its body comes. */
const kindOf = (fields: Received['fields'], chunked: boolean): UploadKind => ({
  isSecureAttachment: fields.isSecureAttachment?.[0]?.toLowerCase(),
  conversation: fields.conversationId !== undefined,
  contact: fields.contactId !== undefined,
  chunked,
});

/** Reads and drops what is left of a refused body; false when it went past DRAIN_LIMIT. */
function drain(raw: IncomingMessage): Promise<boolean> {
  if (raw.complete || raw.readableEnded || raw.destroyed) return Promise.resolve(true);
  return new Promise((resolve) => {
    let seen = 0;
    const finish = (ok: boolean) => {
      raw.off('data', onData).off('end', onEnd).off('close', onEnd).off('error', onEnd);
      resolve(ok);
    };
    const onData = (chunk: Buffer) => {
      seen += chunk.length;
      if (seen > DRAIN_LIMIT) {
        raw.pause();
        finish(false);
      }
    };
    const onEnd = () => finish(true);
    raw.unpipe();
    raw.on('data', onData).once('end', onEnd).once('close', onEnd).once('error', onEnd);
    raw.resume();
  });
}

/** The name must be a plain file name, with an allowed extension when `checkType`; returns the extension. */
function checkFileName(fileName: string, ctx: Context, checkType: boolean): string {
  if (fileName === '') throw badRequest('every file needs a file name');
  // eslint-disable-next-line no-control-regex
  if (/[/\\]|\.\.|[\u0000-\u001f\u007f]/.test(fileName) || fileName.length > 255) {
    throw badRequest('file names must not hold path separators, "..", control characters or more than 255 characters');
  }
  const extension = ctx.policy.extensionOf(fileName);
  const { allowedExtensions, extensionsIgnoreCase } = ctx.policy;
  if (allowedExtensions === 'any' || !checkType) return extension;
  const caseRefused = !extensionsIgnoreCase && /[A-Z]/.test(fileName.slice(fileName.lastIndexOf('.')));
  if (!allowedExtensions.has(extension) || caseRefused) {
    throw new ApiError(400, 'unsupported_file_type', `the file type of ${fileName} is not allowed; see the allowed extensions`);
  }
  return extension;
}

interface UploadFields {
  locationId: string;
  conversationId?: string;
  contactId?: string;
  attachmentUrls: string[];
  isSecureAttachment?: string;
}

/** The form fields as the schema sees them: one value each, attachmentUrls as a list. */
function formFields(raw: Record<string, string[]>, ctx: Context, tokenLocation: string | undefined): UploadFields {
  const fields: Record<string, unknown> = {};
  for (const [name, values] of Object.entries(raw)) {
    if (name === 'attachmentUrls' || name === 'attachmentUrls[]') {
      fields.attachmentUrls = [...((fields.attachmentUrls as string[] | undefined) ?? []), ...values.flatMap(listEntries)];
    } else {
      fields[name] = values[0];
    }
  }
  const location = (fields.locationId as string | undefined) ?? tokenLocation ?? ctx.world.seed.locations[0].id;
  if (!ctx.policy.requireLocation) fields.locationId ??= location;
  if (!ctx.policy.requireAttachmentUrls) fields.attachmentUrls ??= [];
  if (!ctx.policy.requireTarget && fields.conversationId === undefined && fields.contactId === undefined) {
    fields.contactId = ctx.world.seed.contacts.find((c) => c.locationId === location)?.id;
  }
  refuseFields(fields, ctx.policy.refusedFields);
  if (!validateFields(fields)) throw invalidBody(`invalid upload fields: ${describeErrors(validateFields.errors)}`);
  const urls = fields.attachmentUrls as string[];
  if (urls.length > ctx.policy.maxAttachmentUrls) throw badRequest(`attachmentUrls lists ${urls.length} URLs; at most ${ctx.policy.maxAttachmentUrls} are taken`);
  return fields as unknown as UploadFields;
}

/** The entries of one value of attachmentUrls: a list sent as one JSON text (as the suite sends it), else the value itself. */
function listEntries(value: string): string[] {
  if (!value.trimStart().startsWith('[')) return [value];
  try {
    const list: unknown = JSON.parse(value);
    return Array.isArray(list) && list.every((entry) => typeof entry === 'string') ? list : [value];
  } catch {
    return [value];
  }
}

/** The conversation or contact must exist in the location. */
function checkTarget(fields: UploadFields, ctx: Context) {
  if (fields.conversationId === undefined && !ctx.policy.acceptContactOnly) throw badRequest('conversationId is required');
  const conversation = fields.conversationId === undefined ? undefined : ctx.world.conversation(fields.conversationId);
  if (fields.conversationId !== undefined && conversation?.locationId !== fields.locationId) {
    throw new ApiError(422, 'unknown_target', `conversation ${fields.conversationId} is not in location ${fields.locationId}`);
  }
  if (fields.contactId !== undefined && ctx.world.contact(fields.contactId)?.locationId !== fields.locationId) {
    throw new ApiError(422, 'unknown_target', `contact ${fields.contactId} is not in location ${fields.locationId}`);
  }
  return conversation;
}

/** §4.1 rules 3, 4 and 6: the flag decides before the cutover (email only); afterwards every upload is secure. */
function isSecure(fields: UploadFields, channel: string | undefined, ctx: Context): boolean {
  const flag = fields.isSecureAttachment?.toLowerCase();
  const now = ctx.clock.now();
  if (now >= ctx.policy.cutoverAt && now < ctx.policy.cutoverEndsAt) {
    if (ctx.policy.flagStrictAfterCutover && flag !== undefined && flag !== 'true' && flag !== 'false') throw badRequest('isSecureAttachment is true or false');
    if (ctx.policy.cutoverChannels === 'email' && channel !== undefined && channel !== 'email') return false;
    return ctx.policy.cutoverOverridesFlag || flag !== 'false';
  }
  if (flag !== 'true') return false;
  if (channel !== 'email') throw badRequest('secure attachments are supported on the email channel only: name an email conversation');
  return true;
}

/** The files of a refused upload, dropped; or, where the policy stores them, each over the location's file of its name. */
async function dropRefused(received: Received, ctx: Context): Promise<void> {
  const locationId = received.fields.locationId?.[0];
  const stored = ctx.policy.storesRefusedFiles && locationId !== undefined ? received.files.filter((file) => storedOver(file, locationId, sameNameInLocation, ctx)) : [];
  await ctx.files.discard(received.files.filter((file) => !stored.includes(file)).map((f) => f.blob));
}

/** The earlier non-secure file `same` takes this one for, with this one's bytes in place of its own; none where there is none. */
function storedOver(file: ReceivedFile, locationId: string, same: Policy['overwrites'], ctx: Context): StoredFile | undefined {
  const namesake = ctx.files.all().find((earlier) => !earlier.slug && same({ fileName: file.fileName, locationId }, earlier));
  if (namesake === undefined) return undefined;
  ctx.files.add({ ...namesake, ...file.blob });
  // The bytes it held are no file's any more.
  void ctx.files.discard([namesake]);
  return namesake;
}

function record(file: ReceivedFile, locationId: string, secure: boolean, firstOfUpload: string | undefined, ctx: Context): StoredFile {
  const id = ctx.ids.next('file');
  const namesake = secure ? undefined : storedOver(file, locationId, ctx.policy.overwrites, ctx);
  if (namesake) return namesake;
  const twin = ctx.policy.dedupesByBytes ? ctx.files.ofLocation(locationId).find((earlier) => earlier.sha256 === file.blob.sha256) : undefined;
  if (twin) {
    void ctx.files.discard([file.blob]);
    return twin;
  }
  const stored: StoredFile = {
    ...file.blob,
    id,
    firstOfUpload: firstOfUpload ?? id,
    fileName: file.fileName,
    extension: file.extension,
    locationId,
    uploadedAt: ctx.clock.now(),
    slug: secure ? ctx.ids.next('att', 24) : undefined,
  };
  ctx.files.add(stored);
  return stored;
}
