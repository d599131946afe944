// The suite's one configuration object: read once per process (environment, then .env), validated, resolved with
// its target (given by the environment, recorded in the fixtures, or the reference server's world), frozen, and
// passed down as a fixture. Only this module and reference/config.ts read process.env.
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { config as loadDotenv } from 'dotenv';
import { API_VERSION, CONTRACT_PAGE, REPLACEMENT_EXECUTE_PATH } from '../contract/contract.ts';
import type { RuleId } from '../contract/rules.ts';

export type Mode = 'replay' | 'live' | 'record';

interface Setting {
  /** The environment variable. */
  env: string;
  /** One line: what it is for. */
  purpose: string;
  default?: string;
  /** Required when the suite talks to a target it did not start itself. */
  requiredForTarget?: boolean;
  /** A credential of the target: never printed, redacted wherever it could appear, recorded by its variable name. */
  secret?: boolean;
  /** A secret that is a bearer token, so a request may authenticate with it (`auth:`); client secrets and refresh tokens are not. */
  bearer?: boolean;
  /** An identifier of the target's world: not secret, so recordings keep it. */
  targetId?: boolean;
}

/**
 * Every setting, in the order of the README's table. A credential or an identifier of the target is one row here
 * (`secret` or `targetId`): the target's type, validation, redaction, recordings, replay, the reference world and
 * the block `npm run serve` prints all follow from it (the reference seed names its value by the same `env`).
 */
