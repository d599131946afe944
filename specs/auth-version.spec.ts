// Authentication (§5) on every authenticated operation, and the Version header (§9.1).
import type { Api, Auth, Reply } from '../src/client/api.ts';
import type { Credential, Target } from '../src/config/config.ts';
import { offeredUrls, slugOf } from '../src/checks/discover.ts';
import type { RuleId } from '../src/contract/rules.ts';
import { expect, observe, outcome, prerequisiteFailed, requireAccepted, requireControl, requireSettings, rule, test } from '../src/suite.ts';
import { testFile } from '../src/files/test-file.ts';

type Send = (label: string, auth: Auth, headers?: Record<string, string | null>) => Promise<Reply>;

interface Operation {
  name: string;
  /** False when a request without a token is legitimately answered (see GET /files/d/{slug} below). */
  needsToken: boolean;
  /** The credential of the control, which the operation accepts; malformed headers wrap it. */
  credential: Credential;
  /** The rule that guarantees the control is accepted; the replacement path's shapes are not shown. */
  guarantee: RuleId | 'not guaranteed';
  /** Makes what every request of the operation needs (a slug, a session) and answers how to send one. */
  prepare(api: Api, target: Target): Promise<Send>;
}

const upload: Operation = {
  name: 'an upload',
  needsToken: true,
  credential: 'access',
  guarantee: 'UPLOAD-ACCEPTED',
  prepare: async (api) => (label, auth, headers) => api.upload(label, { files: [testFile('auth.txt', 300)], auth, headers }),
};

const signedUrl: Operation = {
  name: 'a GET /files/d/{slug}',
  // Within the hour the same URL is public to a request without a token (§4.1 rule 4); after it, anonymous
  // reads are judged by SECURE-PRIVATE-AFTER, which moves the clock.
  needsToken: false,
  credential: 'filesReadonly',
  guarantee: 'SECURE-SIGNED-URL',
  async prepare(api) {
    const secure = await api.upload('a secure upload with the access token, for its slug', {
      fields: api.uploadFields({ isSecureAttachment: 'true' }),
      files: [testFile('secure.pdf', 300)],
    });
    requireAccepted(secure, 'a secure upload', 'UPLOAD-ACCEPTED');
    const slug = offeredUrls(secure).map(slugOf).find((found) => found !== undefined) ?? prerequisiteFailed('SECURE-URL-FORM', 'the secure upload offered no /files/d/{slug} URL');
    return (label, auth) => api.signedUrlFor(label, slug, auth);
  },
};

/** The execute operation of a path, as a session's first message or as a continuation of one. */
function execute(path: 'deprecated' | 'replacement', kind: 'first message' | 'continuation'): Operation {
  const guaranteed = path === 'deprecated';
  return {
    name: kind === 'continuation' ? `a ${path} continuation` : `a ${path} execute`,
    needsToken: true,
    credential: 'access',
    guarantee: !guaranteed ? 'not guaranteed' : kind === 'continuation' ? 'SESSION-CONTINUE' : 'SESSION-START',
    async prepare(api, target) {
      let extra = {};
      if (kind === 'continuation') {
        const first = await api.execute(`the first message of the session to continue (${path} path)`, { path });
        if (guaranteed) requireAccepted(first, 'the first message of a session', 'SESSION-START');
        else requireControl(first, 'the first message of a session on the replacement path', 'not guaranteed');
        const executionId = (first.json() as { executionId?: unknown } | undefined)?.executionId;
        if (typeof executionId !== 'string') {
          test.skip(!guaranteed, "not applicable: the replacement's first reply carried no executionId (its shapes are not shown)");
          prerequisiteFailed('SESSION-START', 'the first reply of a session carried no executionId');
        }
        extra = { executionId };
      }
      const body = { message: 'Hello from the conformance suite', locationId: target.locationId, ...extra };
      return (label, auth, headers) => api.execute(label, { path, body, auth, headers });
    },
  };
}

const executeDeprecated = execute('deprecated', 'first message');
const executeReplacement = execute('replacement', 'first message');
const OPERATIONS = [upload, signedUrl, executeDeprecated, execute('deprecated', 'continuation'), executeReplacement, execute('replacement', 'continuation')];

