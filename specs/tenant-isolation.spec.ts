// Tenant isolation (SHOULD: the contract implies it, §2.1 and §5.2, without stating it): a valid token of another
// location, holding every scope, reaches nothing of LOCATION_ID, and no token of LOCATION_ID, configured or exchanged,
// reaches the other location. Each refusal is judged beside its control, the same request with the token of the
// location it goes to.
import type { Api, Auth, Fields, Reply } from '../src/client/api.ts';
import type { Target, TargetId } from '../src/config/config.ts';
import { offeredUrls, slugOf, urlsByFile } from '../src/checks/discover.ts';
import { describeLeaks, leaksOf } from '../src/checks/privacy.ts';
import type { RuleId } from '../src/contract/rules.ts';
import { expect, prerequisiteFailed, requireAccepted, requireControl, requireSettings, rule, test } from '../src/suite.ts';
import { SETTINGS } from '../src/config/config.ts';
import { getRequestForms } from '../src/contract/cases.ts';
import { describeSpelling } from '../src/contract/spelling.ts';
import { testFile } from '../src/files/test-file.ts';

const FILE = testFile('tenant.pdf', 400);

interface TenantCase {
  rule: Extract<RuleId, 'AUTH-TENANT-UPLOAD' | 'AUTH-TENANT-EXECUTE'>;
  statement: string;
  /** Optional settings it needs besides the foreign token. */
  needs?: TargetId[];
  /** The request as this location's token (the control) or the foreign one sends it. */
  send(api: Api, target: Target, token: 'access' | 'foreignAccess', executionId?: string): Promise<Reply>;
  /** The guarantee of the control. */
  guarantee: RuleId;
  continuation?: boolean;
}

const execute = (api: Api, target: Target, token: 'access' | 'foreignAccess', executionId?: string) =>
  api.execute(`execute AGENT_ID with the ${token} token`, { auth: token, body: { message: 'Hello from another tenant', locationId: target.locationId, ...(executionId ? { executionId } : {}) } });

const CASES: TenantCase[] = [
  {
    rule: 'AUTH-TENANT-UPLOAD',
    statement: "a foreign token's upload into this location's conversation is refused",
    guarantee: 'UPLOAD-ACCEPTED',
    send: (api, _target, token) => api.upload(`upload with the ${token} token`, { files: [FILE], auth: token }),
  },
  {
    rule: 'AUTH-TENANT-UPLOAD',
    statement: "a foreign token's upload to its location and this conversation is refused",
    needs: ['foreignLocationId'],
    guarantee: 'UPLOAD-ACCEPTED',
    send: (api, target, token) =>
      api.upload(`upload with the ${token} token`, {
        files: [FILE],
        auth: token,
        fields: api.uploadFields(token === 'access' ? {} : { locationId: target.foreignLocationId as string }),
      }),
  },
  {
    rule: 'AUTH-TENANT-UPLOAD',
    statement: "a foreign token's upload naming its own location and this contact is refused",
    needs: ['foreignLocationId'],
    guarantee: 'UPLOAD-ACCEPTED',
    send: (api, target, token) => {
      const { conversationId: _conversation, ...fields } = api.uploadFields({ contactId: target.contactId });
      return api.upload(`upload to the contact with the ${token} token`, {
        files: [FILE],
        auth: token,
        fields: token === 'access' ? fields : { ...fields, locationId: target.foreignLocationId as string },
      });
    },
  },
  { rule: 'AUTH-TENANT-EXECUTE', statement: "a foreign token's first message to this location's agent is refused", guarantee: 'SESSION-START', send: execute },
  { rule: 'AUTH-TENANT-EXECUTE', statement: "a foreign token's continuation of this location's session is refused", guarantee: 'SESSION-CONTINUE', send: execute, continuation: true },
];

/** An upload into the other location: to FOREIGN_CONVERSATION_ID, else FOREIGN_CONTACT_ID, naming FOREIGN_LOCATION_ID. */
function foreignFields(api: Api, target: Target): Fields | undefined {
  const { foreignLocationId, foreignConversationId, foreignContactId } = target;
  if (foreignLocationId === undefined || (foreignConversationId === undefined && foreignContactId === undefined)) return undefined;
  const { conversationId: _conversation, ...fields } = api.uploadFields({ locationId: foreignLocationId });
  return foreignConversationId === undefined ? { ...fields, contactId: foreignContactId as string } : { ...fields, conversationId: foreignConversationId };
}

