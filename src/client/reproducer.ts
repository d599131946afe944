// A failed or inconclusive test as the server's team can replay it without this suite: the exchanges it judged
// (its evidence, already redacted) as HAR 1.2 (`exchanges.har`, for browsers' developer tools, Postman, Insomnia) and
// as a curl script (`reproduce.sh`) that checks again, on the answers it gets, what the test expected of them. Each
// command is httpsnippet's from the HAR entry; the script around them (settings from the environment, values taken
// from earlier answers, the checks) is ours. Neither file holds a secret: a credential is named (`<ACCESS_TOKEN>`)
// and becomes the environment variable of its setting; a signature stays redacted and is taken from the answer that
// offered it.
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { Ajv, type ValidateFunction } from 'ajv';
import type { HTTPSnippet } from 'httpsnippet';
import { FILE_FORM_KEY } from '../contract/contract.ts';
import { addFormats } from '../contract/schemas.ts';
import { SETTINGS } from '../config/config.ts';
import { REDACTED } from '../config/redact.ts';
import { testFile } from '../files/test-file.ts';
import type { Exchange, Judgement } from './evidence.ts';
import { USER_AGENT } from './transport.ts';

/** The test a reproducer replays, as its report names it. */
export interface Reproduction {
  rule: string;
  title: string;
  /** Why the test failed or was inconclusive: its errors and annotations, redacted. */
  why: string[];
  exchanges: readonly Exchange[];
  baseUrl: string;
  testClockUrl?: string;
}

interface HarRequest {
  method: string;
  url: string;
  httpVersion: string;
  cookies: never[];
  headers: { name: string; value: string }[];
  queryString: { name: string; value: string }[];
  postData?: { mimeType: string; text?: string; params?: { name: string; value?: string; fileName?: string }[] };
  headersSize: number;
  bodySize: number;
}
type Har = { log: { version: '1.2'; creator: { name: string; version: string }; entries: HarEntry[] } };
type HarEntry = Record<string, unknown> & { request: HarRequest };
type Multipart = { fields: Record<string, string | string[]>; files: { name: string; size: number; sha256: string }[] };

const [SUITE, VERSION] = USER_AGENT.split('/');
const ENV_OF_PLACEHOLDER = /<([A-Z][A-Z0-9_]*)>/g;
const multipartOf = (body: unknown): Multipart | undefined =>
  typeof body === 'object' && body !== null && 'files' in body && 'fields' in body ? (body as Multipart) : undefined;
/** A file's name as curl sends it (its base name) and a file system takes it. */
const plainName = (name: string) => /^[\w][\w .()+,=@-]*$/.test(name) && name.length <= 200;

// ---------------------------------------------------------------------------------------------------------------- HAR

/** The exchanges as HAR 1.2: what was sent and received, redacted as the evidence is. */
export function toHar(exchanges: readonly Exchange[]): Har {
  return { log: { version: '1.2', creator: { name: SUITE, version: VERSION }, entries: exchanges.map(harEntry) } };
}

const pairs = (record: Record<string, string> = {}) => Object.entries(record).map(([name, value]) => ({ name, value }));

function harRequest(exchange: Exchange): HarRequest {
  const url = new URL(exchange.url);
  const body = exchange.requestBody;
  const form = multipartOf(body);
  const contentType = exchange.requestHeaders['content-type'];
  let postData: HarRequest['postData'];
  if (form) {
    const fields = Object.entries(form.fields).flatMap(([name, value]) => (Array.isArray(value) ? value : [value]).map((item) => ({ name, value: item })));
    postData = { mimeType: 'multipart/form-data', params: [...fields, ...form.files.map((file) => ({ name: FILE_FORM_KEY, fileName: file.name }))] };
  } else if (body !== undefined) {
    postData = { mimeType: contentType ?? 'application/json', text: typeof body === 'string' ? body : JSON.stringify(body) };
  }
  // The HTTP client names the type of the data it sends where the request does not.
  const typed: Record<string, string> = postData && !form && contentType === undefined ? { 'content-type': postData.mimeType } : {};
  return {
    method: exchange.method,
    // A redacted value's brackets are not URI characters outside a host.
    url: url.origin + `${url.pathname}${url.search}${url.hash}`.replace(/\[/g, '%5B').replace(/\]/g, '%5D'),
    httpVersion: 'HTTP/1.1',
    cookies: [],
    headers: pairs({ ...exchange.requestHeaders, ...typed }),
    queryString: [...url.searchParams].map(([name, value]) => ({ name, value })),
    ...(postData ? { postData } : {}),
    headersSize: -1,
    bodySize: -1,
  };
}