interface CredentialCase {
  rule: Extract<RuleId, 'AUTH-TOKEN-REQUIRED' | 'AUTH-MALFORMED' | 'AUTH-UNKNOWN-TOKEN'>;
  /** How the credential is sent, for the title; never the credential itself. */
  label: string;
  auth: (validToken: string) => Auth;
}

// A malformed header around a token the operation accepts is the only way to see that the scheme itself is checked:
// around an unknown token the refusal could come from the token lookup alone. The evidence redacts every configured token.
const CREDENTIAL_CASES: CredentialCase[] = [
  { rule: 'AUTH-TOKEN-REQUIRED', label: 'with no Authorization header', auth: () => 'none' },
  { rule: 'AUTH-MALFORMED', label: 'with Bearer and no token', auth: () => ({ header: 'Bearer' }) },
  { rule: 'AUTH-MALFORMED', label: 'with a valid token and no scheme', auth: (token) => ({ header: token }) },
  { rule: 'AUTH-MALFORMED', label: 'with a valid token under Basic', auth: (token) => ({ header: `Basic ${token}` }) },
  { rule: 'AUTH-MALFORMED', label: 'with a valid token under Token', auth: (token) => ({ header: `Token ${token}` }) },
  { rule: 'AUTH-MALFORMED', label: 'with Basic user:password', auth: () => ({ header: 'Basic dXNlcjpwYXNz' }) },
  { rule: 'AUTH-UNKNOWN-TOKEN', label: 'with an unknown bearer token', auth: () => ({ header: 'Bearer conformance-unknown-token-0000' }) },
];

test.describe('authentication', () => {
  for (const operation of OPERATIONS) {
    for (const row of CREDENTIAL_CASES.filter((c) => operation.needsToken || c.rule !== 'AUTH-TOKEN-REQUIRED')) {
      test(...rule(row.rule, `${operation.name} ${row.label} is refused`), async ({ api, target }) => {
        const send = await operation.prepare(api, target);
        requireControl(await send(`${operation.name} with a valid token (the control)`, operation.credential), `${operation.name} with a valid token`, operation.guarantee);
        expect(await send(`${operation.name} with the credential under test`, row.auth(target.tokens[operation.credential] as string))).toBeRefusal();
      });
    }
  }

  // §5.2 accepts both kinds of token, and §5.3 lets only endpoints marked OAuth-only refuse a PIT: the upload is not
  // marked, and §5.8 leaves open only the execute endpoint's answer to one.
  test(...rule('AUTH-PIT-UPLOAD', 'an upload with a PIT is accepted as with ACCESS_TOKEN'), async ({ api, target }) => {
    requireSettings(target, ['pit']);
    const send = await upload.prepare(api, target);
    requireControl(await send('the upload with ACCESS_TOKEN (the control)', 'access'), 'the upload with ACCESS_TOKEN', 'UPLOAD-ACCEPTED');
    expect(await send('the upload with the PIT', 'pit')).toBeAcceptance();
  });

  for (const operation of [executeDeprecated, executeReplacement]) {
    test(...rule('AUTH-PIT', `the answer to ${operation.name} with a PIT is observed`), async ({ api, target }) => {
      requireSettings(target, ['pit']);
      const reply = await (await operation.prepare(api, target))('the operation with the PIT', 'pit');
      observe(`${operation.name} with a PIT: ${outcome(reply)}`);
    });
  }
});

interface VersionCase {
  rule: Extract<RuleId, 'VERSION-MISSING' | 'VERSION-UNKNOWN'>;
  label: string;
  headers: Record<string, string | null>;
}

const VERSION_CASES: VersionCase[] = [
  { rule: 'VERSION-MISSING', label: 'without a Version header', headers: { version: null } },
  { rule: 'VERSION-UNKNOWN', label: 'with Version: v0-unknown', headers: { version: 'v0-unknown' } },
];

test.describe('versioning', () => {
  for (const operation of [executeDeprecated, upload]) {
    for (const row of VERSION_CASES) {
      test(...rule(row.rule, `${operation.name} ${row.label} is observed`), async ({ api, target }) => {
        const reply = await (await operation.prepare(api, target))(`the operation ${row.label}`, 'access', row.headers);
        observe(`${operation.name} ${row.label}: ${outcome(reply)}`);
      });
    }
  }
});