export const SETTINGS = {
  mode: { env: 'SUITE_MODE', purpose: 'replay (recorded fixtures, no network), live, or record', default: 'replay' },
  baseUrl: { env: 'BASE_URL', purpose: 'base address of the API', requiredForTarget: true },
  apiVersion: { env: 'API_VERSION', purpose: 'value of the Version header', default: API_VERSION },
  locationId: { env: 'LOCATION_ID', purpose: 'the sub-account used for uploads and executions', requiredForTarget: true, targetId: true },
  conversationId: { env: 'CONVERSATION_ID', purpose: 'an email-channel conversation in LOCATION_ID', requiredForTarget: true, targetId: true },
  contactId: { env: 'CONTACT_ID', purpose: 'a contact in LOCATION_ID', requiredForTarget: true, targetId: true },
  agentId: { env: 'AGENT_ID', purpose: 'an active agent of LOCATION_ID', requiredForTarget: true, targetId: true },
  inactiveAgentId: { env: 'INACTIVE_AGENT_ID', purpose: 'optional: an agent of LOCATION_ID that is not active', targetId: true },
  foreignLocationId: { env: 'FOREIGN_LOCATION_ID', purpose: 'optional: a location AGENT_ID does not belong to', targetId: true },
  nonEmailConversationId: { env: 'NON_EMAIL_CONVERSATION_ID', purpose: 'optional: a conversation of LOCATION_ID on a channel other than email, for the rules of the secure flag and the dated change on it', targetId: true },
  foreignAgentId: { env: 'FOREIGN_AGENT_ID', purpose: 'optional: an active agent of FOREIGN_LOCATION_ID, which every token of LOCATION_ID the run holds or obtains must fail to run', targetId: true },
  foreignConversationId: { env: 'FOREIGN_CONVERSATION_ID', purpose: 'optional: an email conversation of FOREIGN_LOCATION_ID, which no token of LOCATION_ID the run holds or obtains may upload into', targetId: true },
  foreignContactId: { env: 'FOREIGN_CONTACT_ID', purpose: 'optional: a contact of FOREIGN_LOCATION_ID, uploaded to in its place where FOREIGN_CONVERSATION_ID is not set', targetId: true },
  workflowId: { env: 'WORKFLOW_ID', purpose: 'optional: a workflow of LOCATION_ID, for the optional upload field workflowId', targetId: true },
  campaignId: { env: 'CAMPAIGN_ID', purpose: 'optional: a campaign of LOCATION_ID, for the optional upload field campaignId', targetId: true },
  access: { env: 'ACCESS_TOKEN', purpose: 'OAuth Sub-Account token that may upload and execute, without files.readonly', requiredForTarget: true, secret: true, bearer: true },
  pit: { env: 'PIT_TOKEN', purpose: 'optional: a private integration token', secret: true, bearer: true },
  filesReadonly: { env: 'FILES_READONLY_TOKEN', purpose: 'a token holding files.readonly', requiredForTarget: true, secret: true, bearer: true },
  noFilesScope: { env: 'NO_FILES_SCOPE_TOKEN', purpose: 'a valid token lacking files.readonly', requiredForTarget: true, secret: true, bearer: true },
  foreignAccess: { env: 'FOREIGN_ACCESS_TOKEN', purpose: 'optional: a token of FOREIGN_LOCATION_ID holding the scopes to upload, execute and read files', secret: true, bearer: true },
  oauthClientId: { env: 'OAUTH_CLIENT_ID', purpose: "optional: the OAuth app's client_id, for the refresh-token exchange", targetId: true },
  oauthClientSecret: { env: 'OAUTH_CLIENT_SECRET', purpose: "optional: the OAuth app's client_secret", secret: true },
  oauthRefreshToken: { env: 'OAUTH_REFRESH_TOKEN', purpose: 'optional: a refresh token of OAUTH_CLIENT_ID for LOCATION_ID; a server that rotates refresh tokens spends it', secret: true },
  agencyAccess: { env: 'AGENCY_ACCESS_TOKEN', purpose: "optional: an OAuth Agency token of COMPANY_ID, LOCATION_ID's company", secret: true, bearer: true },
  companyId: { env: 'COMPANY_ID', purpose: 'optional: the Agency (company) LOCATION_ID belongs to', targetId: true },
  locationTokenBody: { env: 'LOCATION_TOKEN_BODY', purpose: 'payload of POST /oauth/location-token, {companyId} and {locationId} filled in; a body starting with { is sent as JSON, any other form-encoded', default: 'companyId={companyId}&locationId={locationId}' },
  testClockUrl: { env: 'TEST_CLOCK_URL', purpose: "optional: the simulator's clock endpoint; absent on a real staging server" },
  reference: { env: 'REFERENCE_SERVER', purpose: '1 starts a reference server per worker (test clock on) and points the suite at it', default: '0' },
  style: { env: 'REFERENCE_STYLE', purpose: 'with REFERENCE_SERVER=1: default, alt or gateway, any followed by +dimension=value: the choices the reference makes where the contract is silent (README)', default: 'default' },
  fault: { env: 'FAULT', purpose: 'with REFERENCE_SERVER=1: the reference fault to switch on (reference/faults.ts)' },
  seed: { env: 'SEED', purpose: 'with REFERENCE_SERVER=1: the seed of ids, slugs and signatures', default: '1' },
  seedFile: { env: 'SEED_FILE', purpose: 'with REFERENCE_SERVER=1: the reference world, its tokens among it (default reference/seed.json)' },
  referenceClockStart: { env: 'REFERENCE_CLOCK_START', purpose: "with REFERENCE_SERVER=1: the instant its test clock starts at (ISO-8601); default: this machine's now" },
  generatorSeed: { env: 'GENERATOR_SEED', purpose: 'the seed of the requests drawn beyond the pairwise cover of each rule\'s domain, printed at the start of a run; default 1 in replay and record (the fixtures are made at it), else from the checked-out commit' },
  depth: { env: 'SUITE_DEPTH', purpose: "quick (one walk of the model per rule's row, a few drawn sequences) or deep (sequences drawn until DEEP_BUDGET_MINUTES are spent, for nightly runs)", default: 'quick' },
  deepBudgetMinutes: { env: 'DEEP_BUDGET_MINUTES', purpose: "with SUITE_DEPTH=deep: the minutes the model's sequences may take, all rows together (25: a nightly run within 30 minutes, the rest of the suite included)", default: '25' },
  shrinkSeconds: { env: 'SHRINK_SECONDS', purpose: "how long a failure of the model's sequences is shrunk, at most, before the shortest sequence found is reported; 0 reports every failure (a sequence's, or a domain's request's) as first found, unshrunk: what a run that proves only verdicts needs", default: '90' },
  fixturesDir: { env: 'FIXTURES_DIR', purpose: 'where recordings are written (record) and read (replay)', default: 'fixtures' },
  replacementPath: { env: 'REPLACEMENT_EXECUTE_PATH', purpose: 'path of the replacement execute operation', default: REPLACEMENT_EXECUTE_PATH },
  slow: { env: 'SUITE_SLOW', purpose: '1 adds the slow project, which really waits out the one-hour window (targets without a test clock)', default: '0' },
  stateDir: { env: 'STATE_DIR', purpose: 'where a live run against a target without a test clock leaves the uploads of its clock rules, for a later run to judge once they have aged, and the digests of the refresh tokens a live run spent', default: '.conformance-state' },
  reportsDir: { env: 'REPORTS_DIR', purpose: 'where reports and test results are written', default: 'reports' },
  contractUrl: { env: 'CONTRACT_URL', purpose: "optional: the contract's address the reports link to, each rule at its section; Allure links only http(s) addresses (default: the contract's page in REPORTS_DIR, a file:// URL)" },
  rateLimit: { env: 'RATE_LIMIT', purpose: 'requests per 10 s sent to a live target (its test clock aside), all shards and workers together (the platform allows 100 per app and location), and as many GETs with no credential: a ceiling, the pace falls when the server throttles', default: '50' },
  maxRetries: { env: 'MAX_RETRIES', purpose: 'retries of a throttled answer (429, or 503 with Retry-After; after its wait, at most 60 s) or of a network fault (reset, timeout, 502/503/504; a POST only when no byte of an answer came back)', default: '3' },
  productionHosts: { env: 'PRODUCTION_HOSTS', purpose: 'comma-separated hosts the suite refuses to target unless ALLOW_PRODUCTION=1', default: 'services.leadconnectorhq.com' },
  allowProduction: { env: 'ALLOW_PRODUCTION', purpose: '1 lets the suite run against a host of PRODUCTION_HOSTS', default: '0' },
  requestTimeoutMs: { env: 'REQUEST_TIMEOUT_MS', purpose: 'timeout of every request, in milliseconds', default: '30000' },
  skipPreflight: { env: 'SKIP_PREFLIGHT', purpose: '1 skips the preflight (npm run doctor) that a live run of npm run conformance starts with', default: '0' },
  ci: { env: 'CI', purpose: 'set by CI systems: the console shows a dot per test instead of a line' },
  githubStepSummary: { env: 'GITHUB_STEP_SUMMARY', purpose: "set by GitHub Actions: the file the conformance matrix is appended to, as Markdown, for the job's summary" },
  explicit: { env: 'SUITE_CONFIG', purpose: 'a whole configuration as JSON (npm run mutation writes one); when set, nothing else is read' },
} as const satisfies Record<string, Setting>;

