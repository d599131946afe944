// The preflight (`npm run doctor`, and the start of a live `npm run conformance`): before any test, is the target
// reachable, and does each variable hold what it promises? Each problem is one line: the variable, what was seen,
// what to do. It sends what a run sends anyway (one small upload, one execution), requests the target refuses, and
// asks for what STATE_DIR keeps of the target (src/preflight/kept-state.ts), through the suite's own client: answers are redacted, the rate limit and retries hold, no token is ever printed.
// Error codes are not shown by the contract, so it judges no code: an answer is an acceptance or a refusal, and a
// refusal is explained by comparing it with the answer to the same request changed in one place (a made-up token,
// a made-up agent, a path no server has).
import { accepted, Api, type Auth, type Fields, InfrastructureError, type Reply } from '../client/api.ts';
import { ConfigError, type Credential, environmentOf, loadConfig, pickIds, replayNotice, SECRETS, secretsByName, secretsOf, SETTINGS, type SuiteConfig, type Target } from '../config/config.ts';
import { FILE_FORM_KEY, PLATFORM_EXECUTE_PATH, UPLOAD_PATH } from '../contract/contract.ts';
import { ruleById, type RuleId } from '../contract/rules.ts';
import { type RequestFormCase, requestFormCases } from '../contract/cases.ts';
import { describeSpelling, type Spelling } from '../contract/spelling.ts';
import { offeredUrls, slugOf } from '../checks/discover.ts';
import { Evidence } from '../client/evidence.ts';
import { excerpt } from '../checks/expectations.ts';
import { Pace, RATE_WINDOW_MS } from '../client/politeness.ts';
import { SPENT_REASON, SpentRefreshTokens } from '../client/refresh-chain.ts';
import { redactText } from '../config/redact.ts';
import { type Regime, regimeAt, ServerClock } from '../time/server-clock.ts';
import { testFile } from '../files/test-file.ts';
import { Transport } from '../client/transport.ts';
import { checkKeptState, hasKeptState, keepsState } from './kept-state.ts';

export interface Preflight {
  /**
   * What makes every verdict meaningless, and stops the run: the target unreachable or serving no API, or ACCESS_TOKEN
   * refused as a token is on its own upload or execution. The variable, what was seen, what to do.
   */
  problems: string[];
  /**
   * What the run goes on with, and the matrix judges: a setting that looks wrong, or the server breaking a rule, each
   * line with both readings, the rule, and how to tell them apart. At most one per variable.
   */
  findings: string[];
  /** What the all-clear says: the server's clock, and what could not be seen. */
  notes: string[];
}

/** Stands for a token, an agent or a location that does not exist, so that a refusal of the real one can be compared with it. */
const MADE_UP = 'conformance-preflight-made-up-0000';
/** A path no server has: how the target answers an operation it does not serve. */
const ABSENT_PATH = '/__conformance-preflight/no-such-route';
const FILE = testFile('conformance-preflight.txt', 64);
const MESSAGE = 'Preflight of the conformance suite';

/** Why a configuration leaves nothing to check, or undefined when it names a target. */
export function nothingToCheck(config: SuiteConfig): string | undefined {
  if (config.mode === 'replay') return 'replay answers from the recorded fixtures and reaches no target';
  if (config.target === undefined) return 'the suite starts its own reference server (REFERENCE_SERVER=1)';
  return undefined;
}

/**
 * `npm run doctor`: the configuration read from `env` (with `strays`, the names of .env that are no setting), then
 * the target it names. Exit code 1 on any problem, and where a BASE_URL is set that no run of this mode would judge.
 */
export async function doctor(env: Record<string, string>, strays: readonly string[] = []): Promise<{ lines: string[]; exitCode: 0 | 1 }> {
  let config: SuiteConfig;
  try {
    config = loadConfig(env, strays);
  } catch (error) {
    if (!(error instanceof ConfigError)) throw error;
    return { lines: [`Preflight: ${count(error.problems.length, 'problem')} in the configuration (environment or .env)`, ...error.problems.map((line) => `  ${line}`)], exitCode: 1 };
  }
  const nothing = nothingToCheck(config);
  const notice = replayNotice(config);
  if (notice !== undefined) return { lines: [`Preflight: nothing to check: ${nothing}`, `  ${notice}`], exitCode: 1 };
  if (nothing !== undefined) return { lines: [`Preflight: nothing to check: ${nothing}`], exitCode: 0 };
  const result = await preflight(config, preflightPace(config, config.rateLimit));
  return { lines: describePreflight(config, result), exitCode: result.problems.length > 0 ? 1 : 0 };
}

/**
 * Checks the configured target, sending at most `ratePerWindow` requests per RATE_WINDOW_MS. `keptOnly`: only
 * whether the server still holds what STATE_DIR keeps of it (a run with SKIP_PREFLIGHT=1, where it keeps some).
 */
/** The pace of a preflight that may use `ratePerWindow` of RATE_LIMIT. */
export const preflightPace = (config: SuiteConfig, ratePerWindow: number) => new Pace(ratePerWindow, RATE_WINDOW_MS, ratePerWindow / config.rateLimit);

