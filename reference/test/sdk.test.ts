// The platform's official SDK (@gohighlevel/api-client, pinned) against the reference server, as a team building on
// the platform uses it for a local sandbox (README, "A sandbox for the platform's official SDK"): the base URL set on
// the SDK's HTTP client, apiVersion v3, the reference world's tokens. Loopback only. Each answer is checked against
// the contract's fields, and each call's path against where the SDK is known to send it.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { HighLevel, UserType, type ValidConfig } from '@gohighlevel/api-client';
import { slugOf, urlReferences } from '../../src/checks/discover.ts';
import {
  API_VERSION,
  DEPRECATED_EXECUTE_PATH,
  expandPath,
  FILE_FORM_KEY,
  PLATFORM_EXECUTE_PATH,
  PLATFORM_LOCATION_TOKEN_PATH,
  TOKEN_PATH,
  UPLOAD_PATH,
} from '../../src/contract/contract.ts';
import { describeErrors, type SchemaId, validatorFor } from '../../src/contract/schemas.ts';
import { sha256, type TestFile, testFile } from '../../src/files/test-file.ts';
import { type Listening, listenReference } from '../listen.ts';
import { TEST_CLOCK_PATH } from '../plugins/test-clock.ts';
import { STYLE_NAMES, type StyleName } from '../style.ts';
import { T0, WORLD } from './helpers.ts';

/** The style the README names as the SDK's sandbox: its GET /files/d/{slug} answers the JSON the SDK types. */
const SANDBOX: StyleName = 'alt';

/**
 * The SDK's own Content-Type is JSON, which makes axios send a FormData as JSON: an upload names multipart, and axios
 * writes the form with its boundary.
 */
const MULTIPART = { headers: { 'Content-Type': 'multipart/form-data' } };

/** A client of the SDK set up as the README says, and the requests it sent (`POST /path`). */
function sdk(base: string, credentials: ValidConfig): { ghl: HighLevel; sent: string[] } {
  const ghl = new HighLevel({ ...credentials, apiVersion: API_VERSION, logLevel: 'none' });
  ghl.getHttpClient().defaults.baseURL = base;
  const sent: string[] = [];
  ghl.addRequestInterceptor({
    onFulfilled: (config) => {
      sent.push(`${config.method?.toUpperCase()} ${config.url}`);
      return config;
    },
  });
  return { ghl, sent };
}

function assertShape(id: SchemaId, answer: unknown): void {
  const validate = validatorFor(id);
  assert.ok(validate(answer), `${id}: ${describeErrors(validate.errors)}\nReceived: ${JSON.stringify(answer)}`);
}

/** The form of §2.1, the file under its key. */
function uploadForm(file: TestFile, secure: boolean): FormData {
  const form = new FormData();
  form.append('locationId', WORLD.locationId);
  form.append('conversationId', WORLD.conversationId);
  form.append('attachmentUrls', '[]');
  if (secure) form.append('isSecureAttachment', 'true');
  form.append(FILE_FORM_KEY, new Blob([file.bytes]), file.name);
  return form;
}

/** The URL of an upload answer that serves the file's bytes, read anonymously. */
async function servingUrl(answer: { uploadedFiles: unknown }, base: string, file: TestFile): Promise<string> {
  for (const { url } of urlReferences(answer.uploadedFiles, base)) {
    const read = await fetch(url);
    if (read.ok && sha256(Buffer.from(await read.arrayBuffer())) === file.sha256) return url;
  }
  assert.fail(`no URL of ${JSON.stringify(answer)} serves ${file.name}`);
}

/** Uploads one file through the SDK and answers the URL that serves it. */
async function uploaded(client: ReturnType<typeof sdk>, base: string, file: TestFile, secure: boolean): Promise<string> {
  const answer = await client.ghl.conversations.uploadFileAttachments(uploadForm(file, secure), MULTIPART);
  assert.equal(client.sent.at(-1), `POST ${UPLOAD_PATH}`);
  assertShape('upload-response', answer);
  return servingUrl(answer, base, file);
}

type Execute = (ghl: HighLevel, params: { agentId: string; source?: string }, body: { message: string; locationId: string; executionId?: string }) => Promise<unknown>;

/** The SDK's two execute calls and where each sends the request. */
const EXECUTIONS: readonly { call: string; path: string; run: Execute }[] = [
  { call: 'agentStudio.executeAgent', path: PLATFORM_EXECUTE_PATH, run: (ghl, params, body) => ghl.agentStudio.executeAgent(params, body) },
  { call: 'agentStudio.executeAgentDeprecated', path: DEPRECATED_EXECUTE_PATH, run: (ghl, params, body) => ghl.agentStudio.executeAgentDeprecated(params, body) },
];

