// What STATE_DIR keeps of a target belongs to the server that made it: the uploads clock rules judge in a later run
// (src/time/aged-state.ts) and the refresh tokens a run spent (src/client/refresh-chain.ts). A server reset or
// replaced since (the reference restarted, a staging environment re-seeded) holds none of them, and judging them on it
// would fail PERMANENT-URL-LASTS and SECURE-* with "no such file". So each preflight leaves a canary, the URL of its own
// upload, and the next one asks the server for it beside this run's upload: a server that serves this run's upload
// but neither the canary nor the newest kept uploads has lost its state, and what was kept of it is forgotten, named
// in one line with both readings. A server that still holds the canary holds its state: a kept upload it lost then is
// the server's verdict.
import { createHash } from 'node:crypto';
import { mkdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { accepted, type Api, type Reply } from '../client/api.ts';
import { SpentRefreshTokens } from '../client/refresh-chain.ts';
import { secretsOf, type SuiteConfig, type Target } from '../config/config.ts';
import { redactText } from '../config/redact.ts';
import { offeredUrls, slugOf } from '../checks/discover.ts';
import { keptFor } from '../time/aged-state.ts';

const CANARY_FORMAT = 'conformance-server-canary/1';

interface Canary {
  format: typeof CANARY_FORMAT;
  origin: string;
  locationId: string;
  url: string;
  /** This machine's time of the upload: only ever shown, never compared with the server's. */
  keptAt: string;
}

/** What a run finds of the state kept for its target: nothing kept, held by the server, or lost with it. */
export type KeptState = { kind: 'none' | 'held' | 'unknown' } | { kind: 'lost'; seen: string; forgotten: string };

/** The canary's file for the target's origin and location. */
function canaryFile(stateDir: string, target: Target): string {
  const { origin } = new URL(target.baseUrl);
  return join(stateDir, `server.${createHash('sha256').update(`${origin}\n${target.locationId}`).digest('hex').slice(0, 12)}.json`);
}

function readCanary(stateDir: string, target: Target): Canary | undefined {
  try {
    const canary = JSON.parse(readFileSync(canaryFile(stateDir, target), 'utf8')) as Canary;
    return canary.format === CANARY_FORMAT && canary.origin === new URL(target.baseUrl).origin && canary.locationId === target.locationId ? canary : undefined;
  } catch {
    return undefined;
  }
}

function writeCanary(stateDir: string, target: Target, url: string): void {
  const canary: Canary = { format: CANARY_FORMAT, origin: new URL(target.baseUrl).origin, locationId: target.locationId, url, keptAt: new Date().toISOString() };
  const file = canaryFile(stateDir, target);
  mkdirSync(stateDir, { recursive: true });
  writeFileSync(`${file}.${process.pid}`, `${JSON.stringify(canary, null, 2)}\n`);
  renameSync(`${file}.${process.pid}`, file);
}

/** True when a live run keeps state of its target: what this check is for. */
export const keepsState = (config: SuiteConfig, target: Target) => config.mode === 'live' && !target.freshEachTest;

/** True when STATE_DIR holds something of the target for the server to show it still holds. */
export function hasKeptState(config: SuiteConfig, target: Target): boolean {
  return readCanary(config.stateDir, target) !== undefined || keptFor(config.stateDir, target).length > 0;
}

/**
 * Asks the server for the canary and the newest kept uploads, beside `fresh`, this run's accepted secure upload, and
 * leaves this run's upload as the next canary. A server that does not give this run's upload (FILES_READONLY_TOKEN
 * refused, no URL offered) tells nothing, and nothing is touched.
 */
export async function checkKeptState(api: Api, config: SuiteConfig, target: Target, fresh: Reply): Promise<KeptState> {
  const url = offeredUrls(fresh)[0];
  // A file kept past its public hour is private: the route with files.readonly is the one that must still give it.
  const held = (label: string, at: string): Promise<Reply | undefined> => {
    const slug = slugOf(at);
    return slug === undefined ? api.offered(label, at) : api.signedUrlFor(label, slug, 'filesReadonly');
  };
  if (url === undefined || target.tokens.filesReadonly === undefined) return { kind: 'unknown' };
  const control = await held("this run's upload, as the kept ones are asked for", url);
  if (control === undefined || !accepted(control)) return { kind: 'unknown' };
  const canary = readCanary(config.stateDir, target);
  const kept = keptFor(config.stateDir, target);
  // A URL this run's upload was given proves nothing of an earlier one: a server started afresh may hand out its URLs
  // again (the reference with a fixed SEED), and one that names files by their content gives the same file one URL.
  // Beside the canary, the newest kept upload of each kind, secure and permanent: a server that lost one kind alone
  // (the permanent files at the change of 30 November 2026, say) still holds the other, and that loss is its verdict.
  const newest = (secure: boolean) => kept.find((upload) => (slugOf(upload.urls[0]) !== undefined) === secure);
  const probes = [
    ...(canary ? [{ what: `the preflight upload kept ${canary.keptAt}`, url: canary.url }] : []),
    ...[newest(true), newest(false)].flatMap((upload) => (upload ? [{ what: `an upload kept ${new Date(upload.uploadedAt).toISOString()}`, url: upload.urls[0] }] : [])),
  ].filter((probe) => probe.url !== url);
  let state: KeptState = { kind: 'none' };
  const refusals: string[] = [];
  for (const probe of probes) {
    const reply = await held(`${probe.what}, asked for again`, probe.url);
    if (reply !== undefined && accepted(reply)) {
      state = { kind: 'held' };
      break;
    }
    refusals.push(`${probe.what}: ${reply === undefined ? 'unreachable' : `${reply.method} ${new URL(reply.url).pathname} answered ${reply.status}`}`);
  }
  if (probes.length > 0 && state.kind === 'none') {
    for (const upload of kept) rmSync(upload.path, { force: true });
    const refresh = target.tokens.oauthRefreshToken;
    const spent = new SpentRefreshTokens(config.stateDir, new URL(target.baseUrl).origin);
    const wasSpent = refresh !== undefined && spent.has(refresh);
    if (wasSpent) spent.forget(refresh);
    const items = [...(kept.length > 0 ? [`${kept.length} upload${kept.length === 1 ? '' : 's'} of the clock rules`] : []), ...(wasSpent ? ['the OAUTH_REFRESH_TOKEN spent on it'] : [])];
    const forgotten = items.length > 0 ? items.join(', ') : 'the canary alone';
    state = { kind: 'lost', seen: refusals.join('; '), forgotten };
  }
  // A URL carrying a signature or a token is never stored: the next run then asks for the kept uploads alone.
  if (redactText(url, secretsOf(target)) === url) writeCanary(config.stateDir, target, url);
  return state;
}