function harEntry(exchange: Exchange): HarEntry {
  const headers = exchange.responseHeaders ?? {};
  return {
    startedDateTime: exchange.startedAt,
    time: exchange.ms,
    request: harRequest(exchange),
    response: {
      status: exchange.status ?? 0,
      statusText: '',
      httpVersion: 'HTTP/1.1',
      cookies: [],
      headers: pairs(headers),
      content: { size: -1, mimeType: headers['content-type'] ?? '', ...(exchange.responseBody === undefined ? {} : { text: exchange.responseBody }) },
      redirectURL: headers.location ?? '',
      headersSize: -1,
      bodySize: -1,
      ...(exchange.error ? { _error: exchange.error } : {}),
    },
    cache: {},
    timings: { send: 0, wait: exchange.ms, receive: 0 },
    comment: exchange.label,
    ...(exchange.traceId ? { _traceId: exchange.traceId } : {}),
  };
}

/** What this module loads on demand (har-schema's files, httpsnippet): JSON and CommonJS, read where first needed. */
const require = createRequire(import.meta.url);

let validateHar: ValidateFunction | undefined;

/** What keeps a document from being HAR 1.2, by its published JSON Schema (har-schema, draft-06); none when it is. */
export function harProblems(har: unknown): string[] {
  if (!validateHar) {
    // Not the suite's strict draft 2020-12 instance: har-schema is draft-06, its files referring to each other by id.
    const ajv = new Ajv({ strict: false, allErrors: true });
    addFormats(ajv);
    ajv.addMetaSchema(require('ajv/dist/refs/json-schema-draft-06.json') as object);
    ajv.addSchema(Object.values(require('har-schema') as Record<string, object>));
    validateHar = ajv.getSchema('har.json#') as ValidateFunction;
  }
  return validateHar(har) ? [] : (validateHar.errors ?? []).map((error) => `${error.instancePath || '/'} ${error.message ?? ''}`);
}

// ------------------------------------------------------------------------------------------------------------- script