type Key = keyof typeof SETTINGS;
type Flag = 'secret' | 'bearer' | 'targetId';
type KeysMarked<F extends Flag> = { [K in Key]: (typeof SETTINGS)[K] extends Record<F, true> ? K : never }[Key];
/** A value the target must have is a string; an optional one may be absent. */
type ValueOf<K extends Key> = (typeof SETTINGS)[K] extends { requiredForTarget: true } ? string : string | undefined;

/** The secrets of a target by setting key: its bearer tokens, client secret and refresh token. */
export type Secret = KeysMarked<'secret'>;
/** The bearer tokens among them (`access`, `filesReadonly`, …): what a request may authenticate with. */
export type Credential = KeysMarked<'bearer'>;
export type TargetId = KeysMarked<'targetId'>;

const keysMarked = <F extends Flag>(flag: F) => (Object.keys(SETTINGS) as Key[]).filter((key) => (SETTINGS[key] as Setting)[flag]) as KeysMarked<F>[];
export const SECRETS: readonly Secret[] = keysMarked('secret');
export const TARGET_IDS: readonly TargetId[] = keysMarked('targetId');

/** The target's world: its identifiers and secrets, wherever it listens. */
export type TargetWorld = { readonly [K in TargetId]: ValueOf<K> } & { readonly tokens: { readonly [K in Secret]: ValueOf<K> } };

/** The values that name the target's resources and credentials, and where it listens. */
export type Target = TargetWorld & {
  readonly baseUrl: string;
  readonly testClockUrl?: string;
  /** Put back in its starting state before each test (the reference server, and replays of its recordings): a rotated refresh token does not carry over. */
  readonly freshEachTest?: boolean;
};

export interface ReferenceSettings {
  readonly style: string;
  readonly fault?: string;
  readonly seed: string;
  /** Epoch ms its test clock starts at; this machine's now when absent. */
  readonly clockStart?: number;
  readonly seedFile?: string;
}

