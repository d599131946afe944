// A multipart body as the suite builds it, and the two forms it takes: the bytes sent, encoded as Playwright's request
// context encodes a FormData, and the normal form a recording keeps and replay matches on.
import { randomBytes } from 'node:crypto';
import playwrightUtils from 'playwright-core/lib/utilsBundle';
import type { TestFile } from '../files/test-file.ts';
import type { FilePart, RequestBody } from './recording.ts';
import { partFieldName, type Spelling } from '../contract/spelling.ts';

/**
 * A part of a multipart body, in the body's order: a field, or a file by its test file (its bytes are sent as they
 * are, never copied into a Blob) and the type its part declares, if any.
 */
export type FormPart = { name: string; value: string } | { name: string; file: TestFile; type?: string };

/** The normal form of a multipart body as sent: fields in order, files by name, size and digest. */
export function describeForm(form: readonly FormPart[]): RequestBody {
  const fields: [string, string][] = [];
  const files: FilePart[] = [];
  for (const part of form) {
    if ('value' in part) fields.push([part.name, part.value]);
    else files.push({ field: part.name, name: part.file.name, size: part.file.bytes.length, sha256: part.file.sha256 });
  }
  return { multipart: { fields, files } };
}

/** A form's boundary as Playwright draws it: WebKit's prefix and 16 letters or digits. */
const BOUNDARY_LETTERS = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';
const escapeName = (name: string) => name.replace(/\r/g, '%0D').replace(/\n/g, '%0A').replace(/"/g, '%22');

/**
 * A form encoded as Playwright's request context encodes a FormData (its MultipartFormData), byte for byte but the
 * boundary: fields and files in the form's order, each file part of the type it declares, or else of the type
 * Playwright's own table gives its file name (an upload of `a.pdf` is a part of type application/pdf), or else
 * application/octet-stream. The body is a list of buffers whose files are the test files' own bytes: a copy of five
 * files of 5 MB is memory outside V8's heap that it frees late (a worker went over 300 MiB, or spent a fifth of its
 * CPU on collections forced to keep it under). A spelling may quote the boundary and write the part headers' names
 * otherwise, as other clients do.
 */
export function encodeForm(form: readonly FormPart[], spelling?: Spelling): { parts: Buffer[]; contentType: string } {
  const boundary = `----WebKitFormBoundary${Array.from(randomBytes(16), (byte) => BOUNDARY_LETTERS[byte % BOUNDARY_LETTERS.length]).join('')}`;
  const [disposition, type] = ['content-disposition', 'content-type'].map((name) => partFieldName(name, spelling));
  const chunks: Buffer[] = [];
  for (const part of form) {
    let head = `--${boundary}\r\n${disposition}: form-data; name="${escapeName(part.name.replace(/\r\n|\r|\n/g, '\r\n'))}"`;
    if ('value' in part) {
      chunks.push(Buffer.from(`${head}\r\n\r\n${part.value}\r\n`));
      continue;
    }
    head += `; filename="${escapeName(part.file.name)}"\r\n${type}: ${part.type || playwrightUtils.mime.getType(part.file.name) || 'application/octet-stream'}`;
    chunks.push(Buffer.from(`${head}\r\n\r\n`), part.file.bytes, Buffer.from('\r\n'));
  }
  chunks.push(Buffer.from(`--${boundary}--\r\n`));
  return { parts: chunks, contentType: `multipart/form-data; boundary=${spelling?.quotedBoundary ? `"${boundary}"` : boundary}` };
}
