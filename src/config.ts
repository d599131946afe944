// The suite's one configuration object: read once (environment, then .env), validated, passed down
// as a fixture. Spec files never read process.env.
import { config as loadDotenv } from 'dotenv';
import { API_VERSION, REPLACEMENT_EXECUTE_PATH } from './contract.ts';

export type Mode = 'replay' | 'live' | 'record';

interface Setting {
  /** The environment variable. */
  env: string;
  /** One line: what it is for. */
  purpose: string;
  default?: string;
  /** Required when the suite talks to a target it did not start itself. */
  requiredForTarget?: boolean;
  /** A credential: never printed, redacted wherever it could appear. */
  secret?: boolean;
}

export const SETTINGS = {
  mode: { env: 'SUITE_MODE', purpose: 'replay (recorded fixtures, no network), live, or record', default: 'replay' },
  reference: { env: 'REFERENCE_SERVER', purpose: '1 starts a reference server per worker (test clock on) and points the suite at it', default: '0' },
  fault: { env: 'FAULT', purpose: 'with REFERENCE_SERVER=1: the reference fault to switch on (reference/faults.ts)' },
  seed: { env: 'SEED', purpose: 'with REFERENCE_SERVER=1: the seed of ids, slugs and signatures', default: '1' },
  seedFile: { env: 'SEED_FILE', purpose: 'with REFERENCE_SERVER=1: the reference world, its tokens among it (default reference/seed.json)' },
  referenceClockStart: { env: 'REFERENCE_CLOCK_START', purpose: "with REFERENCE_SERVER=1: the instant its test clock starts at (ISO-8601); default: this machine's now" },
  fixturesDir: { env: 'FIXTURES_DIR', purpose: 'where recordings are written (record) and read (replay)', default: 'fixtures' },
  baseUrl: { env: 'BASE_URL', purpose: 'base address of the API', requiredForTarget: true },
  apiVersion: { env: 'API_VERSION', purpose: 'value of the Version header', default: API_VERSION },
  locationId: { env: 'LOCATION_ID', purpose: 'the sub-account used for uploads and executions', requiredForTarget: true },
  conversationId: { env: 'CONVERSATION_ID', purpose: 'an email-channel conversation in LOCATION_ID', requiredForTarget: true },
  contactId: { env: 'CONTACT_ID', purpose: 'a contact in LOCATION_ID', requiredForTarget: true },
  agentId: { env: 'AGENT_ID', purpose: 'an active agent of LOCATION_ID', requiredForTarget: true },
  inactiveAgentId: { env: 'INACTIVE_AGENT_ID', purpose: 'optional: an agent of LOCATION_ID that is not active' },
  foreignLocationId: { env: 'FOREIGN_LOCATION_ID', purpose: 'optional: a location AGENT_ID does not belong to' },
  accessToken: { env: 'ACCESS_TOKEN', purpose: 'OAuth Sub-Account token that may upload and execute, without files.readonly', requiredForTarget: true, secret: true },
  pitToken: { env: 'PIT_TOKEN', purpose: 'optional: a private integration token', secret: true },
  filesReadonlyToken: { env: 'FILES_READONLY_TOKEN', purpose: 'a token holding files.readonly', requiredForTarget: true, secret: true },
  noFilesScopeToken: { env: 'NO_FILES_SCOPE_TOKEN', purpose: 'a valid token lacking files.readonly', requiredForTarget: true, secret: true },
  testClockUrl: { env: 'TEST_CLOCK_URL', purpose: "optional: the simulator's clock endpoint; absent on a real staging server" },
  replacementPath: { env: 'REPLACEMENT_EXECUTE_PATH', purpose: 'path of the replacement execute operation', default: REPLACEMENT_EXECUTE_PATH },
  slow: { env: 'SUITE_SLOW', purpose: '1 adds the slow project, which really waits out the one-hour window (targets without a test clock)', default: '0' },
  reportsDir: { env: 'REPORTS_DIR', purpose: 'where reports and test results are written', default: 'reports' },
  rateLimit: { env: 'RATE_LIMIT', purpose: 'requests per 10 s sent to a live target, all workers together (the platform allows 100)', default: '50' },
  maxRetries: { env: 'MAX_RETRIES', purpose: 'retries of a 429 or 503 answer, each after its Retry-After (at most 60 s)', default: '3' },
  productionHosts: { env: 'PRODUCTION_HOSTS', purpose: 'comma-separated hosts the suite refuses to target unless ALLOW_PRODUCTION=1', default: 'services.leadconnectorhq.com' },
  allowProduction: { env: 'ALLOW_PRODUCTION', purpose: '1 lets the suite run against a host of PRODUCTION_HOSTS', default: '0' },
  requestTimeoutMs: { env: 'REQUEST_TIMEOUT_MS', purpose: 'timeout of every request, in milliseconds', default: '30000' },
} as const satisfies Record<string, Setting>;

type Key = keyof typeof SETTINGS;

/** The target's identifiers: not secret, so recordings keep them. */
export const TARGET_IDS = ['locationId', 'conversationId', 'contactId', 'agentId', 'inactiveAgentId', 'foreignLocationId'] as const;

/** The values that name the target's resources and credentials. */
export interface Target {
  baseUrl: string;
  locationId: string;
  conversationId: string;
  contactId: string;
  agentId: string;
  inactiveAgentId?: string;
  foreignLocationId?: string;
  accessToken: string;
  pitToken?: string;
  filesReadonlyToken: string;
  noFilesScopeToken: string;
  testClockUrl?: string;
}