export async function preflight(config: SuiteConfig, pace: Pace, keptOnly = false): Promise<Preflight> {
  const target = config.target;
  if (target === undefined) throw new Error('preflight: the configuration names no target');
  const transport = new Transport(config.requestTimeoutMs, {
    limiter: pace,
    maxRetries: config.maxRetries,
    evidence: new Evidence(secretsByName(target)),
  });
  const api = new Api(transport, target, config, { onDeprecatedOperation: () => {}, onUnreachable: () => {} });
  const checkup = new Checkup(api, transport, target, config);
  return keptOnly ? checkup.keptOnly() : checkup.run();
}

/** Whether a run that skips the preflight (SKIP_PREFLIGHT=1) checks the state kept of its target: only where STATE_DIR keeps some. */
export const keptStateToCheck = (config: SuiteConfig) => config.target !== undefined && keepsState(config, config.target) && hasKeptState(config, config.target);

/** The preflight's report: a heading, then one line per problem (which stops the run), or per finding, or the all-clear's few lines. */
export function describePreflight(config: SuiteConfig, result: Preflight): string[] {
  const where = `Preflight of ${config.target?.baseUrl} (API ${config.apiVersion})`;
  const lines =
    result.problems.length > 0 ? [`${where}: ${count(result.problems.length, 'problem')}`, ...result.problems, ...result.findings]
    : result.findings.length > 0 ? [`${where}: ${count(result.findings.length, 'finding')} (the run goes on, and its matrix judges the rules named)`, ...result.findings, ...result.notes]
    : [`${where}: all clear`, ...result.notes];
  const secrets = config.target === undefined ? [] : secretsOf(config.target);
  return lines.map((line, i) => (i === 0 ? line : `  ${redactText(line, secrets)}`));
}

const count = (n: number, what: string) => `${n} ${what}${n === 1 ? '' : 's'}`;

/** An answer as a line may show it: status and the start of the body, secrets redacted. */
const answer = (reply: Reply) => `${reply.status} ${excerpt(reply).replace(/\s+/g, ' ')}`.trim();

/** How the scope files.readonly shows on GET /files/d/{slug}: held, lacking, or not promised either way (the token need only be valid). */
const SCOPE_PROMISES: readonly { key: Credential; holds: boolean | undefined }[] = [
  { key: 'filesReadonly', holds: true },
  { key: 'access', holds: false },
  { key: 'noFilesScope', holds: false },
  { key: 'foreignAccess', holds: undefined },
  { key: 'agencyAccess', holds: undefined },
];

class Checkup {
  readonly #problems = new Map<string, string>();
  readonly #findings = new Map<string, string>();
  readonly #notes: string[] = [];
  /** What was accepted, and what was refused or held as promised. */
  readonly #accepted: string[] = [];
  readonly #promised: string[] = [];
  readonly #unseen: string[] = [];
  readonly #absent = new Map<string, Reply>();
  /**
   * ACCESS_TOKEN refused on its own upload as a token is refused (401, 403, or exactly as a made-up token): a
   * configuration problem whatever the rest says (the contract shows no scope for the upload, §5 item 7), named once
   * the execution has told whether the token reaches LOCATION_ID.
   */
  #uploadRefused: { seen: string; asMadeUp: boolean } | undefined;

  constructor(
    /** The client of the checks; written in another form once the server is found to refuse the suite's own. */
    private api: Api,
    private readonly transport: Transport,
    private readonly target: Target,
    private readonly config: SuiteConfig,
  ) {}