/** One execution of the world's agent through the SDK: it must have the eleven fields of §2.4. */
async function executed(client: ReturnType<typeof sdk>, run: Execute, executionId?: string): Promise<{ executionId: string; interactionId: string }> {
  const answer = await run(client.ghl, { agentId: WORLD.agentId, source: 'public_api' }, { message: 'hello', locationId: WORLD.locationId, executionId });
  assertShape('execution-response', answer);
  return answer as { executionId: string; interactionId: string };
}

/** The README's sandbox credential: the world's private integration token holds every scope of these calls. */
const PIT = { privateIntegrationToken: WORLD.tokens.pit };
/** The world's OAuth app, which the SDK wants beside any OAuth token. */
const OAUTH_APP = { clientId: WORLD.oauthClientId, clientSecret: WORLD.tokens.oauthClientSecret };

const start = (style: StyleName) => listenReference({ seed: 'sdk', style, testClock: { start: Date.parse(T0) } }, { host: '127.0.0.1', port: 0 });

for (const style of STYLE_NAMES) {
  describe(`the official SDK against the ${style} style`, () => {
    let server: Listening;
    before(async () => {
      server = await start(style);
    });
    after(() => server.close());

    test('conversations.uploadFileAttachments uploads a plain file to a URL outside /files/d/ and a secure one to /files/d/{slug}, each serving it', async () => {
      const client = sdk(server.address, PIT);
      assert.equal(slugOf(await uploaded(client, server.address, testFile('brochure.pdf'), false)), undefined);
      assert.ok(slugOf(await uploaded(client, server.address, testFile('photo.png'), true)));
    });

    for (const { call, path, run } of EXECUTIONS) {
      test(`${call} sends POST ${path}, starts a session and continues it`, async () => {
        const client = sdk(server.address, PIT);
        const first = await executed(client, run);
        const second = await executed(client, run, first.executionId);
        assert.deepEqual(client.sent, Array(2).fill(`POST ${expandPath(path, { agentId: WORLD.agentId })}`));
        assert.equal(second.executionId, first.executionId, 'a continuation keeps the session (§3)');
        assert.notEqual(second.interactionId, first.interactionId, 'each exchange has its own interactionId (§2.4)');
      });
    }

    test('oauth.refreshToken and oauth.getLocationAccessToken issue Sub-Account tokens that execute', async () => {
      const oauth = sdk(server.address, OAUTH_APP);
      const refreshed = await oauth.ghl.oauth.refreshToken(WORLD.tokens.oauthRefreshToken, WORLD.oauthClientId, WORLD.tokens.oauthClientSecret, 'refresh_token', UserType.Location);
      const agency = sdk(server.address, { ...OAUTH_APP, agencyAccessToken: WORLD.tokens.agencyAccess });
      const exchanged = await agency.ghl.oauth.getLocationAccessToken({ companyId: WORLD.companyId, locationId: WORLD.locationId });
      assert.deepEqual([...oauth.sent, ...agency.sent], [`POST ${TOKEN_PATH}`, `POST ${PLATFORM_LOCATION_TOKEN_PATH}`]);
      // §4.4 shows no payload: a token is judged by what it does, an execution in LOCATION_ID.
      for (const issued of [refreshed, exchanged] as { access_token?: unknown }[]) {
        assert.equal(typeof issued.access_token, 'string', JSON.stringify(issued));
        await executed(sdk(server.address, { ...OAUTH_APP, locationAccessToken: issued.access_token as string }), EXECUTIONS[0].run);
      }
    });
  });
}

describe(`the official SDK's files.getFileBySlug against the ${SANDBOX} style`, () => {
  let server: Listening;
  before(async () => {
    server = await start(SANDBOX);
  });
  after(() => server.close());

  test('hands over a short-lived signed URL of a secure file once it is private (§4.1 rule 5, §4.2)', async () => {
    const file = testFile('statement.pdf');
    const client = sdk(server.address, PIT);
    const secureUrl = await uploaded(client, server.address, file, true);
    const clock = await fetch(server.address + TEST_CLOCK_PATH, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ advanceSeconds: 3601 }) });
    assert.equal(clock.status, 200);
    assert.equal((await fetch(secureUrl)).ok, false, 'the secure URL is private after the hour');

    const slug = slugOf(secureUrl) as string;
    const answer = await client.ghl.files.getFileBySlug({ slug });
    assert.equal(client.sent.at(-1), `GET /files/d/${slug}`);
    // The SDK's FileResponseDto: the platform's answer, which the contract does not show.
    assert.deepEqual(Object.keys(answer).sort(), ['allow_download', 'asset_id', 'content_type', 'filename', 'size', 'url']);
    assert.deepEqual([answer.filename, answer.size], [file.name, file.bytes.length]);
    const read = await fetch(answer.url);
    assert.equal(read.status, 200);
    assert.equal(sha256(Buffer.from(await read.arrayBuffer())), file.sha256, 'the signed URL serves the file');
  });
});
