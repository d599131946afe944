// Tenant isolation (SHOULD: the contract implies it, §2.1 and §5.2, without stating it): a valid token of another
// location, holding every scope, reaches nothing of LOCATION_ID. Each refusal is judged beside its control, the same
// request with this location's own token.
import type { Api, Reply } from '../src/client/api.ts';
import type { Target, TargetId } from '../src/config/config.ts';
import { offeredUrls, slugOf, urlsByFile } from '../src/checks/discover.ts';
import type { RuleId } from '../src/contract/rules.ts';
import { expect, prerequisiteFailed, requireAccepted, requireControl, requireSettings, rule, test } from '../src/suite.ts';
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
  });
});