export interface SuiteConfig {
  readonly mode: Mode;
  readonly apiVersion: string;
  readonly replacementPath: string;
  /** The payload template of POST /oauth/location-token (LOCATION_TOKEN_BODY). */
  readonly locationTokenBody: string;
  readonly requestTimeoutMs: number;
  /** Requests per 10 s to a given live target, shared by all workers; none to the in-process reference server or in replay. */
  readonly rateLimit: number;
  readonly maxRetries: number;
  readonly fixturesDir: string;
  readonly reportsDir: string;
  /** The address of the contract the reports link to, without a fragment (src/report/contract-page.ts). */
  readonly contractUrl: string;
  /** Adds the slow project, which really waits out the one-hour window. */
  readonly slow: boolean;
  /** Skips the preflight of a live target before the run (SKIP_PREFLIGHT). */
  readonly skipPreflight: boolean;
  /** Where uploads wait for a later run, against a live target without a test clock (src/time/aged-state.ts). */
  readonly stateDir: string;
  /** The seed of the requests drawn beyond each rule's pairwise cover, and where it comes from. */
  readonly generator: { readonly seed: number; readonly from: string };
  /** How long the model draws: a quick run, or a deep one of so many milliseconds (SUITE_DEPTH, DEEP_BUDGET_MINUTES). */
  readonly depth: { readonly deep: false } | { readonly deep: true; readonly budgetMs: number };
  /** How long a failure is shrunk, at most (SHRINK_SECONDS); 0: not at all. */
  readonly shrinkMs: number;
  readonly ci: boolean;
  /** The GitHub Actions job summary the matrix is appended to. */
  readonly githubStepSummary?: string;
  /** The target given by the environment (live, record) or the recorded one (replay); absent for the reference server. */
  readonly target?: Target;
  /** Replay with a BASE_URL set: the address this run does not judge (replayNotice). */
  readonly notJudged?: string;
  /** Set when the suite starts its own reference server per worker. */
  readonly reference?: ReferenceSettings;
  /** npm run mutation: a project per baseline and sampled style, and projects of faults of reference/faults.ts, with only some rules' tests or all. */
  readonly mutation?: { readonly projects: readonly MutationProject[] };
}

export interface MutationProject {
  readonly name: string;
  /** The reference style of its servers; `default` when absent. */
  readonly style?: string;
  /** The fault of its servers; none for a baseline. */
  readonly fault?: string;
  /** Run only the tests of these rules. */
  readonly rules?: readonly RuleId[];
  /** Several faults in one project, at most one per rule: each rule's tests run against its trial's fault. */
  readonly trials?: readonly MutationTrial[];
}

/** One fault tried on the tests of the rule it breaks; its name names its report. */
export interface MutationTrial {
  readonly name: string;
  readonly fault: string;
  readonly rule: RuleId;
}

/** In a project of several faults, the trial that serves this rule's tests. */
export const trialOf = (trials: readonly MutationTrial[] | undefined, rule: string | undefined) => trials?.find((trial) => trial.rule === rule);

// The recorded target (fixtures/target.json): written by a recording (src/client/recording.ts), read here for replay.
export const BASE_PLACEHOLDER = '{base_url}';
/** Replay talks to this origin; nock answers for it, nothing resolves it. */
export const REPLAY_BASE_URL = 'http://recorded-target.invalid';
export const RECORD_COMMAND = 'npm run record (the reference server), or SUITE_MODE=record npm run conformance (your target)';

/** What replay needs of the recorded target, in `fixtures/target.json`: ids and which tokens existed, never their values. */
export interface RecordedTarget {
  source: string;
  apiVersion: string;
  replacementPath: string;
  /** LOCATION_TOKEN_BODY; absent from recordings made before it existed. */
  locationTokenBody?: string;
  target: { [K in TargetId]: Target[K] } & { testClockUrl?: string; freshEachTest?: boolean; tokens: string[] };
}

export const targetFile = (fixturesDir: string) => join(fixturesDir, 'target.json');

export function readRecordedTarget(fixturesDir: string): RecordedTarget {
  const file = targetFile(fixturesDir);
  if (!existsSync(file)) throw new Error(`SUITE_MODE=replay needs recorded fixtures, and ${file} does not exist; record them with ${RECORD_COMMAND}`);
  return JSON.parse(readFileSync(file, 'utf8')) as RecordedTarget;
}

