// Facts stated by the contract (contract/platform-api.md), each with its section.
// The suite derives its expectations from these; the reference server enforces them.
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

/** The repository's copy of the contract: every section (§) this project cites is one of its headings. */
export const CONTRACT_FILE = fileURLToPath(new URL('../../contract/platform-api.md', import.meta.url));

/** The contract as a web page (src/report/contract-page.ts): its name, in the reports folder and in the Allure report's. */
export const CONTRACT_PAGE = 'contract.html';

/** The anchor GitHub gives a heading: `4.1 POST /conversations/messages/upload` → `41-post-conversationsmessagesupload`. */
export const headingAnchor = (heading: string): string => heading.trim().toLowerCase().replace(/[^\p{L}\p{N}\s_-]/gu, '').replace(/\s/g, '-');

let sectionAnchors: Map<string, string> | undefined;

/**
 * The anchor of the section a citation names first: `§4.1 rule 4, §8` → `41-post-conversationsmessagesupload`; an
 * item of a list, `§5.2`, falls in its heading's section (`5-authentication`). The same anchor opens the section on
 * GitHub's rendering of the contract and on the reports' page of it (src/report/contract-page.ts).
 */
export function contractAnchor(citation: string): string {
  sectionAnchors ??= new Map(
    [...readFileSync(CONTRACT_FILE, 'utf8').matchAll(/^#+ (\d+(?:\.\d+)*)\.? .*$/gm)].map((match) => [match[1], headingAnchor(match[0].replace(/^#+/, ''))]),
  );
  const parts = /§(\d+(?:\.\d+)*)/.exec(citation)?.[1].split('.') ?? [];
  for (let length = parts.length; length > 0; length--) {
    const anchor = sectionAnchors.get(parts.slice(0, length).join('.'));
    if (anchor !== undefined) return anchor;
  }
  throw new Error(`"${citation}" cites no numbered section of ${CONTRACT_FILE}`);
}

/** §9.1: the only published version, sent as the `Version` header. */
export const API_VERSION = 'v3';

/** §8: maximum files per upload. */
export const MAX_FILES_PER_UPLOAD = 5;

/** §8: "5 MB" per file. Decimal and binary readings differ; both are kept, see the size cases. */
export const MAX_FILE_BYTES_DECIMAL = 5_000_000;
export const MAX_FILE_BYTES_BINARY = 5 * 1024 * 1024;

/** §8: a secure attachment URL is public for one hour after the upload. */
export const SECURE_PUBLIC_WINDOW_SECONDS = 3600;

/** §4.1 rule 6, §9.4: from this date every upload is stored as secure. The time zone is not shown. */
export const SECURE_CUTOVER_DATE = '2026-11-30';

/** §4.1: the upload operation. */
export const UPLOAD_PATH = '/conversations/messages/upload';

/** §4.1 rule 2: the form key of the file content. */
export const FILE_FORM_KEY = 'fileAttachment';

/** §4.1 rule 5, §5.6: the scope that downloads a private secure attachment. */
export const FILES_READONLY_SCOPE = 'files.readonly';

/** §4.1 rule 4: path of a secure attachment; the slug is its last segment. */
export const SECURE_PATH_PREFIX = '/files/d/';

/** §4.4: the token endpoints; their payload shapes are not shown. */
export const TOKEN_PATH = '/oauth/token';
export const LOCATION_TOKEN_PATH = '/oauth/location-token';
export const TOKEN_PATHS = [TOKEN_PATH, LOCATION_TOKEN_PATH];

/** §4.3: the deprecated execution path and its replacement (§4.3 rule 4, §9.3). */
export const DEPRECATED_EXECUTE_PATH = '/agent-studio/public-api/agents/{agentId}/execute';
export const REPLACEMENT_EXECUTE_PATH = '/agent/{agentId}/execute';

/**
 * Not the contract's words: the paths where the live platform and its official SDK (`@gohighlevel/api-client` 3.1.0)
 * send the replacement execution and the location-token exchange. The reference serves them besides the contract's,
 * with the same rules, so that the SDK runs against it; the suite judges the path REPLACEMENT_EXECUTE_PATH names.
 */
export const PLATFORM_EXECUTE_PATH = '/agent-studio/agent/{agentId}/execute';
export const PLATFORM_LOCATION_TOKEN_PATH = '/oauth/locationToken';

/** §8: allowed upload file types, by extension, per category. */
export const ALLOWED_EXTENSIONS = {
  Images: ['jpg', 'jpeg', 'png', 'gif', 'svg', 'heic', 'ai'],
  Videos: ['mp4', 'mpeg', '3gp'],
  Audio: ['mp3', 'wav', 'wave', 'aiff', 'aif', 'aifc', 'gsm', 'ulaw', 'ogg', 'aac', 'm4a', 'amr'],
  Documents: ['pdf', 'doc', 'docx', 'txt', 'csv', 'xls', 'xlsx', 'ppt', 'pptx', 'odt'],
  Archives: ['zip', 'rar'],
  Other: ['vcf', 'vcard', 'ics'],
} as const;

export type ExtensionCategory = keyof typeof ALLOWED_EXTENSIONS;

export const ALLOWED_EXTENSION_SET: ReadonlySet<string> = new Set(Object.values(ALLOWED_EXTENSIONS).flat());

/** The extension of a file name, lower-cased, or '' when it has none. */
export function extensionOf(fileName: string): string {
  const dot = fileName.lastIndexOf('.');
  return dot <= 0 || dot === fileName.length - 1 ? '' : fileName.slice(dot + 1).toLowerCase();
}

/** Expand a path template such as REPLACEMENT_EXECUTE_PATH. */
export function expandPath(template: string, params: Record<string, string>): string {
  return template.replace(/\{(\w+)\}/g, (_, name: string) => {
    const value = params[name];
    if (value === undefined) throw new Error(`path parameter ${name} missing for ${template}`);
    return encodeURIComponent(value);
  });
}
