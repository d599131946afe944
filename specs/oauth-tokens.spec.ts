// The token endpoints (§4.4, §5.2, §5.4): a refresh token exchanged at POST /oauth/token (RFC 6749 §6), and an Agency
// token exchanged at POST /oauth/location-token, each for a token that works in LOCATION_ID. Payload shapes are not
// shown: the issued token is `access_token`, else any string of the answer that works as a bearer token.
// A server that rotates refresh tokens makes each single use: the refresh checks run in order in one worker and
// spend the refresh token the previous exchange issued, so one run spends OAUTH_REFRESH_TOKEN at most once.
import { accepted, type Api, type Reply } from '../src/client/api.ts';
import { pickIds, type Target, type TargetId } from '../src/config/config.ts';
import { type RefreshChain, SPENT_REASON } from '../src/client/refresh-chain.ts';
import { credentialStrings } from '../src/config/secrets.ts';
import { expect, observe, outcome, requireAccepted, requireControl, requireSettings, rule, test } from '../src/suite.ts';
import { testFile } from '../src/files/test-file.ts';

const FILE = testFile('issued-token.pdf', 300);

/** A refresh exchange spending the chain's refresh token, `fields` changed (undefined leaves one out); an accepted one advances the chain. */
async function refresh(api: Api, chain: RefreshChain, label: string, fields: Record<string, string | undefined> = {}): Promise<Reply> {
  const form = { grant_type: 'refresh_token', client_id: api.target.oauthClientId, client_secret: api.target.tokens.oauthClientSecret, refresh_token: chain.spend(), ...fields };
  const reply = await api.oauthToken(label, Object.fromEntries(Object.entries(form).filter((entry): entry is [string, string] => entry[1] !== undefined)));
  if (accepted(reply)) chain.advance(reply.json());
  return reply;
}

/** The token the exchange issued that uploads into LOCATION_ID. */
async function uploadingToken(api: Api, exchange: Reply): Promise<string> {
  expect(exchange).toBeAcceptance();
  const json = exchange.json();
  const named = (json as { access_token?: unknown } | undefined)?.access_token;
  const candidates = typeof named === 'string' ? [named] : credentialStrings(json, new Set(Object.values(pickIds(api.target)).filter((id) => id !== undefined))).map(({ value }) => value);
  let token: string | undefined;
  for (const candidate of candidates) {
    if (accepted(await api.upload('an upload into LOCATION_ID with the issued token', { files: [FILE], auth: { bearer: candidate } }))) {
      token = candidate;
      break;
    }
  }
  expect(token, `a token of the answer that uploads into LOCATION_ID (${candidates.length} tried, see the evidence)`).toBeDefined();
  return token as string;
}

/** The exchange issued a token that uploads into LOCATION_ID and executes AGENT_ID. */
async function expectWorkingToken(api: Api, exchange: Reply): Promise<void> {
  const token = await uploadingToken(api, exchange);
  expect(await api.execute('execute AGENT_ID with the issued token', { auth: { bearer: token } })).toBeAcceptance();
}

/** Each test of the chain skips itself without its settings or with a spent refresh token: a skip in a hook reads in Allure as a hook that failed. */
function requireChain(target: Target, chain: RefreshChain): void {
  requireSettings(target, ['oauthClientId', 'oauthClientSecret', 'oauthRefreshToken']);
  test.skip(chain.spentByEarlierRun, SPENT_REASON);
}