/** Every problem of a configuration at once, each naming its variable and the fix. */
export class ConfigError extends Error {
  declare readonly problems: readonly string[];

  constructor(problems: readonly string[]) {
    super(`The suite's configuration has ${problems.length === 1 ? 'a problem' : `${problems.length} problems`}; fix each in the environment or .env (.env.example lists every setting):\n  - ${problems.join('\n  - ')}`);
    // Whoever prints it (Node, Playwright, a script) shows these lines alone: no stack trace, no dump of the fields.
    Object.defineProperty(this, 'problems', { value: problems, enumerable: false });
    this.stack = this.message;
  }
}

/** Every setting's variable: a name of `.env` outside them takes no part. */
const SETTING_NAMES: readonly string[] = Object.values(SETTINGS).map((setting) => setting.env);

/** What the configuration is read from: the variables, and the names of `.env` that are no setting (they take no part). */
export interface Environment {
  readonly values: Record<string, string>;
  readonly strays: readonly string[];
}

/**
 * The environment the configuration is read from: the process environment over `.env` (dotenv).
 * Blank values count as unset, in both: an empty variable (CI passes unset secrets as '') lets `.env` fill it, and
 * an empty line of `.env` (each of .env.example's) leaves the default. A name of `.env` that is no setting is kept
 * aside, so that a mistyped one is named rather than silently ignored.
 */
export function readEnvironment(env: NodeJS.ProcessEnv = process.env, dotenvPath: string | false = '.env'): Environment {
  const set = (vars: NodeJS.ProcessEnv) => Object.fromEntries(Object.entries(vars).filter((entry): entry is [string, string] => entry[1] !== undefined && entry[1].trim() !== ''));
  const merged = set(env);
  const fromFile: NodeJS.ProcessEnv = {};
  if (dotenvPath !== false) loadDotenv({ path: dotenvPath, processEnv: fromFile, quiet: true });
  const strays = Object.keys(fromFile).filter((name) => !SETTING_NAMES.includes(name));
  for (const [name, value] of Object.entries(fromFile)) if (!strays.includes(name) && merged[name] === undefined) merged[name] = value as string;
  return { values: set(merged), strays };
}

/** The setting a mistyped name most likely meant: the fewest single-character edits away (Levenshtein). */
export function closestSetting(name: string): string {
  const distance = (a: string, b: string) => {
    let row = Array.from({ length: b.length + 1 }, (_, j) => j);
    for (let i = 1; i <= a.length; i++) {
      const next = [i];
      for (let j = 1; j <= b.length; j++) next[j] = Math.min(row[j] + 1, next[j - 1] + 1, row[j - 1] + (a[i - 1] === b[j - 1] ? 0 : 1));
      row = next;
    }
    return row[b.length];
  };
  const upper = name.toUpperCase();
  return SETTING_NAMES.reduce((best, known) => (distance(upper, known) < distance(upper, best) ? known : best));
}

/** A name of `.env` that is no setting, as a problem: it takes no part, so a typo would silently leave a setting unset. */
const strayProblem = (name: string) => `${name} (in .env) is not a setting of the suite and takes no part: did you mean ${closestSetting(name)}? Rename it, or remove it`;

/** SUITE_DEPTH and DEEP_BUDGET_MINUTES. */
function depthOf(depth: string, minutes: string, problems: string[]): SuiteConfig['depth'] {
  if (depth !== 'quick' && depth !== 'deep') problems.push(`SUITE_DEPTH=${depth} is neither quick nor deep: ${SETTINGS.depth.purpose}`);
  const budget = Number(minutes);
  if (!(budget > 0)) problems.push(`DEEP_BUDGET_MINUTES=${minutes} is not a positive number of minutes`);
  return depth === 'deep' ? { deep: true, budgetMs: budget * 60_000 } : { deep: false };
}

/** SHRINK_SECONDS, in milliseconds. */
function shrinkOf(seconds: string, problems: string[]): number {
  const value = Number(seconds);
  if (!(value >= 0)) problems.push(`SHRINK_SECONDS=${seconds} is not a number of seconds (0 or more): ${SETTINGS.shrinkSeconds.purpose}`);
  return value * 1000;
}

