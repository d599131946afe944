// "Private" means no anonymous way to the bytes (§4.1 rule 4, §4.2, §5.6): one helper tries every route a caller
// without files.readonly might take to a file (specs/cases/anonymous-routes.json), follows every URL an answer
// offers, and reports each route that handed over the file's bytes. Every privacy check uses it.
import { type Api, type Auth, type Reply, serves } from '../client/api.ts';
import { fileRef, judge } from '../client/evidence.ts';
import { getRequestForms, loadTable } from '../contract/cases.ts';
import { describeSpelling, type Spelling } from '../contract/spelling.ts';
import { offeredUrls, slugOf } from './discover.ts';
import type { TestFile } from '../files/test-file.ts';

interface RouteCase {
  route: string;
  via: 'url' | 'api';
  spelling?: 'trailing-slash' | 'query' | 'encoded-slug' | 'upper-case-path' | 'file-name';
  method?: 'GET' | 'POST';
  headers?: Record<string, string>;
  /** The request written in another form HTTP permits (src/contract/spelling.ts). */
  form?: Spelling;
  auth?: 'none' | 'unknown' | 'empty' | 'noFilesScope' | 'access';
}

/**
 * The routes of specs/cases/anonymous-routes.json, then the API call with a token lacking files.readonly in each form
 * of specs/cases/request-forms.json a GET can take: a server that checks the scope on one spelling of the request
 * only hands the file to the others.
 */
const ROUTES: readonly RouteCase[] = [
  ...loadTable<RouteCase>('anonymous-routes.json'),
  ...getRequestForms().map((form): RouteCase => ({ route: `the API call GET /files/d/{slug} with a token lacking files.readonly, ${describeSpelling(form)}`, via: 'api', auth: 'noFilesScope', form })),
];
/** Read once: every privacy check of every file asks for them. */
export const anonymousRouteCases = () => ROUTES;

/** The API call with a token lacking files.readonly in the other forms a GET can take, by route name. */
export const scopeFormRoutes = () => anonymousRouteCases().filter((row) => row.auth === 'noFilesScope' && row.form !== undefined).map((row) => row.route);

/** The routes by name, read once: the file's URL as given first, then the others. */
export const [AS_GIVEN, ...OTHER_ROUTES] = anonymousRouteCases().map((row) => row.route);

/** A route that handed over the bytes, and the URL that served them (redacted: it may be a signed one). */
export interface Leak {
  route: string;
  url: string;
  status: number;
}

/** The same resource as other servers and CDNs also spell it. */
function respell(url: string, spelling: NonNullable<RouteCase['spelling']>, file: TestFile, baseUrl: string): string {
  const parsed = new URL(url);
  const slug = slugOf(url);
  switch (spelling) {
    case 'trailing-slash':
      parsed.pathname += '/';
      break;
    case 'query':
      parsed.search = parsed.search ? `${parsed.search}&download=1` : '?download=1';
      break;
    case 'encoded-slug':
      if (slug !== undefined) parsed.pathname = parsed.pathname.slice(0, -encodeURIComponent(slug).length) + [...slug].map((c) => `%${c.charCodeAt(0).toString(16).toUpperCase().padStart(2, '0')}`).join('');
      break;
    case 'upper-case-path': {
      // The route's letters, not the slug's (or the file's name), nor those of BASE_URL's path where the URL lies below
      // it: a gateway in front may hold to its prefix's case while the server behind finds the route in any case.
      const kept = slug === undefined ? (parsed.pathname.split('/').pop() ?? '') : encodeURIComponent(slug);
      const base = new URL(baseUrl);
      const basePath = base.pathname.replace(/\/$/, '');
      const prefix = parsed.origin === base.origin && parsed.pathname.startsWith(`${basePath}/`) ? basePath : '';
      parsed.pathname = prefix + parsed.pathname.slice(prefix.length, parsed.pathname.length - kept.length).toUpperCase() + kept;
      break;
    }
    case 'file-name':
      parsed.pathname += `/${encodeURIComponent(file.name)}`;
      break;
  }
  return parsed.href;
}

const API_AUTH: Record<NonNullable<RouteCase['auth']>, Auth> = {
  none: 'none',
  unknown: { header: 'Bearer conformance-unknown-token-0000' },
  empty: { header: 'Bearer' },
  noFilesScope: 'noFilesScope',
  access: 'access',
};

/**
 * Every route (or those named in `only`) by which a caller without files.readonly obtained `file`'s bytes from its
 * URL `url`. Empty when the file is private. An answer that offers URLs (a signed URL in JSON, a Location) is
 * followed, anonymously.
 */
export async function anonymousLeaks(api: Api, url: string, file: TestFile, only?: readonly string[]): Promise<Leak[]> {
  const leaks: Leak[] = [];
  const slug = slugOf(url);
  const rows = anonymousRouteCases();
  const unknown = only?.filter((route) => !rows.some((row) => row.route === route)) ?? [];
  if (unknown.length > 0) throw new Error(`no route ${unknown.join(', ')} in specs/cases/anonymous-routes.json`);
  for (const row of rows.filter((candidate) => only?.includes(candidate.route) ?? true)) {
    if (row.via === 'api' && slug === undefined) continue;
    const reply =
      row.via === 'url'
        ? await api.anonymous(`${row.route}, anonymously`, row.spelling ? respell(url, row.spelling, file, api.target.baseUrl) : url, { method: row.method, headers: row.headers, spelling: row.form })
        : await api.signedUrlFor(`${row.route}`, slug as string, API_AUTH[row.auth ?? 'none'], row.form);
    leaks.push(...(await leaksOf(api, row.route, reply, file)));
  }
  return leaks;
}

/** Whether an answer to `route` handed over the file's bytes, itself or by a URL it offered (read anonymously). */
export async function leaksOf(api: Api, route: string, reply: Reply, file: TestFile): Promise<Leak[]> {
  const leaks: Leak[] = [];
  if (served(reply, file)) leaks.push({ route, url: api.evidence.redact(reply.url), status: reply.status });
  for (const offered of offeredUrls(reply)) {
    // A URL that cannot be reached from here (another host's documentation, say) served nothing.
    const read = await api.offered(`a URL offered by ${route}, read anonymously`, offered);
    if (read !== undefined && served(read, file)) leaks.push({ route: `${route}, then the URL it offered`, url: api.evidence.redact(offered), status: read.status });
  }
  return leaks;
}

/**
 * The routes tried on file `index` of an upload of `count` at its check number `turn` (0, 1, …): its URL as given
 * always, and each other route on one file only, the next route on the next file, shifted by one at each check. Over
 * `count` checks every route meets every file, as the domains cover every pair (of route, file and age), at about
 * 1/count of the reads of every route on every file.
 */
export function routesShared(index: number, count: number, turn: number): string[] {
  return [AS_GIVEN, ...OTHER_ROUTES.filter((_, r) => (r + 1 + turn) % count === index)];
}

/** Whether the reply served the file, noted on its exchange: a private file's bytes are to be withheld. */
function served(reply: Reply, file: TestFile): boolean {
  const leaked = serves(reply, file);
  judge(reply, { expected: 'withholds', file: fileRef(file), held: !leaked });
  return leaked;
}

/** The leaks as the failure shows them. */
export const describeLeaks = (leaks: readonly Leak[]) => leaks.map((leak) => `${leak.route} (${leak.status} from ${leak.url})`);