  async run(): Promise<Preflight> {
    if (await this.#reach()) {
      const now = await this.#clock();
      const upload = await this.#unjudged('the upload and its signed URL', () => this.#upload(now === undefined ? undefined : regimeAt(now)));
      // A BASE_URL that serves no API: every further answer would only repeat it.
      if (!this.#problems.has('BASE_URL')) {
        if (upload) await this.#unjudged('the scopes on GET /files/d/{slug}', () => this.#scopes(upload));
        if (upload) await this.#unjudged(`what ${this.config.stateDir}/ keeps of this server`, () => this.#keptState(upload));
        if (await this.#unjudged('the execution', () => this.#execute())) await this.#unjudged('the refused executions', () => this.#refusedExecutions());
        if (upload) await this.#unjudged('the conversation on another channel and the agent of another location', () => this.#otherWorld());
        await this.#unjudged('the operations\' paths', () => this.#routes());
      }
      // The execution could not tell where the refusal comes from (the network failed it): the upload's refusal alone.
      if (this.#uploadRefused && !this.#problems.has('ACCESS_TOKEN')) {
        this.#problem('ACCESS_TOKEN', this.#uploadRefused.seen, `give a valid token of LOCATION_ID that may upload (its scope for POST ${UPLOAD_PATH}: the contract shows none, §5 item 7), and check that LOCATION_ID is its sub-account`);
      }
    }
    const { tokens } = this.target;
    if (tokens.oauthRefreshToken !== undefined && new SpentRefreshTokens(this.config.stateDir, new URL(this.target.baseUrl).origin).has(tokens.oauthRefreshToken)) {
      this.#notes.push(`${SETTINGS.oauthRefreshToken.env}: ${SPENT_REASON}; the refresh checks skip`);
    }
    if (tokens.pit !== undefined) this.#unseen.push('PIT_TOKEN (a target may refuse PITs as it refuses unknown tokens)');
    if (tokens.oauthRefreshToken !== undefined) this.#unseen.push('OAUTH_REFRESH_TOKEN, OAUTH_CLIENT_SECRET (an exchange would spend the refresh token)');
    return this.#result();
  }

  /** Only the state kept of the target, beside one secure upload of this run. */
  async keptOnly(): Promise<Preflight> {
    const upload = await this.#unjudged('the upload the kept state is asked for beside', () => this.#send('the upload the kept state is asked for beside', this.#uploadFields()));
    if (upload !== undefined && accepted(upload)) await this.#unjudged(`what ${this.config.stateDir}/ keeps of this server`, () => this.#keptState(upload));
    return this.#result();
  }

  #result(): Preflight {
    const line = (title: string, items: string[]) => (items.length > 0 ? [`${title}: ${items.join('; ')}`] : []);
    const notes = [...this.#notes, ...line('accepted', this.#accepted), ...line('as promised', this.#promised), ...line('not seen', this.#unseen)];
    return { problems: [...this.#problems.values()], findings: [...this.#findings].filter(([env]) => !this.#problems.has(env)).map(([, line]) => line), notes };
  }

  /** The preflight's secure upload to CONVERSATION_ID naming CONTACT_ID too. */
  #uploadFields(): Fields {
    return this.api.uploadFields({ contactId: this.target.contactId, isSecureAttachment: 'true' });
  }

  #send(label: string, sent: Fields, auth: Auth = 'access'): Promise<Reply> {
    return this.api.upload(label, { fields: sent, files: [FILE], auth });
  }

  /** What STATE_DIR keeps of the target, still held by the server or lost with it (src/preflight/kept-state.ts). */
  async #keptState(upload: Reply): Promise<void> {
    if (!keepsState(this.config, this.target)) return;
    const state = await checkKeptState(this.api, this.config, this.target, upload);
    if (state.kind === 'held') this.#promised.push(`what ${this.config.stateDir}/ keeps of this server, which it still holds`);
    if (state.kind !== 'lost') return;
    this.#finding(
      SETTINGS.stateDir.env,
      `the server holds none of what earlier runs kept of it (${state.seen}), while it gives this run's upload: either it was reset or replaced since`,
      `what was kept of the server that is gone is forgotten, never judged (${state.forgotten}); to start afresh yourself after a reset: rm -rf ${this.config.stateDir}`,
      { id: 'PERMANENT-URL-LASTS', tell: "it loses the files it holds, which breaks SECURE-SIGNED-URL too: the run judges both on this run's uploads, kept from now on" },
    );
  }

  /** A probe the network failed (a gateway's 5xx on a POST, faults past the retries): no problem of the setup, the run judges it. */
  async #unjudged<T>(what: string, probe: () => Promise<T>): Promise<T | undefined> {
    try {
      return await probe();
    } catch (error) {
      if (!(error instanceof InfrastructureError)) throw error;
      this.#notes.push(`${what}: not checked, the network failed (${error.message.split('\n')[0]}); the run judges it`);
      return undefined;
    }
  }

  /** What stops the run. The first problem of each variable: a later check that trips on the same variable would only repeat it. */
  #problem(env: string, seen: string, todo: string): void {
    if (!this.#problems.has(env)) this.#problems.set(env, `${this.#named(env)}: ${seen}; ${todo}`);
  }

  /**
   * What the run goes on with: a setting to check, or the rule `rule` the server may break where the same answer
   * explains both, and how to tell them apart. The first finding of each variable.
   */
  #finding(env: string, seen: string, todo: string, rule?: { id: RuleId; tell: string }): void {
    const reading = rule === undefined ? '' : `; or the server breaks ${rule.id} (${ruleById(rule.id).title}), which the run judges: ${rule.tell}`;
    if (!this.#findings.has(env)) this.#findings.set(env, `${this.#named(env)}: ${seen}; ${todo}${reading}`);
  }

  /** `LOCATION_ID=loc-1`; a secret by its name alone. */
  #named(env: string): string {
    const secret = SECRETS.some((key) => SETTINGS[key].env === env);
    const values = new Map([...environmentOf(this.target), [SETTINGS.replacementPath.env, this.config.replacementPath], [SETTINGS.stateDir.env, this.config.stateDir]]);
    return secret || !values.has(env) ? env : `${env}=${values.get(env)}`;
  }

  async #reach(): Promise<boolean> {
    try {
      await this.transport.fetch({ method: 'HEAD', url: this.target.baseUrl, headers: {}, maxRedirects: 0 });
      return true;
    } catch (error) {
      const message = (error as Error).message.split('\n')[0];
      if (/ECONNREFUSED/.test(message)) {
        this.#problem('BASE_URL', `connection refused (${message})`, 'start the server, or set BASE_URL to the address it listens on');
      } else {
        this.#problem('BASE_URL', `no HTTP answer (${message})`, 'check the address, its DNS name, TLS, and any proxy or firewall on the way');
      }
      return false;
    }
  }

  /** The server's now, as the suite reads it: its test clock, else its Date header. */
  async #clock(): Promise<number | undefined> {
    const { testClockUrl } = this.target;
    try {
      const before = Date.now();
      const now = await new ServerClock(this.transport, this.target.baseUrl, testClockUrl).now();
      const offset = now - (before + Date.now()) / 2;
      this.#notes.push(`server clock ${new Date(now).toISOString()} by its ${testClockUrl ? 'test clock' : 'Date header'}, ${describeOffset(offset)} this machine's`);
      return now;
    } catch (error) {
      const message = (error as Error).message.split('\n')[0];
      if (testClockUrl) this.#finding('TEST_CLOCK_URL', message, "unset it if the target has no test clock, or give its clock's URL");
      else this.#finding('TEST_CLOCK_URL', `is not set, and ${message}`, "time-bound rules cannot be judged: set TEST_CLOCK_URL to the target's test clock if it has one");
      return undefined;
    }
  }

  /**
   * One secure upload to CONVERSATION_ID naming CONTACT_ID too. Refused, it is sent again changed in one place at a
   * time, and the first change that is accepted names the variable at fault; at most one upload is ever accepted.
   */
  async #upload(regime: Regime | undefined): Promise<Reply | undefined> {
    const fields = this.#uploadFields();
    const send = (label: string, sent: Fields, auth: Auth = 'access') => this.#send(label, sent, auth);
    const first = await send('the preflight upload', fields);
    const refused = `POST ${UPLOAD_PATH} answered ${answer(first)} to the fields ${JSON.stringify(fields)} and ${FILE.name} (${FILE.bytes.length} bytes) under ${FILE_FORM_KEY}`;
    // Refused, or "accepted" with a body that is no JSON (an HTML page): the answer of a path no server has says BASE_URL.
    if ((!accepted(first) || first.json() === undefined) && (await this.#routeMissing(first))) {
      this.#problem('BASE_URL', `does not serve this API: ${refused}, exactly as a path no server has (${first.method} ${ABSENT_PATH})`, 'set BASE_URL to the base address of the API (with its path prefix, if any)');
      return undefined;
    }
    if (accepted(first)) {
      this.#accepted.push(`a secure upload to CONVERSATION_ID and CONTACT_ID in LOCATION_ID with ACCESS_TOKEN (${first.status})`);
      if (regime === 'after') this.#unseen.push("CONVERSATION_ID's channel (after the cutover every upload is secure, whatever the channel)");
      return first;
    }
    const madeUp = await send('the same upload with a made-up token', fields, { bearer: MADE_UP });
    const asMadeUp = this.#same(first, madeUp);
    // Before a token is blamed: the same upload in the other forms HTTP and multipart permit.
    const respelled = await this.#inAnotherForm('upload', refused, (spelling, label) => this.api.upload(label, { fields, files: [FILE], spelling }));
    if (respelled) return respelled;
    if (asMadeUp || refusesToken(first)) {
      this.#uploadRefused = { seen: `${refused}${asMadeUp ? ', exactly as to a made-up token' : ` (a made-up token: ${madeUp.status})`}`, asMadeUp };
      return undefined;
    }
    const { isSecureAttachment: _secure, ...plain } = fields;
    const { contactId: _contact, ...conversationOnly } = plain;
    const { conversationId: _conversation, ...contactOnly } = plain;
    const variants = [
      ...(regime === 'after' ? [] : [{ fields: plain, env: 'CONVERSATION_ID', change: 'without isSecureAttachment', todo: 'it is not of the email channel, the only one taking secure attachments before 30 November 2026: give an email conversation of LOCATION_ID' }]),
      { fields: conversationOnly, env: 'CONTACT_ID', change: 'without isSecureAttachment and contactId', todo: 'give a contact of LOCATION_ID' },
      { fields: contactOnly, env: 'CONVERSATION_ID', change: 'without isSecureAttachment and conversationId', todo: 'give an email conversation of LOCATION_ID' },
    ];
    for (const variant of variants) {
      const reply = await send(`the same upload ${variant.change}`, variant.fields);
      if (accepted(reply)) {
        this.#finding(variant.env, `${refused}; the same upload ${variant.change} was accepted`, variant.todo);
        return reply;
      }
    }
    this.#finding('LOCATION_ID', `${refused}, and with one of conversationId or contactId alone too`, 'give the sub-account ACCESS_TOKEN belongs to, and a token that may upload into it');
    return undefined;
  }

  /** files.readonly held or lacking as each token's variable promises, seen on GET /files/d/{slug} of the upload. */
  async #scopes(upload: Reply): Promise<void> {
    const slug = offeredUrls(upload).map(slugOf).find((found) => found !== undefined);
    if (slug === undefined) {
      this.#unseen.push('the scopes of the tokens (the upload offered no URL of the form /files/d/{slug})');
      return;
    }
    const ask = (label: string, auth: Auth) => this.api.signedUrlFor(label, slug, auth);
    const madeUp = await ask('GET /files/d/{slug} with a made-up token', { bearer: MADE_UP });
    const answers = new Map<Credential, Reply>();
    for (const { key } of SCOPE_PROMISES) {
      if (this.target.tokens[key] !== undefined) answers.set(key, await ask(`GET /files/d/{slug} with ${SETTINGS[key].env}`, key));
    }
    // The target tells a valid token lacking the scope from an unknown one only if ACCESS_TOKEN's refusal differs from the made-up token's.
    const access = answers.get('access');
    const tellsUnknown = access !== undefined && !accepted(access) && !this.#same(access, madeUp);
    const seen = (reply: Reply) => `GET /files/d/{slug} of the preflight upload answered ${answer(reply)}`;
    this.#promised.push(`files.readonly held or lacking by ${[...answers.keys()].map((key) => SETTINGS[key].env).join(', ')}`);
    for (const { key, holds } of SCOPE_PROMISES) {
      const reply = answers.get(key);
      const env = SETTINGS[key].env;
      if (reply === undefined) continue;
      if (holds === true && !accepted(reply)) {
        const served = { id: 'SECURE-SIGNED-URL' as const, tell: `if ${env} holds files.readonly in the platform (and works elsewhere), the refusal is the server's` };
        if (await this.#routeMissing(reply)) {
          this.#finding(env, `${seen(reply)}, as a path no server has`, 'BASE_URL is right for the upload', { ...served, tell: 'the upload at the same BASE_URL was accepted, so the server does not serve GET /files/d/{slug}' });
        } else if (this.#same(reply, madeUp)) this.#finding(env, `${seen(reply)}, exactly as to a made-up token`, 'it is unknown or expired: give a valid token of LOCATION_ID holding files.readonly', served);
        else this.#finding(env, seen(reply), 'give a token of LOCATION_ID holding files.readonly', served);
      } else if (holds === false && accepted(reply)) {
        const tell = accepted(madeUp)
          ? `a made-up token gets a signed URL too (${madeUp.status}), so the server checks no token: the rule is broken whatever ${env} holds`
          : `a made-up token is refused (${madeUp.status}), so the server checks tokens; if ${env} lacks files.readonly in the platform, it does not check the scope`;
        this.#finding(env, `${seen(reply)}: either it holds files.readonly`, 'then give a token without it (the privacy checks need one)', { id: 'SECURE-SCOPE-REQUIRED', tell });
      } else if (holds !== true && !accepted(reply) && tellsUnknown && this.#same(reply, madeUp)) {
        this.#finding(env, `${seen(reply)}, exactly as to a made-up token and unlike ACCESS_TOKEN`, `it is unknown or expired: give ${SETTINGS[key].purpose.replace(/^optional: /, '')}`);
      }
    }
    if (!tellsUnknown) this.#unseen.push('whether the tokens lacking files.readonly are valid (the target refuses them as it refuses a made-up token)');
  }

  /** One execution of AGENT_ID; refused, compared with a made-up token and a made-up agent to name the variable at fault. */
  async #execute(): Promise<boolean> {
    const body = { message: MESSAGE, locationId: this.target.locationId };
    const first = await this.api.execute('the preflight execution', { body });
    const upload = this.#uploadRefused;
    if (accepted(first)) {
      this.#accepted.push(`an execution of AGENT_ID (${first.status})`);
      if (upload) this.#problem('ACCESS_TOKEN', `${upload.seen}, while it executes AGENT_ID in LOCATION_ID`, `it may not upload: give it the permission to upload into LOCATION_ID (its scope for POST ${UPLOAD_PATH}: the contract shows none, §5 item 7), or give a token that has it`);
      return true;
    }
    // A location the upload already found at fault explains this refusal too.
    if (this.#findings.has('LOCATION_ID')) return false;
    const refused = `POST ${new URL(first.url).pathname} answered ${answer(first)} to ${JSON.stringify(body)}`;
    if (await this.#inAnotherForm('execute', refused, (spelling, label) => this.api.execute(label, { body, spelling }))) return true;
    const madeUpToken = async () => this.#same(first, await this.api.execute('the same execution with a made-up token', { body, auth: { bearer: MADE_UP } }));
    const madeUpAgent = async () => this.#same(first, await this.api.execute('the same execution of a made-up agent', { body, agentId: MADE_UP }));
    if (await this.#routeMissing(first)) {
      if (upload) this.#problem('ACCESS_TOKEN', `${upload.seen}; and ${refused}, as a path no server has`, 'give a valid token of LOCATION_ID that may upload, and check BASE_URL');
      else if (!this.#problems.has('BASE_URL')) {
        this.#finding('BASE_URL', `${refused}, as a path no server has`, 'BASE_URL is right for the upload', { id: 'DEPRECATED-STILL-SERVED', tell: 'the upload at the same BASE_URL was accepted, so the deprecated path is gone from this server' });
      }
    } else if (upload) {
      // Refused on its upload and its execution: no verdict of the run would mean anything.
      const asMadeUp = upload.asMadeUp && (await madeUpToken());
      if (asMadeUp) this.#problem('ACCESS_TOKEN', `refused on the upload and on ${refused}, each time exactly as a made-up token`, 'it is unknown or expired: give a valid token of LOCATION_ID that may upload and execute');
      else this.#problem('ACCESS_TOKEN', `${upload.seen}; and ${refused}`, `either LOCATION_ID=${this.target.locationId} is not the sub-account it belongs to, or it may neither upload nor execute there (the contract shows no scope for either, §5 item 7): check both`);
    } else if (refusesToken(first) || (await madeUpToken())) {
      // Refused as a token is, where its upload was accepted: the token's or the agent's setting, never a verdict (§5 item 7).
      this.#problem('ACCESS_TOKEN', `${refused}, where its upload was accepted`, `either it may not execute agents: give it the permission to (its scope for this path: the contract shows none, §5 item 7); or AGENT_ID=${this.target.agentId} is not an agent of LOCATION_ID: check both`);
    } else if (await madeUpAgent()) {
      this.#finding('AGENT_ID', `${refused}, exactly as for a made-up agent`, 'give an active agent of LOCATION_ID');
    } else {
      this.#finding('AGENT_ID', refused, 'give an active agent of LOCATION_ID (or a token that may execute it)', {
        id: 'DEPRECATED-STILL-SERVED',
        tell: "if AGENT_ID is active and of LOCATION_ID in the platform, and ACCESS_TOKEN may execute it, the refusal is the server's",
      });
    }
    return false;
  }

  /** INACTIVE_AGENT_ID and FOREIGN_LOCATION_ID must be refused where AGENT_ID with LOCATION_ID was accepted. */
  async #refusedExecutions(): Promise<void> {
    const { inactiveAgentId, foreignLocationId, locationId } = this.target;
    if (foreignLocationId !== undefined && foreignLocationId === locationId) {
      this.#finding('FOREIGN_LOCATION_ID', 'is LOCATION_ID itself', 'give a location AGENT_ID does not belong to');
    }
    // Accepted, each is explained alike by the setting (the agent is active, the agent belongs to that location) and by
    // a server that does not check; the same execution of a made-up agent or location tells a server that checks nothing.
    const cases = [
      { env: 'INACTIVE_AGENT_ID', value: inactiveAgentId, agentId: inactiveAgentId, location: locationId, rule: 'AGENT-INACTIVE' as const, either: 'either it is active', todo: 'then give an agent of LOCATION_ID that is not active', madeUp: { agentId: MADE_UP, location: locationId, what: 'a made-up agent', checks: 'agents' }, platform: 'INACTIVE_AGENT_ID is not active in the platform, the server runs inactive agents' },
      { env: 'FOREIGN_LOCATION_ID', value: foreignLocationId, agentId: this.target.agentId, location: foreignLocationId, rule: 'AGENT-FOREIGN-LOCATION' as const, either: 'either AGENT_ID belongs to it', todo: 'then give a location AGENT_ID does not belong to', madeUp: { agentId: this.target.agentId, location: MADE_UP, what: 'a made-up location', checks: 'locations' }, platform: 'AGENT_ID does not belong to FOREIGN_LOCATION_ID in the platform, the server runs agents for other locations' },
    ];
    for (const { env, value, agentId, location, rule, either, todo, madeUp, platform } of cases) {
      if (value === undefined || this.#findings.has(env)) continue;
      const body = { message: MESSAGE, locationId: location as string };
      const reply = await this.api.execute(`an execution with ${env}`, { agentId, body });
      if (!accepted(reply)) {
        this.#promised.push(`${env} refused (${reply.status})`);
        continue;
      }
      const control = await this.api.execute(`the same execution with ${madeUp.what}`, { agentId: madeUp.agentId, body: { message: MESSAGE, locationId: madeUp.location as string } });
      const tell = accepted(control)
        ? `${madeUp.what} is executed too (${control.status}), so the server checks no ${madeUp.checks}: the rule is broken whatever ${env} is`
        : `${madeUp.what} is refused (${control.status}); if ${platform}`;
      this.#finding(env, `POST ${new URL(reply.url).pathname} with ${JSON.stringify(body)} was accepted (${reply.status}): ${either}`, todo, { id: rule, tell });
    }
  }

  /**
   * The world of the generated sequences (specs/model.spec.ts), where it is set: NON_EMAIL_CONVERSATION_ID takes a plain
   * upload (its channel cannot be seen: only that it is a conversation of LOCATION_ID), and FOREIGN_AGENT_ID runs for
   * FOREIGN_LOCATION_ID with FOREIGN_ACCESS_TOKEN, as FOREIGN_CONVERSATION_ID and FOREIGN_CONTACT_ID take its upload:
   * the controls without which no refusal of them to a token of LOCATION_ID proves anything.
   */
  async #otherWorld(): Promise<void> {
    await this.#nonEmail();
    await this.#foreignAgent();
    await this.#foreignTargets();
  }

  /** A variable already found at fault explains a refusal here too: one line for it, not two. */
  #atFault(...envs: string[]): boolean {
    return envs.some((env) => this.#findings.has(env) || this.#problems.has(env));
  }

  async #nonEmail(): Promise<void> {
    const { nonEmailConversationId, conversationId } = this.target;
    const env = SETTINGS.nonEmailConversationId.env;
    if (nonEmailConversationId === undefined || this.#atFault('CONVERSATION_ID', 'LOCATION_ID')) return;
    if (nonEmailConversationId === conversationId) return this.#finding(env, 'is CONVERSATION_ID itself, of the email channel', 'give a conversation of LOCATION_ID on another channel');
    const fields = this.api.uploadFields({ conversationId: nonEmailConversationId });
    const reply = await this.#send(`an upload to ${env}`, fields);
    if (accepted(reply)) this.#accepted.push(`an upload to ${env} (${reply.status})`);
    else this.#finding(env, `POST ${UPLOAD_PATH} answered ${answer(reply)} to the fields ${JSON.stringify(fields)}, where the same upload to CONVERSATION_ID was accepted`, 'give a conversation of LOCATION_ID on a channel other than email');
  }

  async #foreignAgent(): Promise<void> {
    const { foreignAgentId, foreignLocationId, agentId, tokens } = this.target;
    const env = SETTINGS.foreignAgentId.env;
    if (foreignAgentId === undefined || foreignLocationId === undefined || tokens.foreignAccess === undefined || this.#atFault('FOREIGN_LOCATION_ID', 'FOREIGN_ACCESS_TOKEN')) return;
    if (foreignAgentId === agentId) return this.#finding(env, 'is AGENT_ID itself, an agent of LOCATION_ID', 'give an active agent of FOREIGN_LOCATION_ID');
    const body = { message: MESSAGE, locationId: foreignLocationId };
    const reply = await this.api.execute(`${env} for FOREIGN_LOCATION_ID with FOREIGN_ACCESS_TOKEN`, { agentId: foreignAgentId, auth: 'foreignAccess', body });
    if (accepted(reply)) this.#accepted.push(`an execution of ${env} with FOREIGN_ACCESS_TOKEN (${reply.status})`);
    else this.#finding(env, `POST ${new URL(reply.url).pathname} with FOREIGN_ACCESS_TOKEN answered ${answer(reply)} to ${JSON.stringify(body)}`, 'give an active agent of FOREIGN_LOCATION_ID that FOREIGN_ACCESS_TOKEN may run (without it, no refusal of it to a token of LOCATION_ID proves anything)');
  }

  async #foreignTargets(): Promise<void> {
    const { foreignLocationId, tokens } = this.target;
    if (foreignLocationId === undefined || tokens.foreignAccess === undefined || this.#atFault('FOREIGN_LOCATION_ID', 'FOREIGN_ACCESS_TOKEN')) return;
    const targets = [
      { key: 'foreignConversationId', field: 'conversationId', own: 'conversationId', todo: 'give an email conversation of FOREIGN_LOCATION_ID' },
      { key: 'foreignContactId', field: 'contactId', own: 'contactId', todo: 'give a contact of FOREIGN_LOCATION_ID' },
    ] as const;
    for (const { key, field, own, todo } of targets) {
      const value = this.target[key];
      const env = SETTINGS[key].env;
      if (value === undefined) continue;
      if (value === this.target[own]) {
        // Where that variable is itself at fault (set to this very foreign contact), its line says all.
        if (!this.#atFault(SETTINGS[own].env)) this.#finding(env, `is ${SETTINGS[own].env} itself, of LOCATION_ID`, todo);
        continue;
      }
      const fields = { locationId: foreignLocationId, [field]: value, attachmentUrls: this.api.uploadFields().attachmentUrls };
      const reply = await this.#send(`an upload to ${env} with FOREIGN_ACCESS_TOKEN`, fields, 'foreignAccess');
      if (accepted(reply)) this.#accepted.push(`an upload to ${env} with FOREIGN_ACCESS_TOKEN (${reply.status})`);
      else this.#finding(env, `POST ${UPLOAD_PATH} with FOREIGN_ACCESS_TOKEN answered ${answer(reply)} to the fields ${JSON.stringify(fields)}`, `${todo} that FOREIGN_ACCESS_TOKEN may upload into (without it, no refusal of it to a token of LOCATION_ID proves anything)`);
    }
  }

  /** The operations the run reaches without a valid body: each must be served where it is configured. */
  async #routes(): Promise<void> {
    const probes = [
      { env: SETTINGS.replacementPath.env, path: this.config.replacementPath, send: () => this.api.execute('the replacement path with an empty body', { path: 'replacement', body: {} }), todo: `set the path the target serves the replacement execute operation at (the live platform: ${PLATFORM_EXECUTE_PATH})`, rule: 'REPLACEMENT-EXISTS' as RuleId },
      ...(this.target.tokens.oauthRefreshToken === undefined ? [] : [{ env: 'BASE_URL', path: '/oauth/token', send: () => this.api.oauthToken('POST /oauth/token with an empty form', {}), todo: 'set BASE_URL to the base address the token endpoints share with the API', rule: 'OAUTH-REFRESH' as RuleId }]),
      ...(this.target.tokens.agencyAccess === undefined ? [] : [{ env: 'BASE_URL', path: '/oauth/location-token', send: () => this.api.locationToken('POST /oauth/location-token without a token', 'none'), todo: 'set BASE_URL to the base address the token endpoints share with the API', rule: 'OAUTH-LOCATION-TOKEN' as RuleId }]),
    ];
    for (const { env, path, send, todo, rule } of probes) {
      const reply = await send();
      // Sent without what it needs, a served operation refuses it for that; 404 or 405 says the path is not there.
      if (reply.status === 404 || reply.status === 405 || (await this.#routeMissing(reply))) {
        this.#finding(env, `POST ${path} answered ${answer(reply)}, as a path the target does not serve`, todo, { id: rule, tell: `where the target documents the operation at ${path}, it does not serve it there` });
      }
    }
  }

  /**
   * 405, or the target's answer to a path no server has (a 404, a static server's 501 or HTML page): the operation is
   * not where it was sent. Never a 401 or 403, which a gateway may give any path before routing: the token's to explain.
   */
  async #routeMissing(reply: Reply): Promise<boolean> {
    if (reply.status === 405) return true;
    if (refusesToken(reply)) return false;
    const absent = this.#absent.get(reply.method) ?? (await this.api.anonymous(`${reply.method} a path no server has`, `${this.target.baseUrl}${ABSENT_PATH}`, { method: reply.method, headers: this.api.headers('access') }));
    this.#absent.set(reply.method, absent);
    return this.#same(reply, absent);
  }

  /**
   * A request the server refused in the suite's own form, sent again in each other form HTTP and multipart permit
   * (specs/cases/request-forms.json): the first one accepted says the server refuses a permitted form, its fault and
   * no setting's, and the run goes on to judge it (HTTP-REQUEST-FORMS, and every rule its refusal breaks).
   */
  async #inAnotherForm(operation: RequestFormCase['operation'], refused: string, send: (spelling: Spelling, label: string) => Promise<Reply>): Promise<Reply | undefined> {
    for (const row of requestFormCases().filter((candidate) => candidate.operation === operation)) {
      const form = describeSpelling(row.spelling);
      const reply = await send(row.spelling, `the same ${operation} with ${form}`);
      if (!accepted(reply)) continue;
      const { id, title } = ruleById('HTTP-REQUEST-FORMS');
      this.#finding(id, `${refused}, in the suite's own form; the same ${operation} with ${form} was accepted (${reply.status})`, `the server refuses a form ${row.rfc} permits (${title}): no setting is at fault, and the run judges it`);
      // The settings are checked on in the form the server takes, so that its refusal of the other is blamed on none.
      this.api = this.api.spelledAs(row.spelling);
      this.#notes.push(`the settings were checked with ${form}, the form the server takes`);
      return reply;
    }
    return undefined;
  }

  /** Two answers alike but for the paths they were sent to and the identifiers they name. */
  #same(a: Reply, b: Reply): boolean {
    const blanks = [new URL(a.url).pathname, new URL(b.url).pathname, MADE_UP, ...Object.values(pickIds(this.target))]
      .filter((value): value is string => value !== undefined && value.length > 0)
      .sort((x, y) => y.length - x.length);
    const key = (reply: Reply) => `${reply.status} ${blanks.reduce((text, value) => text.split(value).join('…'), reply.shown())}`;
    return key(a) === key(b);
  }
}

/** Refused as a token is: 401 (no valid credentials) or 403 (credentials without the right), RFC 9110 §15.5.2, §15.5.4. */
const refusesToken = (reply: Reply) => reply.status === 401 || reply.status === 403;

/** `3 s ahead of`, `35 d 2 h behind`, `within a second of`. */
function describeOffset(ms: number): string {
  const seconds = Math.round(Math.abs(ms) / 1000);
  if (seconds === 0) return 'within a second of';
  const parts = [
    [Math.floor(seconds / 86_400), 'd'],
    [Math.floor((seconds % 86_400) / 3600), 'h'],
    [Math.floor((seconds % 3600) / 60), 'min'],
    [seconds % 60, 's'],
  ].filter(([n]) => n !== 0);
  return `${parts.slice(0, 2).map(([n, unit]) => `${n} ${unit}`).join(' ')} ${ms > 0 ? 'ahead of' : 'behind'}`;
}