/** GENERATOR_SEED; else 1 in replay and record, whose fixtures are made at it; else the checked-out commit's, so each commit draws anew. */
function generatorSeed(value: string | undefined, mode: Mode, problems: string[]): SuiteConfig['generator'] {
  if (value !== undefined) {
    if (/^\d{1,9}$/.test(value)) return { seed: Number(value), from: 'GENERATOR_SEED' };
    problems.push(`GENERATOR_SEED=${value} is not a whole number of at most 9 digits: ${SETTINGS.generatorSeed.purpose}`);
  }
  if (mode !== 'live') return { seed: 1, from: `the fixed seed of ${mode}` };
  try {
    const head = execFileSync('git', ['rev-parse', 'HEAD'], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }).trim();
    return { seed: Number.parseInt(head.slice(0, 7), 16), from: `commit ${head.slice(0, 7)}` };
  } catch {
    return { seed: 1, from: 'no commit to derive it from: set GENERATOR_SEED to vary it' };
  }
}

/** One setting's value in an environment read by readEnvironment: its default when unset. */
export function settingOf(merged: Record<string, string>, key: Key): string | undefined {
  const value = merged[SETTINGS[key].env]?.trim();
  return value === undefined || value === '' ? (SETTINGS[key] as Setting).default : value;
}

let resolved: SuiteConfig | undefined;

/** This process's configuration, resolved on first use: playwright.config.ts, the setup, the reporter and each worker read this. */
export function suiteConfig(): SuiteConfig {
  if (resolved === undefined) {
    const { values, strays } = readEnvironment();
    resolved = loadConfig(values, strays);
  }
  return resolved;
}

/**
 * suiteConfig() at a command's entry point (playwright.config.ts, a script): a configuration error ends the process
 * with its lines alone, since Node would print it with a stack trace or in brackets.
 */
export function commandConfig(): SuiteConfig {
  try {
    return suiteConfig();
  } catch (error) {
    if (!(error instanceof ConfigError)) throw error;
    process.stderr.write(`${error.message}\n`);
    process.exit(1);
  }
}

/**
 * Validates and resolves the configuration; every problem is reported at once, each naming its variable and purpose.
 * `strays`: the names of `.env` that are no setting (readEnvironment).
 */
