// Where the contract says "not shown" or nothing, a correct server may choose anything. The reference server has two
// styles that choose differently at every such point, so the suite is measured against more than one correct server:
// `default` (DEFAULT_POLICY) and `alt`, which takes the live platform's published habits where it has them. A fault
// (faults.ts) applies over either. The README lists each choice beside the other.
import { STATUS_CODES } from 'node:http';
import { contentTypeOf } from './mime.ts';
import type { Policy, Refusal } from './policy.ts';

/** The alt style's status for a reason of errors.ts, where it differs from the default one. */
const ALT_STATUS: Readonly<Record<string, number>> = {
  version_required: 401,
  unknown_version: 401,
  missing_scope: 401,
  unknown_target: 404,
  agent_not_in_location: 404,
  unsupported_file_type: 415,
  too_many_files: 400,
  private_attachment: 403,
  url_expired: 410,
  unknown_session: 400,
  agent_inactive: 400,
  invalid_body: 422,
};

/** The platform's error bodies: `{error}` on auth and files, `{status, message}` on size and type, Nest-style validation lists, an HTML 404 for a route it does not have. */
function platformRefusal(error: { statusCode: number; code: string; message: string; oauth?: boolean }): Refusal {
  const status = ALT_STATUS[error.code] ?? error.statusCode;
  const json = 'application/json';
  if (error.oauth) return { status, type: json, body: { error: error.code, error_description: error.message } };
  if (error.code === 'no_route') return { status, type: 'text/html; charset=utf-8', body: `<!DOCTYPE html>\n<html><body><pre>${error.message}</pre></body></html>\n` };
  if ([401, 403, 404, 410].includes(status)) return { status, type: json, body: { error: error.message } };
  if ([413, 415, 429].includes(status)) return { status, type: json, body: { status, message: error.message } };
  if (status >= 500) return { status, type: json, body: { message: 'Internal server error' } };
  return { status, type: json, body: { statusCode: status, message: [error.message], error: STATUS_CODES[status] ?? 'Error' } };
}

/** A UUID-shaped identifier from a digest: the same for the same seed, like every identifier of the reference. */
const uuidOf = (hex: string) => `${hex.slice(0, 8)}-${hex.slice(8, 12)}-4${hex.slice(13, 16)}-a${hex.slice(17, 20)}-${hex.slice(20, 32)}`;

const INLINE_IMAGES = new Set(['png', 'jpg', 'jpeg', 'gif', 'svg', 'heic']);

const ALT: Partial<Policy> = {
  refusal: platformRefusal,
  retryAfter: false,
  idFormat: (kind, hex) => (kind === 'att' ? hex.slice(0, 32) : uuidOf(hex)),
  uploadedFiles: (files) => ({
    files: files.map(({ file, url }) => ({ id: file.id, name: file.fileName, url, contentType: contentTypeOf(file.extension), size: file.size, secure: file.slug !== undefined })),
  }),
  extraFields: (ids) => ({ traceId: ids.next('trace') }),
  filesOrigin: 'assets',
  permanentPrefix: '/media/',
  signedUrlDelivery: 'json',
  signedUrlForm: 'cdn',
  signedUrlSeconds: 900,
  executionValues: (reply) => ({
    type: 'message',
    nextExpectedInput: 'user_message',
    executionStatus: 'waiting_for_input',
    attachments: [],
    generativeOutputs: [{ type: 'text', content: reply }],
  }),
  checkLeadingBytes: true,
  // Images shown inline from the files' own origin; text types without a charset; no nosniff.
  inlineExtensions: INLINE_IMAGES,
  servedContentType: (extension) => contentTypeOf(extension).replace(/; charset=utf-8$/, ''),
  nosniff: false,
};

export type StyleName = 'default' | 'alt';

export const STYLES: Readonly<Record<StyleName, Partial<Policy>>> = { default: {}, alt: ALT };

export const STYLE_NAMES = Object.keys(STYLES) as StyleName[];

export function parseStyle(name: string | undefined, variable = 'STYLE'): StyleName {
  if (name === undefined || name === '') return 'default';
  if (!(name in STYLES)) throw new Error(`${variable}=${name} is not a reference style; known: ${STYLE_NAMES.join(', ')}`);
  return name as StyleName;
}
