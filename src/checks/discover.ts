// Where the contract shows no shape (inside uploadedFiles, the signed-URL answer), the suite finds what it
// needs generically: every URL reference at any depth, resolved against the answer's URL, a Location header, bytes
// matched by digest.
import type { Api, Reply } from '../client/api.ts';
import { SECURE_PATH_PREFIX } from '../contract/contract.ts';
import { sha256, type TestFile } from '../files/test-file.ts';

/** A URL as an answer wrote it and as it resolves against that answer's URL. */
export interface UrlReference {
  written: string;
  url: string;
}

/**
 * A string that may be a URL reference of an http(s) resource (RFC 3986 §4.1): absolute, scheme-relative (`//host/…`),
 * path-absolute (`/files/d/…`) or a relative path (`./x`, `../x`, `a/b`), with or without a query; no white space.
 * A bare word, a date or a media type (`image/png`, which a relative path could also spell) is not taken.
 */
const REFERENCE = /^(?:https?:\/\/|\/\/?|\.{1,2}\/|[^\s/:?#]+\/)\S*$/i;
const MEDIA_TYPE = /^(application|audio|font|image|message|model|multipart|text|video)\/[\w.+-]+$/i;

/** Every URL reference at any depth of a JSON value, resolved against `base`, in document order, without repeats. */
export function urlReferences(value: unknown, base: string): UrlReference[] {
  const found = new Map<string, UrlReference>();
  const walk = (node: unknown): void => {
    if (typeof node === 'string') {
      if (!REFERENCE.test(node) || MEDIA_TYPE.test(node) || !URL.canParse(node, base)) return;
      const url = new URL(node, base);
      if ((url.protocol === 'http:' || url.protocol === 'https:') && !found.has(url.href)) found.set(url.href, { written: node, url: url.href });
    } else if (Array.isArray(node)) {
      node.forEach(walk);
    } else if (node !== null && typeof node === 'object') {
      Object.values(node).forEach(walk);
    }
  };
  walk(value);
  return [...found.values()];
}

/** Headers that hand a client a URL: a redirect's, the content's own, and RFC 8288 links. */
const URL_HEADERS = ['location', 'content-location', 'link'];

/**
 * The base the references of a reply's body resolve against: its Content-Location where it gives one (RFC 9110
 * §8.7), else the URL that answered, after any redirect.
 */
const baseOf = (reply: Reply) => {
  const location = reply.headers['content-location'];
  return location !== undefined && URL.canParse(location.trim(), reply.url) ? new URL(location.trim(), reply.url).href : reply.url;
};

/** What a reply's body says: its JSON, or the lines of a text answer (`text/uri-list`, RFC 2483, or plain text), comments aside. */
function bodyOf(reply: Reply): unknown {
  const parsed = reply.json();
  if (parsed !== undefined || !/^text\/(plain|uri-list)\b/i.test(reply.headers['content-type'] ?? '')) return parsed;
  return reply.text().split(/\r?\n/).map((line) => line.trim()).filter((line) => line !== '' && !line.startsWith('#'));
}

/** The URLs a reply offers: its body (JSON at any depth, or text lines), then those of its headers, each resolved to an absolute URL. */
export function offeredUrls(reply: Reply): string[] {
  const fromHeaders = URL_HEADERS.flatMap((name) => {
    const value = reply.headers[name];
    if (value === undefined) return [];
    const written = name === 'link' ? [...value.matchAll(/<([^>]+)>/g)].map((match) => match[1]) : [value.trim()];
    return written.flatMap((url) => (URL.canParse(url, reply.url) ? [new URL(url, reply.url).href] : []));
  });
  return [...new Set([...urlReferences(bodyOf(reply), baseOf(reply)).map((reference) => reference.url), ...fromHeaders])];
}

/** The form in which an answer wrote its URLs (RFC 3986 §4.1), for the report: what another server may write differently. */
export function referenceForms(reply: Reply): string[] {
  const api = new URL(reply.url).origin;
  const formOf = ({ written, url }: UrlReference) => {
    const where = new URL(url).origin === api ? "on the API's origin" : 'on an origin of their own';
    const form = /^https?:/i.test(written) ? `absolute, ${where}` : written.startsWith('//') ? `scheme-relative, ${where}` : written.startsWith('/') ? 'path-absolute' : 'relative';
    return `${form}${new URL(url).search ? ', with a query' : ''}`;
  };
  return [...new Set(urlReferences(bodyOf(reply), baseOf(reply)).map(formOf))];
}

/** The slug of a secure attachment URL (`…/files/d/{slug}`), or undefined. */
export function slugOf(url: string): string | undefined {
  const path = new URL(url).pathname;
  const at = path.lastIndexOf(SECURE_PATH_PREFIX);
  const slug = at < 0 ? '' : path.slice(at + SECURE_PATH_PREFIX.length);
  return slug && !slug.includes('/') ? decodeURIComponent(slug) : undefined;
}

/** Each URL read anonymously and matched to a file by SHA-256; the URLs off the target's origin that could not be reached apart. */
async function readEach(api: Api, urls: readonly string[], files: readonly TestFile[]): Promise<{ matched: Map<string, string>; unreachable: string[] }> {
  const byDigest = new Map(files.map((file) => [file.sha256, file.name]));
  const matched = new Map<string, string>();
  const unreachable: string[] = [];
  for (const url of urls) {
    const read = await api.offered(`read ${url} to match it to a file`, url);
    if (read === undefined) unreachable.push(url);
    const name = read?.status === 200 ? byDigest.get(sha256(read.body)) : undefined;
    if (name !== undefined && !matched.has(name)) matched.set(name, url);
  }
  return { matched, unreachable };
}

/**
 * Which URL serves which file, where none must (a leak): a URL that could not be reached served nothing. For upload
 * URLs, only usable while they are public (non-secure, or secure within the hour).
 */
export async function urlsByFile(api: Api, urls: readonly string[], files: readonly TestFile[]): Promise<Map<string, string>> {
  return (await readEach(api, urls, files)).matched;
}

/**
 * Which URL serves which file, where each must: a file left unmatched while some URL off the target's origin could
 * not be reached gets no verdict (an infrastructure error), since that URL might have served it.
 */
export async function urlsServing(api: Api, urls: readonly string[], files: readonly TestFile[]): Promise<Map<string, string>> {
  const { matched, unreachable } = await readEach(api, urls, files);
  if (matched.size < files.length && unreachable.length > 0) {
    api.unreachable(`could not reach ${unreachable.map((url) => api.evidence.redact(url)).join(', ')}, which might serve a file no other URL served`);
  }
  return matched;
}