export function loadConfig(merged: Record<string, string>, strays: readonly string[] = []): SuiteConfig {
  const explicit = merged[SETTINGS.explicit.env];
  if (explicit !== undefined) return deepFreeze(JSON.parse(explicit) as SuiteConfig);
  const raw = (key: Key) => settingOf(merged, key);
  const problems: string[] = strays.map(strayProblem);

  const mode = raw('mode') as Mode;
  if (!['replay', 'live', 'record'].includes(mode)) problems.push(`SUITE_MODE=${mode} is not one of replay, live, record`);
  const timeout = Number(raw('requestTimeoutMs'));
  if (!Number.isInteger(timeout) || timeout <= 0) problems.push(`REQUEST_TIMEOUT_MS=${raw('requestTimeoutMs')} is not a positive whole number of milliseconds`);
  const wholeNumber = (key: 'rateLimit' | 'maxRetries', min: number) => {
    const value = Number(raw(key));
    if (!Number.isInteger(value) || value < min) problems.push(`${SETTINGS[key].env}=${raw(key)} is not a whole number of at least ${min}`);
    return value;
  };
  const rateLimit = wholeNumber('rateLimit', 1);
  const maxRetries = wholeNumber('maxRetries', 0);
  const replacementPath = raw('replacementPath') as string;
  if (!replacementPath.startsWith('/') || !replacementPath.includes('{agentId}')) {
    problems.push(`REPLACEMENT_EXECUTE_PATH=${replacementPath} must start with / and hold {agentId}`);
  }
  const contractUrl = raw('contractUrl');
  if (contractUrl !== undefined && (!URL.canParse(contractUrl) || contractUrl.includes('#'))) {
    problems.push(`CONTRACT_URL=${contractUrl} is not an absolute address without a fragment (each link adds its section's)`);
  }
  const locationTokenBody = raw('locationTokenBody') as string;
  if (!locationTokenBody.includes('{locationId}')) problems.push(`LOCATION_TOKEN_BODY=${locationTokenBody} must hold {locationId}`);
  if (locationTokenBody.trim().startsWith('{') && !isJson(locationTokenBody.replace(/\{(companyId|locationId)\}/g, 'id'))) {
    problems.push(`LOCATION_TOKEN_BODY=${locationTokenBody} starts with { but is not JSON`);
  }

  let config: SuiteConfig = {
    mode,
    apiVersion: raw('apiVersion') as string,
    replacementPath,
    locationTokenBody,
    requestTimeoutMs: timeout,
    rateLimit,
    maxRetries,
    fixturesDir: raw('fixturesDir') as string,
    reportsDir: raw('reportsDir') as string,
    contractUrl: contractUrl ?? pathToFileURL(resolve(raw('reportsDir') as string, CONTRACT_PAGE)).href,
    slow: raw('slow') === '1',
    skipPreflight: raw('skipPreflight') === '1',
    stateDir: raw('stateDir') as string,
    generator: generatorSeed(raw('generatorSeed'), mode, problems),
    depth: depthOf(raw('depth') as string, raw('deepBudgetMinutes') as string, problems),
    shrinkMs: shrinkOf(raw('shrinkSeconds') as string, problems),
    ci: raw('ci') !== undefined,
    githubStepSummary: raw('githubStepSummary'),
  };
  if (mode === 'replay') {
    // Replay sends what the recording was made with: its API version, replacement path and target.
    try {
      const recorded = readRecordedTarget(config.fixturesDir);
      const tokens = Object.fromEntries(SECRETS.map((key) => [key, recorded.target.tokens.includes(SETTINGS[key].env) ? `<${SETTINGS[key].env}>` : undefined]));
      const { testClockUrl, freshEachTest } = recorded.target;
      const target = { ...pickIds(recorded.target), tokens, baseUrl: REPLAY_BASE_URL, testClockUrl: testClockUrl?.replace(BASE_PLACEHOLDER, REPLAY_BASE_URL), freshEachTest };
      const { apiVersion, replacementPath, locationTokenBody = config.locationTokenBody } = recorded;
      config = { ...config, apiVersion, replacementPath, locationTokenBody, target: target as Target, ...(raw('baseUrl') === undefined ? {} : { notJudged: raw('baseUrl') }) };
    } catch (error) {
      problems.push((error as Error).message);
    }
  } else if (raw('reference') === '1') {
    const start = raw('referenceClockStart');
    if (start !== undefined && Number.isNaN(Date.parse(start))) problems.push(`REFERENCE_CLOCK_START=${start} is not an ISO-8601 instant`);
    // The style's name and the seed file are the reference's own to check (src/reference-server.ts, in the setup).
    const seedFile = raw('seedFile');
    config = { ...config, reference: { style: raw('style') as string, fault: raw('fault'), seed: raw('seed') as string, clockStart: start === undefined ? undefined : Date.parse(start), seedFile } };
  } else {
    const missing = (Object.keys(SETTINGS) as Key[]).filter((key) => (SETTINGS[key] as Setting).requiredForTarget && raw(key) === undefined);
    problems.push(...missing.map((key) => `${SETTINGS[key].env} is missing: ${SETTINGS[key].purpose}`));
    const baseUrl = raw('baseUrl');
    if (baseUrl !== undefined && !/^https?:\/\/[^/]+/.test(baseUrl)) problems.push(`BASE_URL=${baseUrl} is not an http(s) address: write it whole, with its scheme (https://${baseUrl.replace(/^[a-z]+:\/*/i, '')})`);
    const production = (raw('productionHosts') ?? '').split(',').map((host) => host.trim().toLowerCase()).filter(Boolean);
    const host = baseUrl !== undefined && URL.canParse(baseUrl) ? new URL(baseUrl).hostname.toLowerCase() : undefined;
    if (host !== undefined && production.includes(host) && raw('allowProduction') !== '1') {
      problems.push(`BASE_URL=${baseUrl} is a production host (PRODUCTION_HOSTS); the suite uploads files and runs agents there. Set ALLOW_PRODUCTION=1 if that is really meant`);
    }
    const ids = Object.fromEntries(TARGET_IDS.map((key) => [key, raw(key)]));
    const tokens = Object.fromEntries(SECRETS.map((key) => [key, raw(key)]));
    const target = { ...ids, tokens, baseUrl: (baseUrl ?? '').replace(/\/+$/, ''), testClockUrl: raw('testClockUrl') };
    config = { ...config, target: target as Target };
  }
  if (problems.length > 0) {
    throw new ConfigError(problems);
  }
  return deepFreeze(config);
}