export interface SuiteConfig {
  mode: Mode;
  apiVersion: string;
  replacementPath: string;
  requestTimeoutMs: number;
  /** Requests per 10 s to a live target, shared by all workers; none to the in-process reference server or in replay. */
  rateLimit: number;
  maxRetries: number;
  fixturesDir: string;
  reportsDir: string;
  /** Adds the slow project, which really waits out the one-hour window. */
  slow: boolean;
  /** Set when the suite starts its own reference server; the target then comes from it. */
  reference?: { fault?: string; seed: string; clockStart?: number; seedFile?: string };
  /** Set when the suite talks to a target given by the environment. */
  target?: Target;
}

export class ConfigError extends Error {}

/**
 * The environment the configuration is read from: the process environment over `.env` (dotenv).
 * Blank values count as unset, so an empty variable (CI passes unset secrets as '') lets `.env` fill it.
 */
export function readEnvironment(env: NodeJS.ProcessEnv = process.env, dotenvPath: string | false = '.env'): Record<string, string> {
  const merged = Object.fromEntries(
    Object.entries(env).filter((entry): entry is [string, string] => entry[1] !== undefined && entry[1].trim() !== ''),
  );
  if (dotenvPath !== false) loadDotenv({ path: dotenvPath, processEnv: merged, quiet: true });
  return merged;
}

/** Validates the configuration; every problem is reported at once, each naming its variable and purpose. */
export function loadConfig(merged: Record<string, string> = readEnvironment()): SuiteConfig {
  const raw = (key: Key): string | undefined => {
    const value = merged[SETTINGS[key].env]?.trim();
    return value === undefined || value === '' ? (SETTINGS[key] as Setting).default : value;
  };
  const problems: string[] = [];

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

  const config: SuiteConfig = {
    mode,
    apiVersion: raw('apiVersion') as string,
    replacementPath,
    requestTimeoutMs: timeout,
    rateLimit,
    maxRetries,
    fixturesDir: raw('fixturesDir') as string,
    reportsDir: raw('reportsDir') as string,
    slow: raw('slow') === '1',
  };
  if (raw('reference') === '1') {
    const start = raw('referenceClockStart');
    if (start !== undefined && Number.isNaN(Date.parse(start))) problems.push(`REFERENCE_CLOCK_START=${start} is not an ISO-8601 instant`);
    config.reference = { fault: raw('fault'), seed: raw('seed') as string, clockStart: start === undefined ? undefined : Date.parse(start), seedFile: raw('seedFile') };
  } else if (mode !== 'replay') {
    const missing = (Object.keys(SETTINGS) as Key[]).filter((key) => (SETTINGS[key] as Setting).requiredForTarget && raw(key) === undefined);
    problems.push(...missing.map((key) => `${SETTINGS[key].env} is missing: ${SETTINGS[key].purpose}`));
    const baseUrl = raw('baseUrl');
    if (baseUrl !== undefined && !/^https?:\/\/[^/]+/.test(baseUrl)) problems.push(`BASE_URL=${baseUrl} is not an http(s) address`);
    const production = (raw('productionHosts') ?? '').split(',').map((host) => host.trim().toLowerCase()).filter(Boolean);
    const host = baseUrl !== undefined && URL.canParse(baseUrl) ? new URL(baseUrl).hostname.toLowerCase() : undefined;
    if (host !== undefined && production.includes(host) && raw('allowProduction') !== '1') {
      problems.push(`BASE_URL=${baseUrl} is a production host (PRODUCTION_HOSTS); the suite uploads files and runs agents there. Set ALLOW_PRODUCTION=1 if that is really meant`);
    }
    if (problems.length === 0) {
      config.target = {
        baseUrl: (baseUrl as string).replace(/\/+$/, ''),
        locationId: raw('locationId') as string,
        conversationId: raw('conversationId') as string,
        contactId: raw('contactId') as string,
        agentId: raw('agentId') as string,
        inactiveAgentId: raw('inactiveAgentId'),
        foreignLocationId: raw('foreignLocationId'),
        accessToken: raw('accessToken') as string,
        pitToken: raw('pitToken'),
        filesReadonlyToken: raw('filesReadonlyToken') as string,
        noFilesScopeToken: raw('noFilesScopeToken') as string,
        testClockUrl: raw('testClockUrl'),
      };
    }
  }
  if (problems.length > 0) {
    throw new ConfigError(`The suite's configuration is incomplete (environment or .env):\n  - ${problems.join('\n  - ')}`);
  }
  return config;
}

/** The credentials of a target by their variable names, e.g. `{ACCESS_TOKEN: '…'}`: the settings marked secret. */
export function secretsByName(target: Target): Record<string, string> {
  const entries = (Object.keys(SETTINGS) as Key[])
    .filter((key) => (SETTINGS[key] as Setting).secret)
    .map((key): [string, string | undefined] => [SETTINGS[key].env, target[key as keyof Target] as string | undefined])
    .filter((entry): entry is [string, string] => entry[1] !== undefined);
  return Object.fromEntries(entries);
}

/** Every credential of a target, for redaction. */
export function secretsOf(target: Target): string[] {
  return Object.values(secretsByName(target));
}

/** The target in words, without credentials: its origin, the reference server, or the recordings. */
export function describeTarget(config: SuiteConfig): string {
  if (config.mode === 'replay') return `recorded fixtures (${config.fixturesDir}/)`;
  if (config.target) return new URL(config.target.baseUrl).origin;
  return `reference server per worker (seed ${config.reference?.seed}, fault ${config.reference?.fault ?? 'none'})`;
}