/** The location token an Agency token is exchanged for (§5.4), where the answer names it as access_token (its shape is not shown). */
async function locationToken(api: Api): Promise<Auth | undefined> {
  const exchange = await api.locationToken('POST /oauth/location-token with the Agency token', 'agencyAccess');
  requireAccepted(exchange, 'the exchange of the Agency token for a location token', 'OAUTH-LOCATION-TOKEN');
  const token = (exchange.json() as { access_token?: unknown } | undefined)?.access_token;
  return typeof token === 'string' ? { bearer: token } : undefined;
}

// Each test skips for a missing setting itself: a skip in a hook reads in Allure as a hook that failed.
test.describe('tenant isolation', () => {
  for (const row of CASES) {
    test(...rule(row.rule, row.statement), async ({ api, target }) => {
      requireSettings(target, ['foreignAccess', ...(row.needs ?? [])]);
      let executionId: string | undefined;
      if (row.continuation) {
        const first = await execute(api, target, 'access');
        requireAccepted(first, 'the first message of a session', 'SESSION-START');
        const id = (first.json() as { executionId?: unknown } | undefined)?.executionId;
        executionId = typeof id === 'string' ? id : prerequisiteFailed('SESSION-START', 'the first reply of a session carried no executionId');
      }
      requireControl(await row.send(api, target, 'access', executionId), `the same request with this location's token`, row.guarantee);
      expect(await row.send(api, target, 'foreignAccess', executionId)).toBeRefusal();
    });
  }

  // The other way round: the tokens of this location, configured or obtained by an exchange, reach no other location.
  test(...rule('AUTH-TENANT-UPLOAD', "no token of this location, configured or obtained, uploads into another location"), async ({ api, target, config }) => {
    requireSettings(target, ['foreignAccess', 'foreignLocationId']);
    const fields = foreignFields(api, target);
    test.skip(fields === undefined, `${SETTINGS.foreignConversationId.env} and ${SETTINGS.foreignContactId.env} are not set`);
    const exchanges = target.tokens.agencyAccess !== undefined && (!config.locationTokenBody.includes('{companyId}') || target.companyId !== undefined);
    const tokens: [Auth | undefined, string][] = [['access', 'ACCESS_TOKEN'], [exchanges ? await locationToken(api) : undefined, "the Agency token's location token of LOCATION_ID"]];
    const upload = (auth: Auth, who: string) => api.upload(`upload into FOREIGN_LOCATION_ID with ${who}`, { files: [FILE], auth, fields });
    // A refusal here says more of the setting than of the server: the preflight checks it.
    requireControl(await upload('foreignAccess', 'FOREIGN_ACCESS_TOKEN (the control)'), "the same upload with that location's own token", 'not guaranteed');
    for (const [auth, who] of tokens) if (auth !== undefined) expect.soft(await upload(auth, who), `an upload into FOREIGN_LOCATION_ID with ${who}`).toBeRefusal();
  });

  test(...rule('AUTH-TENANT-FILES', "a foreign files.readonly token gets no signed URL for this location's file"), async ({ api, target }) => {
    requireSettings(target, ['foreignAccess']);
    const reply = await api.upload('a secure upload in this location', { files: [FILE], fields: api.uploadFields({ isSecureAttachment: 'true' }) });
    requireAccepted(reply, 'a secure upload', 'UPLOAD-ACCEPTED');
    const slug = offeredUrls(reply).map(slugOf).find((found) => found !== undefined) ?? prerequisiteFailed('SECURE-URL-FORM', 'the secure upload offered no /files/d/{slug} URL');
    requireControl(await api.signedUrlFor("GET /files/d/{slug} with this location's files.readonly token (the control)", slug, 'filesReadonly'), "GET /files/d/{slug} with this location's files.readonly token", 'SECURE-SIGNED-URL');
    const foreign = await api.signedUrlFor('GET /files/d/{slug} with the foreign token', slug, 'foreignAccess');
    expect.soft(foreign).toBeRefusal();
    // Redacted: a failure prints the URL it received, and a signed one carries its signature.
    const leaked = (await urlsByFile(api, offeredUrls(foreign), [FILE])).get(FILE.name);
    expect.soft(leaked && api.evidence.redact(leaked), 'a URL offered to the foreign token that serves the file').toBeUndefined();
    // The location is the resource's, whatever form of request HTTP lets a client write (a refusal of a form is no leak).
    for (const form of getRequestForms()) {
      const route = `GET /files/d/{slug} with the foreign token, ${describeSpelling(form)}`;
      expect.soft(describeLeaks(await leaksOf(api, route, await api.signedUrlFor(route, slug, 'foreignAccess', form), FILE)), route).toEqual([]);
    }
  });
});
