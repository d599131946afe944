// Where the contract shows no shape (inside uploadedFiles, the signed-URL answer), the suite finds what it
// needs generically: every absolute URL at any depth, a Location header, bytes matched by digest.
import type { Api, Reply } from '../client/api.ts';
import { SECURE_PATH_PREFIX } from '../contract/contract.ts';
import { sha256, type TestFile } from '../files/test-file.ts';

/** Every absolute http(s) URL at any depth of a JSON value, in document order, without repeats. */
export function absoluteUrls(value: unknown): string[] {
  const found: string[] = [];
  const walk = (node: unknown): void => {
    if (typeof node === 'string') {
      if (/^https?:\/\/\S+$/.test(node)) found.push(node);
    } else if (Array.isArray(node)) {
      node.forEach(walk);
    } else if (node !== null && typeof node === 'object') {
      Object.values(node).forEach(walk);
    }
  };
  walk(value);
  return [...new Set(found)];
}

/** Headers that hand a client a URL: a redirect's, the content's own, and RFC 8288 links. */
const URL_HEADERS = ['location', 'content-location', 'link'];

/** The URLs a reply offers: its JSON body at any depth, then those of its headers (relative ones resolved). */
export function offeredUrls(reply: Reply): string[] {
  const fromHeaders = URL_HEADERS.flatMap((name) => {
    const value = reply.headers[name];
    if (value === undefined) return [];
    const written = name === 'link' ? [...value.matchAll(/<([^>]+)>/g)].map((match) => match[1]) : [value.trim()];
    return written.flatMap((url) => (URL.canParse(url, reply.url) ? [new URL(url, reply.url).href] : []));
  });
  return [...new Set([...absoluteUrls(reply.json()), ...fromHeaders])];
}

/** The slug of a secure attachment URL (`…/files/d/{slug}`), or undefined. */
export function slugOf(url: string): string | undefined {
  const path = new URL(url).pathname;
  const at = path.lastIndexOf(SECURE_PATH_PREFIX);
  const slug = at < 0 ? '' : path.slice(at + SECURE_PATH_PREFIX.length);
  return slug && !slug.includes('/') ? decodeURIComponent(slug) : undefined;
}

/**
 * Which URL serves which file: each URL is read anonymously and matched by SHA-256. For upload URLs, only
 * usable while they are public (non-secure, or secure within the hour).
 */
export async function urlsByFile(api: Api, urls: readonly string[], files: readonly TestFile[]): Promise<Map<string, string>> {
  const byDigest = new Map(files.map((file) => [file.sha256, file.name]));
  const matched = new Map<string, string>();
  for (const url of urls) {
    const read = await api.anonymous(`read ${url} to match it to a file`, url);
    const name = read.status === 200 ? byDigest.get(sha256(read.body)) : undefined;
    if (name !== undefined && !matched.has(name)) matched.set(name, url);
  }
  return matched;
}