/** Shell single quotes around any text. */
const quote = (text: string) => `'${text.replace(/'/g, `'\\''`)}'`;
/** A comment line's text: one line, nothing the shell would run. */
const comment = (text: string) => text.replace(/[\r\n]+/g, ' ');

/** Where a request's URL comes from in the script: the settings, or a value an earlier answer offered. */
interface Source {
  /** The exchange whose answer offers it (index), and how to take it: a JSON path of its body or a header. */
  from: number;
  take: { json: (string | number)[] } | { header: string };
  /** The recorded URL is prefix + the value (resolved; or only its last path segment) + suffix. */
  prefix: string;
  suffix: string;
  segment: boolean;
  /** How the URL spells the value: as offered, or as other servers also spell it (the privacy routes do). */
  spelling: Spelling;
  /** False where the URL spells the value in a way the script cannot redo. */
  exact: boolean;
}

/** A spelling of an offered value in a later URL: in the text, and as the script redoes it on `$v`. */
interface Spelling {
  name: string;
  apply(value: string): string;
  shell: string;
}

const SPELLINGS: readonly Spelling[] = [
  { name: 'as offered', apply: (value) => value, shell: '"$v"' },
  { name: 'in upper case', apply: (value) => value.toUpperCase(), shell: `"$(printf '%s' "$v" | tr '[:lower:]' '[:upper:]')"` },
  {
    name: 'each character percent-encoded',
    apply: (value) => [...Buffer.from(value)].map((byte) => `%${byte.toString(16).toUpperCase().padStart(2, '0')}`).join(''),
    shell: `"$(printf '%s' "$v" | od -An -tx1 | tr -d ' \\n' | sed 's/../%&/g' | tr '[:lower:]' '[:upper:]')"`,
  },
];

/** Strings of a JSON document with their paths. */
function stringsOf(value: unknown, path: (string | number)[] = []): { path: (string | number)[]; value: string }[] {
  if (typeof value === 'string') return [{ path, value }];
  if (Array.isArray(value)) return value.flatMap((item, i) => stringsOf(item, [...path, i]));
  if (value !== null && typeof value === 'object') return Object.entries(value).flatMap(([key, item]) => stringsOf(item, [...path, key]));
  return [];
}

function resolved(value: string, base: string): string | undefined {
  try {
    return /^(https?:)?\/\/|^\.{0,2}\//.test(value) ? new URL(value, base).href : undefined;
  } catch {
    return undefined;
  }
}

const lastSegment = (url: string) => safeDecode(new URL(url).pathname.split('/').filter(Boolean).pop() ?? '');

function safeDecode(text: string): string {
  try {
    return decodeURIComponent(text);
  } catch {
    return text;
  }
}

/** A URL an answer offered, and its last path segment (where a slug would be). */
type Offer = { take: Source['take']; url: string; last: string };

/**
 * The URLs each answer offered (in its JSON body or a Location header), resolved, the fixed settings' URLs aside:
 * each answer's parsed once, however many later requests look back at it.
 */
function offersOf(exchanges: readonly Exchange[], fixed: readonly string[]): (index: number) => Offer[] {
  const known = new Map<number, Offer[]>();
  return (j) => {
    const cached = known.get(j);
    if (cached) return cached;
    const exchange = exchanges[j];
    const found: Omit<Offer, 'last'>[] = [];
    const location = exchange.responseHeaders?.location;
    if (location) found.push({ take: { header: 'location' }, url: location });
    try {
      for (const { path, value } of stringsOf(JSON.parse(exchange.responseBody ?? ''))) found.push({ take: { json: path }, url: value });
    } catch {
      // Not JSON: no URL taken from its body.
    }
    const offers = found
      .map((offer) => ({ ...offer, url: resolved(offer.url, exchange.url) }))
      .filter((offer): offer is Omit<Offer, 'last'> => offer.url !== undefined && !fixed.some((base) => base.startsWith(offer.url as string)))
      .map((offer) => ({ ...offer, last: lastSegment(offer.url) }));
    known.set(j, offers);
    return offers;
  };
}

/**
 * The earlier answer a URL was taken from: a URL it offered that the request's URL is, contains, or whose last path
 * segment (a slug) it contains. The latest answer first.
 */
function sourceOf(exchanges: readonly Exchange[], index: number, offers: (index: number) => Offer[]): Source | undefined {
  const url = exchanges[index].url;
  const respelled = safeDecode(url).toLowerCase();
  for (const segment of [false, true]) {
    for (let j = index - 1; j >= 0; j--) {
      for (const offer of offers(j)) {
        // A slug or an id: long enough, with a digit, unlike the words of a path.
        const part = segment ? offer.last : offer.url;
        if (segment && !(part.length >= 8 && /\d/.test(part))) continue;
        for (const spelling of segment ? SPELLINGS : SPELLINGS.slice(0, 1)) {
          const at = url.indexOf(spelling.apply(part));
          if (at >= 0) return { from: j, take: offer.take, prefix: url.slice(0, at), suffix: url.slice(at + spelling.apply(part).length), segment, spelling, exact: true };
        }
        if (segment && respelled.includes(part.toLowerCase())) return { from: j, take: offer.take, prefix: '', suffix: '', segment, spelling: SPELLINGS[0], exact: false };
      }
    }
  }
  return undefined;
}

/** The script's expression of a recorded text: the base URL and test clock as their settings, every other character as it was. */
function settingsIn(text: string, settings: readonly [string, string][]): string {
  for (const [value, env] of settings) if (text.startsWith(value)) return `"$${env}"${quote(text.slice(value.length))}`;
  return quote(text);
}

const CHECK: Record<Judgement['expected'], string> = {
  refusal: 'a 4xx refusal (any code but 429: the contract shows none)',
  acceptance: 'a 2xx acceptance (or, to a GET, a redirect with Location)',
  serves: 'a 2xx with the exact bytes of',
  withholds: 'no copy of the bytes of (a refusal or an answer without them; never a 5xx)',
};

/** The shell functions every reproducer starts with. */
const PRELUDE = String.raw`
out="$(mktemp -d)"
trap 'rm -rf "$out"' EXIT
failures=0
checked=0
unchecked=0
digest() { if command -v sha256sum >/dev/null; then sha256sum "$1" | cut -d' ' -f1; else shasum -a 256 "$1" | cut -d' ' -f1; fi; }
status() { local s; s="$(cat "$out/$1.status" 2>/dev/null)"; echo "${'${s:-000}'}"; }
size() { local n; n="$(wc -c < "$out/$1.body" 2>/dev/null | tr -d ' ')"; echo "${'${n:-0}'}"; }
header() { tr -d '\r' < "$out/$1.headers" 2>/dev/null | awk -v name="$2" 'tolower($0) ~ "^" tolower(name) ":" { sub(/^[^:]*:[ \t]*/, ""); value = $0 } END { print value }'; }
# A URL an answer offered, resolved against the URL it answered (absolute, scheme-relative, path-absolute, relative).
resolve() {
  case "$2" in
    http://*|https://*) echo "$2" ;;
    //*) echo "${"${1%%://*}"}:$2" ;;
    /*) echo "$(echo "$1" | sed -E 's#^([a-z]+://[^/]+).*#\1#')$2" ;;
    *) echo "${"${1%/*}"}/$2" ;;
  esac
}
serves() { local s; s="$(status "$1")"; [ "$s" -ge 200 ] && [ "$s" -lt 300 ] && [ "$(digest "$out/$1.body")" = "$2" ]; }
verdict() { # n, held (0 or 1), what was expected, what came
  checked=$((checked + 1))
  if [ "$2" = 1 ]; then echo "  holds: $3"; else echo "  BROKEN: expected $3; got $4"; failures=$((failures + 1)); fi
}
expect_refusal() { local s; s="$(status "$1")"; [ "$s" -ge 400 ] && [ "$s" -lt 500 ] && [ "$s" != 429 ]; verdict "$1" "$((! $?))" "$2" "$s"; }
expect_acceptance() { local s; s="$(status "$1")"; { [ "$s" -ge 200 ] && [ "$s" -lt 300 ]; } || { [ "$3" = GET ] && [ "$s" -ge 300 ] && [ "$s" -lt 400 ] && [ -n "$(header "$1" location)" ]; }; verdict "$1" "$((! $?))" "$2" "$s"; }
expect_serves() { serves "$1" "$2"; verdict "$1" "$((! $?))" "$3" "$(status "$1"), $(size "$1") bytes"; }
expect_withholds() { local s; s="$(status "$1")"; ! serves "$1" "$2" && [ "$s" -lt 500 ]; verdict "$1" "$((! $?))" "$3" "$s, $(size "$1") bytes"; }
`;

/** httpsnippet, loaded by the first reproducer: a passing run writes none, and each worker would load it for nothing. */
let snippets: typeof HTTPSnippet | undefined;
const httpSnippet = () => (snippets ??= (require('httpsnippet') as { HTTPSnippet: typeof HTTPSnippet }).HTTPSnippet);

/** The curl command of one exchange: httpsnippet's, its URL and credentials made the script's, its answer kept. */
function curlOf(exchange: Exchange, index: number, fileDir: (part: number) => string): string {
  const request = harRequest(exchange);
  // A new trace is the server's to see: the recorded one names the test's run, not this one.
  request.headers = request.headers.filter((header) => header.name !== 'traceparent');
  if (request.postData?.params) {
    let part = 0;
    request.postData.params = request.postData.params.map((param) => (param.fileName === undefined ? param : { ...param, fileName: `${fileDir(part++)}/${plainName(param.fileName) ? param.fileName : 'file'}` }));
  }
  const snippet = new (httpSnippet())(request as ConstructorParameters<typeof HTTPSnippet>[0]).convert('shell', 'curl', { indent: '  ' });
  const command = (Array.isArray(snippet) ? snippet[0] : snippet) as string;
  const redirects = exchange.followRedirects === false ? '' : ' \\\n  --location';
  return `${command
    .replace(/--url (?:'(?:[^']|'\\'')*'|\S+)/, '--url "$url"')
    .replace(/--header 'authorization: [^\n]*/, (line) => line.replace(ENV_OF_PLACEHOLDER, `'"$$$1"'`))} \\
  --silent --show-error --max-time 60${redirects} \\
  --output "$out/${index}.body" --dump-header "$out/${index}.headers" --write-out '%{http_code}' > "$out/${index}.status"`;
}

/** reproduce.sh and the files it uploads (the suite's test files, made again from their name and size), in `dir`. */
function writeScript(dir: string, reproduction: Reproduction): void {
  const { exchanges, baseUrl, testClockUrl } = reproduction;
  const settings: [string, string][] = [...(testClockUrl ? [[testClockUrl, SETTINGS.testClockUrl.env] as [string, string]] : []), [baseUrl, SETTINGS.baseUrl.env]];
  const offers = offersOf(exchanges, settings.map(([value]) => value));
  const needed = new Set<string>([SETTINGS.baseUrl.env]);
  const purposes = new Map(Object.values(SETTINGS).map((setting) => [setting.env as string, setting.purpose as string]));
  const body: string[] = [];
  const clockStart = exchanges.findIndex((exchange) => testClockUrl !== undefined && exchange.url.startsWith(testClockUrl));
  const first = clockStart >= 0 ? /"now"\s*:\s*"([^"]+)"/.exec(exchanges[clockStart].responseBody ?? '')?.[1] : undefined;
  if (first) {
    needed.add(SETTINGS.testClockUrl.env);
    body.push(
      `# The test began with the server's clock at ${first} (its first reading of the test clock): the script sets it there first.`,
      `curl --silent --show-error --request POST --url "$${SETTINGS.testClockUrl.env}" --header 'content-type: application/json' --data ${quote(JSON.stringify({ now: first }))} > /dev/null || { echo "reproduce.sh: the test clock at $${SETTINGS.testClockUrl.env} could not be set"; exit 2; }`,
      '',
    );
  }
  exchanges.forEach((exchange, index) => {
    const clock = testClockUrl !== undefined && exchange.url.startsWith(testClockUrl);
    // A reading of the test clock judges nothing and moves nothing.
    if (clock && exchange.method !== 'POST') return;
    const previous = exchanges[index - 1];
    const gap = previous ? (Date.parse(exchange.startedAt) - Date.parse(previous.startedAt) - previous.ms) / 1000 : 0;
    if (gap >= 5) body.push(`echo "waiting ${Math.round(gap)} s, as the test did"`, `sleep ${Math.round(gap)}`);
    body.push(`# ${index}. ${comment(exchange.label)}${exchange.traceId ? ` (trace ${exchange.traceId})` : ''}: answered ${exchange.status ?? comment(exchange.error ?? 'nothing')} in the test`);
    body.push(`echo ${quote(`${index}. ${exchange.label}`)}`);
    const source = clock ? undefined : sourceOf(exchanges, index, offers);
    const failing = exchange.judged?.filter((judged) => !judged.held) ?? [];
    const whatOf = (judgement: Judgement) => `${CHECK[judgement.expected]}${judgement.file ? ` ${judgement.file.name}` : ''}`;
    const uncheckable = (why: string) => [`  echo ${quote(`  not sent: ${why}`)}`, ...(failing.length > 0 ? [`  unchecked=$((unchecked + ${failing.length}))`] : [])];
    if (clock) needed.add(SETTINGS.testClockUrl.env);
    if (source && !source.exact) {
      body.push(`# its URL spells a value the answer of ${source.from} offered otherwise (in another case or encoding), which the script cannot redo`, ...uncheckable(`its URL spells a value of the answer of ${source.from} otherwise`), '');
      return;
    }
    if (source) {
      const take = 'json' in source.take ? `jq -r --argjson path ${quote(JSON.stringify(source.take.json))} 'getpath($path) // empty' "$out/${source.from}.body" 2>/dev/null` : `header ${source.from} ${source.take.header}`;
      body.push(
        `# its URL holds one the answer of ${source.from} offered${source.segment ? ` (its last path segment, ${source.spelling.name})` : ''}: taken from this run's answer`,
        `offered="$(${take})"`,
        `if [ -n "$offered" ]; then`,
        `  v="$(resolve ${settingsIn(exchanges[source.from].url, settings)} "$offered")"`,
        ...(source.segment ? ['  v="${v%%\\?*}"; v="${v##*/}"'] : []),
        `  url=${settingsIn(source.prefix, settings)}${source.spelling.shell}${quote(source.suffix)}`,
      );
    } else {
      if (exchange.url.includes(REDACTED)) body.push(`# its URL held a value redacted in the evidence, which no earlier answer offered: sent as redacted`);
      body.push(`url=${settingsIn(exchange.url, settings)}`);
    }
    if (JSON.stringify(exchange.requestBody ?? '').includes(REDACTED)) body.push(`# its body held a value redacted in the evidence: sent as redacted`);
    for (const name of exchange.requestHeaders.authorization?.matchAll(ENV_OF_PLACEHOLDER) ?? []) needed.add(name[1]);
    multipartOf(exchange.requestBody)?.files.forEach((file, part) => {
      if (!plainName(file.name)) body.push(`# the file ${comment(JSON.stringify(file.name))} is sent as "file": its name is not one a file system keeps`);
      const made = testFile(file.name, file.size);
      if (made.sha256 !== file.sha256) {
        body.push(`# the file ${comment(JSON.stringify(file.name))} is not one of the suite's test files: not written beside the script, curl says so`);
        return;
      }
      mkdirSync(join(dir, 'files', `${index}.${part}`), { recursive: true });
      writeFileSync(join(dir, 'files', `${index}.${part}`, plainName(file.name) ? file.name : 'file'), made.bytes);
    });
    body.push(curlOf(exchange, index, (part) => `files/${index}.${part}`));
    for (const judgement of failing) {
      const file = judgement.file ? ` ${judgement.file.sha256}` : '';
      body.push(`expect_${judgement.expected} ${index}${file} ${quote(whatOf(judgement))}${judgement.expected === 'acceptance' ? ` ${exchange.method}` : ''}`);
    }
    if (source) {
      // Where the answer offered no URL, nothing was served through one: a file withheld; any other expectation unchecked.
      const withheld = failing.filter((judgement) => judgement.expected === 'withholds');
      const others = failing.length - withheld.length;
      body.push(
        'else',
        `  echo ${quote(`  not sent: the answer of ${source.from} offered no URL for it`)}`,
        ...withheld.map((judgement) => `  verdict ${index} 1 ${quote(`${whatOf(judgement)} (no URL offered, none served)`)} ''`),
        ...(others > 0 ? [`  unchecked=$((unchecked + ${others}))`] : []),
        'fi',
      );
    }
    body.push('');
  });
  const broken = exchanges.some((exchange) => exchange.judged?.some((judged) => !judged.held));

  const missing = [...needed].map((env) => `[ -n "\${${env}:-}" ] || { echo ${quote(`reproduce.sh: set ${env} (${purposes.get(env) ?? 'a token the server issued during the test, which only that run knew'})`)}; missing=1; }`);
  const script = [
    '#!/usr/bin/env bash',
    `# Reproducer of "${comment(reproduction.title)}" (${reproduction.rule}), written by ${USER_AGENT} from the exchanges the test judged.`,
    '# Why the test failed or was inconclusive:',
    ...reproduction.why.map((line) => `#   ${comment(line)}`),
    `# Run it with ${[...needed].join(', ')} set as for the suite (never written here). It exits 1 while the server still`,
    '# answers against what the test expected, 0 once every such answer holds, 2 when it cannot run or check anything.',
    broken
      ? '# It checks again each answer the test judged against its expectation and found otherwise.'
      : '# The test judged no single answer against an expectation (its verdict came from its own reading, above):\n# this script sends its requests but cannot check that verdict, and exits 2.',
    'set -u',
    'cd "$(dirname "$0")"',
    'missing=0',
    ...missing,
    'for tool in curl jq awk; do command -v "$tool" >/dev/null || { echo "reproduce.sh: needs $tool"; missing=1; }; done',
    '[ "$missing" = 0 ] || exit 2',
    PRELUDE,
    ...body,
    broken
      ? [
          'if [ "$failures" -gt 0 ]; then echo "$failures of $checked answers checked still break what the test expected"; exit 1; fi',
          'if [ "$unchecked" -gt 0 ]; then echo "the $checked answers checked hold, but $unchecked could not be checked again"; exit 2; fi',
          'echo "the $checked answers checked hold"; exit 0',
        ].join('\n')
      : 'echo "sent; this script cannot check the verdict (see its head)"; exit 2',
    '',
  ].join('\n');
  writeFileSync(join(dir, 'reproduce.sh'), script, { mode: 0o755 });
}