test.describe('refresh tokens', () => {
  // In order, in one worker, and stopping at the first failure: each test spends the refresh token the previous one got.
  test.describe.configure({ mode: 'serial' });

  test(...rule('OAUTH-REFRESH', 'a refreshed access token uploads and executes in LOCATION_ID'), async ({ api, refreshChain, target }) => {
    requireChain(target, refreshChain);
    await expectWorkingToken(api, await refresh(api, refreshChain, 'POST /oauth/token with the refresh token'));
  });

  test(...rule('OAUTH-REFRESH-UNKNOWN', 'a refresh with an unknown refresh token is refused'), async ({ api, refreshChain, target }) => {
    requireChain(target, refreshChain);
    requireControl(await refresh(api, refreshChain, 'a refresh with the valid refresh token (the control)'), 'a refresh with the valid refresh token', 'OAUTH-REFRESH');
    expect(await refresh(api, refreshChain, 'a refresh with an unknown refresh token', { refresh_token: 'conformance-unknown-refresh-token-0000' })).toBeRefusal();
  });

  for (const [label, clientSecret] of [['a wrong client_secret', 'conformance-wrong-client-secret'], ['no client_secret', undefined]] as const) {
    test(...rule('OAUTH-REFRESH-CLIENT', `a refresh with ${label} is refused`), async ({ api, refreshChain, target }) => {
      requireChain(target, refreshChain);
      requireControl(await refresh(api, refreshChain, 'a refresh with the client credentials (the control)'), 'a refresh with the client credentials', 'OAUTH-REFRESH');
      expect(await refresh(api, refreshChain, `a refresh with ${label}`, { client_secret: clientSecret })).toBeRefusal();
    });
  }

  // Last: a server that detects the reuse of a spent refresh token may revoke its whole family.
  test(...rule('OAUTH-REFRESH-ROTATION', 'whether a refresh rotates the refresh token is observed'), async ({ api, refreshChain, target }) => {
    requireChain(target, refreshChain);
    const spent = refreshChain.current;
    const first = await refresh(api, refreshChain, 'a refresh exchange');
    requireAccepted(first, 'a refresh exchange', 'OAUTH-REFRESH');
    const issued = (first.json() as { refresh_token?: unknown } | undefined)?.refresh_token;
    const again = await refresh(api, refreshChain, 'the same exchange again, with the spent refresh token', { refresh_token: spent });
    const rotation = typeof issued !== 'string' ? 'the answer holds no refresh_token' : issued === spent ? 'the same refresh token is handed back' : 'a new refresh token is issued';
    observe(`${rotation}; the spent refresh token then answers ${outcome(again)}`);
  });
});

test.describe('location tokens', () => {
  /** The settings POST /oauth/location-token needs besides the token that asks. */
  const bodySettings = (template: string): TargetId[] => (template.includes('{companyId}') ? ['companyId'] : []);

  test(...rule('OAUTH-LOCATION-TOKEN', "an Agency token's location token uploads and executes in LOCATION_ID"), async ({ api, target, config }) => {
    requireSettings(target, ['agencyAccess', ...bodySettings(config.locationTokenBody)]);
    await expectWorkingToken(api, await api.locationToken('POST /oauth/location-token with the Agency token', 'agencyAccess'));
  });

  // RFC 6749 §5.1: expires_in is the issued token's lifetime; the contract names none, and says nothing of revoking
  // a token by issuing another: a server that does so for security is warned of, never failed.
  test(...rule('OAUTH-TOKEN-LIFETIME', 'a location token still uploads after a second exchange for the location'), async ({ api, target, config }) => {
    requireSettings(target, ['agencyAccess', ...bodySettings(config.locationTokenBody)]);
    const first = await api.locationToken('POST /oauth/location-token with the Agency token', 'agencyAccess');
    requireControl(first, 'an exchange of the Agency token', 'OAUTH-LOCATION-TOKEN');
    const token = await uploadingToken(api, first);
    requireControl(await api.locationToken('POST /oauth/location-token again, for the same location', 'agencyAccess'), 'a second exchange of the Agency token', 'OAUTH-LOCATION-TOKEN');
    expect(await api.upload('an upload into LOCATION_ID with the first location token, after the second exchange', { files: [FILE], auth: { bearer: token } })).toBeAcceptance();
  });

  test(...rule('OAUTH-AGENCY-ON-API', "the answers to an Agency token's upload and execution are observed"), async ({ api, target }) => {
    requireSettings(target, ['agencyAccess']);
    const upload = await api.upload('an upload into LOCATION_ID with the Agency token', { files: [FILE], auth: 'agencyAccess' });
    const execution = await api.execute('execute AGENT_ID with the Agency token', { auth: 'agencyAccess' });
    observe(`with the Agency token, an upload into LOCATION_ID: ${outcome(upload)}; an execution: ${outcome(execution)}`);
  });

  test(...rule('OAUTH-LOCATION-TOKEN-SUBACCOUNT', 'the answer to a Sub-Account token asking for a location token is observed'), async ({ api, target, config }) => {
    requireSettings(target, bodySettings(config.locationTokenBody));
    observe(`POST /oauth/location-token with ACCESS_TOKEN: ${outcome(await api.locationToken('POST /oauth/location-token with the Sub-Account token', 'access'))}`);
  });
});
