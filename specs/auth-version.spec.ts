// Authentication (§5) on every authenticated operation, and the Version header (§9.1).
import type { Api, Auth, Reply } from '../src/api.ts';
import type { Target } from '../src/config.ts';
import { absoluteUrls, slugOf } from '../src/discover.ts';
import type { RuleId } from '../src/rules.ts';
import { expect, observe, requireAccepted, rule, test } from '../src/suite.ts';
import { testFile } from '../src/test-files.ts';

interface Operation {
  name: string;
  /** False when a request without a token is legitimately answered (see GET /files/d/{slug} below). */
  needsToken: boolean;
  /** A token the operation accepts, to wrap in malformed headers. */
  validToken(target: Target): string;
  send(api: Api, auth: Auth, headers?: Record<string, string | null>): Promise<Reply>;
}

const upload: Operation = {
  name: 'an upload',
  needsToken: true,
  validToken: (target) => target.tokens.access,
  send: (api, auth, headers) => api.upload('upload with the credential under test', { files: [testFile('auth.txt', 300)], auth, headers }),
};

const executeDeprecated: Operation = {
  name: 'a deprecated execute',
  needsToken: true,
  validToken: (target) => target.tokens.access,
  send: (api, auth, headers) => api.execute('deprecated execute with the credential under test', { path: 'deprecated', auth, headers }),
};

const executeReplacement: Operation = {
  name: 'a replacement execute',
  needsToken: true,
  validToken: (target) => target.tokens.access,
  send: (api, auth, headers) => api.execute('replacement execute with the credential under test', { path: 'replacement', auth, headers }),
};

const signedUrl: Operation = {
  name: 'a GET /files/d/{slug}',
  // Within the hour the same URL is public to a request without a token (§4.1 rule 4); after it, anonymous
  // reads are judged by SECURE-PRIVATE-AFTER, which moves the clock.
  needsToken: false,
  validToken: (target) => target.tokens.filesReadonly,
  async send(api, auth) {
    const secure = await api.upload('a secure upload with the access token, for its slug', {
      fields: api.uploadFields({ isSecureAttachment: 'true' }),
      files: [testFile('secure.pdf', 300)],
    });
    requireAccepted(secure, 'a secure upload', 'UPLOAD-ACCEPTED');
    const slug = absoluteUrls(secure.json()).map(slugOf).find((found) => found !== undefined);
    test.skip(slug === undefined, 'the secure upload offered no /files/d/{slug} URL (judged by SECURE-URL-FORM)');
    return api.signedUrlFor('GET /files/d/{slug} with the credential under test', slug as string, auth);
  },
};

const OPERATIONS = [upload, signedUrl, executeDeprecated, executeReplacement];

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
  { rule: 'AUTH-MALFORMED', label: 'with the Bearer scheme and no token', auth: () => ({ header: 'Bearer' }) },
  { rule: 'AUTH-MALFORMED', label: 'with a valid token and no scheme', auth: (token) => ({ header: token }) },
  { rule: 'AUTH-MALFORMED', label: 'with a valid token under the Basic scheme', auth: (token) => ({ header: `Basic ${token}` }) },
  { rule: 'AUTH-MALFORMED', label: 'with a valid token under a Token scheme', auth: (token) => ({ header: `Token ${token}` }) },
  { rule: 'AUTH-MALFORMED', label: 'with Basic user:password credentials', auth: () => ({ header: 'Basic dXNlcjpwYXNz' }) },
  { rule: 'AUTH-UNKNOWN-TOKEN', label: 'with an unknown bearer token', auth: () => ({ header: 'Bearer conformance-unknown-token-0000' }) },
];

const outcome = (reply: Reply) =>
  `${reply.status} (${reply.status < 300 ? 'accepted' : reply.status < 400 ? 'redirected' : reply.status < 500 ? 'refused' : 'server error'})`;

test.describe('authentication', () => {
  for (const operation of OPERATIONS) {
    for (const row of CREDENTIAL_CASES.filter((c) => operation.needsToken || c.rule !== 'AUTH-TOKEN-REQUIRED')) {
      test(...rule(row.rule, `${operation.name} ${row.label} is refused`), async ({ api, target }) => {
        const reply = await operation.send(api, row.auth(operation.validToken(target)));
        expect(reply).toBeRefusal();
      });
    }
  }

  for (const operation of [upload, executeDeprecated, executeReplacement]) {
    test(...rule('AUTH-PIT', `the answer to ${operation.name} with a private integration token is observed`), async ({ api, target }) => {
      test.skip(target.tokens.pit === undefined, 'PIT_TOKEN is not set');
      const reply = await operation.send(api, 'pit');
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
      test(...rule(row.rule, `the answer to ${operation.name} ${row.label} is observed`), async ({ api }) => {
        const reply = await operation.send(api, 'access', row.headers);
        observe(`${operation.name} ${row.label}: ${outcome(reply)}`);
      });
    }
  }
});