/** The configuration of `npm run mutation`: the reference server with its defaults, whatever the environment or .env say. */
export function mutationConfig(reportsDir: string, projects: readonly MutationProject[]): SuiteConfig {
  // A fault is killed or not by its verdict: a failure is not shrunk.
  return { ...loadConfig({ [SETTINGS.mode.env]: 'live', [SETTINGS.reference.env]: '1', [SETTINGS.reportsDir.env]: reportsDir, [SETTINGS.shrinkSeconds.env]: '0' }), mutation: { projects } };
}

/** The world at an address; a reference server always serves its test clock at `testClockPath`. */
export const atAddress = (world: TargetWorld, address: string, testClockPath?: string): Target => ({
  ...world,
  baseUrl: address,
  testClockUrl: testClockPath === undefined ? undefined : `${address}${testClockPath}`,
});

/** The variables that point the suite at a target, in the order of the settings: what `npm run serve` prints. */
export function environmentOf(target: Target): [string, string][] {
  const values: Partial<Record<Key, string | undefined>> = { mode: 'live', baseUrl: target.baseUrl, apiVersion: API_VERSION, testClockUrl: target.testClockUrl };
  for (const key of TARGET_IDS) values[key] = target[key];
  for (const key of SECRETS) values[key] = target.tokens[key];
  return (Object.keys(SETTINGS) as Key[]).flatMap((key) => (values[key] === undefined ? [] : [[SETTINGS[key].env, values[key]] as [string, string]]));
}

export const pickIds = (from: { readonly [K in TargetId]: ValueOf<K> }) =>
  Object.fromEntries(TARGET_IDS.map((key) => [key, from[key]])) as { [K in TargetId]: ValueOf<K> };

/** The secrets of a target by their variable names, e.g. `{ACCESS_TOKEN: '…'}`: recordings name a token so. */
export function secretsByName(target: TargetWorld): Record<string, string> {
  const entries = SECRETS.map((key): [string, string | undefined] => [SETTINGS[key].env, target.tokens[key]]);
  return Object.fromEntries(entries.filter((entry): entry is [string, string] => entry[1] !== undefined));
}

/** Every secret of a target, for redaction. */
export function secretsOf(target: TargetWorld): string[] {
  return Object.values(secretsByName(target));
}

/**
 * The environment of a child process the suite starts (a run, a server): this one's less every setting of the suite
 * and the names in `also`, plus `extra`, so that nothing of a developer's shell or .env takes part.
 */
export function childEnvironment(extra: Record<string, string>, also: readonly string[] = []): NodeJS.ProcessEnv {
  const env = { ...process.env };
  for (const name of [...Object.values(SETTINGS).map((setting) => setting.env), ...also]) delete env[name];
  return { ...env, ...extra };
}

/**
 * Replay with a BASE_URL in its environment: the run's first line (global setup) and last (the reporter) say that
 * it judged the recordings, not that address, so that a mode left at its default (or mistyped) never passes for a
 * verdict on the server.
 */
export function replayNotice(config: SuiteConfig): string | undefined {
  if (config.notJudged === undefined) return undefined;
  return `Not judged: BASE_URL=${config.notJudged}. SUITE_MODE is replay, so this run judged the recordings in ${config.fixturesDir}/, not that server; set SUITE_MODE=live to judge it`;
}

/** The target in words, without credentials: its origin, the reference server (with the project's fault), or the recordings. */
export function describeTarget(config: SuiteConfig, fault = config.reference?.fault, style = config.reference?.style): string {
  if (config.mode === 'replay') return `recorded fixtures (${config.fixturesDir}/)`;
  if (config.target) return new URL(config.target.baseUrl).origin;
  return `reference server per worker (style ${style}, seed ${config.reference?.seed}, fault ${fault ?? 'none'})`;
}

function isJson(text: string): boolean {
  try {
    JSON.parse(text);
    return true;
  } catch {
    return false;
  }
}

function deepFreeze<T>(value: T): T {
  if (value !== null && typeof value === 'object' && !Object.isFrozen(value)) {
    for (const inner of Object.values(value)) deepFreeze(inner);
    Object.freeze(value);
  }
  return value;
}