/** Where a test's reproducer is written: `<REPORTS_DIR>/reproducers/<RULE-ID>/<its title less the rule, as a file name>/`. */
export function reproducerDir(reportsDir: string, rule: string, title: string): string {
  const name = title.toLowerCase().replace(/[^a-z0-9]+/g, '-').replace(/^-+|-+$/g, '').slice(0, 80).replace(/-+$/, '');
  return join(reportsDir, REPRODUCERS, rule, name || 'test');
}

/** The folder of REPORTS_DIR holding the reproducers of a run. */
export const REPRODUCERS = 'reproducers';

/** Writes the reproducer of a test in `dir` (emptied first): reproduce.sh, the files it uploads, exchanges.har. */
export function writeReproducer(dir: string, reproduction: Reproduction): { script: string; har: string } {
  rmSync(dir, { recursive: true, force: true });
  mkdirSync(dir, { recursive: true });
  const har = toHar(reproduction.exchanges);
  const problems = harProblems(har);
  if (problems.length > 0) throw new Error(`the reproducer's HAR is not HAR 1.2: ${problems.join('; ')}`);
  writeFileSync(join(dir, 'exchanges.har'), `${JSON.stringify(har, null, 2)}\n`);
  writeScript(dir, reproduction);
  return { script: join(dir, 'reproduce.sh'), har: join(dir, 'exchanges.har') };
}
