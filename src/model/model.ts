// A model of the contract's state: the files a run uploaded (bytes, name, URL, instant, secure or permanent), the
// sessions it opened, the tokens it holds and what each must reach, the server's clock and the regime of the dated
// change. For each operation it says what the contract allows the answer to be (exactly, a set, or open), and a
// disagreement names the rule of the catalogue it breaks.
import { accepted, type Auth, refused, type Reply, serves } from '../client/api.ts';
import { SECURE_PUBLIC_WINDOW_SECONDS } from '../contract/contract.ts';
import type { RuleId } from '../contract/rules.ts';
import type { TestFile } from '../files/test-file.ts';
import { excerpt } from '../checks/expectations.ts';
import { type Regime, regimeAt } from '../time/server-clock.ts';

/** A rule the server's answer breaks. */
export class Disagreement extends Error {
  /** How many steps of its sequence had run when it was noted (Model.ran). */
  at: number | undefined;

  constructor(
    readonly rule: RuleId,
    message: string,
  ) {
    super(message);
  }
}

/** A step a correct server may refuse for a reason the contract leaves open (a wire form, a shape not shown): no verdict. */
export class NotApplicable extends Error {}

/** Where an upload goes: the email conversation, the contact, both, or a conversation of another channel. */
export type UploadTarget = 'conversation' | 'contact' | 'both' | 'non-email';
export type SecureFlag = 'absent' | 'false' | 'true';

/**
 * How far a test clock may have run on since the model last set or read it (a clock may run once set; the suite's
 * pace and retries delay requests): ages within this of an edge, and instants within it of a regime's end, are open.
 */
export const CLOCK_SLACK_MS = 300_000;

const WINDOW_MS = SECURE_PUBLIC_WINDOW_SECONDS * 1000;

export interface ModelFile {
  /** `#3`: the third file the run uploaded. */
  label: string;
  file: TestFile;
  url: string;
  /** Secure (its URL public for the hour, then private) or permanent (§4.1 rule 3). */
  kind: 'secure' | 'permanent';
  /** The server's time of the upload, by the model's clock: the earliest it may have been taken at. */
  uploadedAt: number;
  /** The latest it may have been taken at, where later: the clock moved on while it was in flight (a step at once). */
  uploadedBy?: number;
  /** Which upload of the run it came with. */
  upload: number;
  /** LOCATION_ID, or FOREIGN_LOCATION_ID (src/contract/relations.ts): what one location uploads must change no file of the other. */
  location: 'own' | 'other';
  /** The run asked for its signed URL with files.readonly (GET /files/d/{slug}). */
  signed?: boolean;
}

export interface ModelSession {
  label: string;
  path: 'deprecated' | 'replacement';
  executionId: string;
  turns: number;
  /** The token that runs it. */
  caller: ModelToken;
}

/** A token of LOCATION_ID the run holds: configured, or obtained by an exchange; each must reach LOCATION_ID and no other. */
export interface ModelToken {
  label: string;
  auth: Auth;
  /** An exchanged token: the rule that guarantees it uploads and executes in LOCATION_ID. */
  issuedBy?: 'OAUTH-REFRESH' | 'OAUTH-LOCATION-TOKEN';
  /** When it was issued, by the model's clock. */
  issuedAt?: number;
  /** Its number among the run's exchanges. */
  exchange?: number;
  /** When its expires_in says it expires, where the answer gave one (RFC 6749 §5.1). */
  expiresAt?: number;
}

export class Model {
  readonly files: ModelFile[] = [];
  readonly sessions: ModelSession[] = [];
  readonly tokens: ModelToken[];
  /** Each interactionId of the run, with the executionId of the session it was given in. */
  readonly interactionIds = new Map<string, string>();
  /** Disagreements that leave the model's state sound (a file of the wrong kind, a read, a refusal that was due): the sequence goes on. */
  readonly noted: Disagreement[] = [];
  uploads = 0;
  /** How many steps of the sequence have begun to run (run.ts numbers them). */
  ran = 0;
  /** Tokens obtained by exchange so far: each is labelled by its number. */
  exchanges = 0;
  /** The refresh tokens being spent now, each with how many exchanges spend it together (tokens.ts). */
  readonly refreshing = new Map<string, { together: number }>();
  /** The file and the session the last step acted on: a step drawn with FOCUS acts on them too (step.ts). */
  readonly focus: { file?: ModelFile; session?: ModelSession } = {};
  /** Whether the foreign agent ran with its own location's token, the control of every refusal there. */
  foreignControl: 'unknown' | 'accepted' | 'refused' = 'unknown';

  constructor(
    /** The server's time as the model knows it: set by the model with a test clock, else read once. */
    public now: number,
    readonly movable: boolean,
    configured: ModelToken,
  ) {
    this.tokens = [configured];
  }

  /**
   * The state as it is now, and how to go back to it: the judge of two steps at once (overlaps.ts) tries one order of
   * their answers, and goes back to try the other.
   */
  checkpoint(): () => void {
    const files = [...this.files];
    const sessions = [...this.sessions];
    const tokens = [...this.tokens];
    const signed = files.map((file) => file.signed);
    const turns = sessions.map((session) => session.turns);
    const interactionIds = [...this.interactionIds];
    const { now, foreignControl, uploads, exchanges } = this;
    const noted = this.noted.length;
    const focus = { ...this.focus };
    return () => {
      this.files.splice(0, Infinity, ...files);
      files.forEach((file, i) => (file.signed = signed[i]));
      this.sessions.splice(0, Infinity, ...sessions);
      sessions.forEach((session, i) => (session.turns = turns[i]));
      this.tokens.splice(0, Infinity, ...tokens);
      this.interactionIds.clear();
      for (const [id, executionId] of interactionIds) this.interactionIds.set(id, executionId);
      this.noted.length = noted;
      Object.assign(this, { now, foreignControl, uploads, exchanges });
      this.focus.file = focus.file;
      this.focus.session = focus.session;
    };
  }

  /** The regime of the dated change now (or at `at`), open where a running clock could have crossed into another. */
  regime(at = this.now): Regime {
    const regime = regimeAt(at);
    return regime === regimeAt(at + CLOCK_SLACK_MS) ? regime : 'ambiguous';
  }

  /** The secure files of LOCATION_ID: the run's tokens must get no signed URL of another location's (AUTH-TENANT-FILES). */
  secureFiles(): ModelFile[] {
    return this.files.filter((file) => file.kind === 'secure' && file.location === 'own');
  }

  /**
   * What the contract makes of an upload's files now: secure (with the rule that says so), permanent (rule 3: no
   * secure flag before the change), or open (the ambiguous day; the flag on a channel it is not for).
   */
  expectedKind(target: UploadTarget, flag: SecureFlag, at = this.now): { kind: 'secure'; rule: RuleId } | { kind: 'permanent' } | { kind: 'open' } {
    const regime = this.regime(at);
    if (regime === 'after') return { kind: 'secure', rule: flag === 'false' ? 'CUTOVER-FLAG-IGNORED' : 'CUTOVER-ALL-SECURE' };
    // The email conversation's secure upload is secure in either regime: the day whose zone is open changes nothing.
    if (regime === 'ambiguous' && flag === 'true' && (target === 'conversation' || target === 'both')) return { kind: 'secure', rule: 'SECURE-URL-FORM' };
    if (regime === 'ambiguous') return { kind: 'open' };
    if (flag !== 'true') return { kind: 'permanent' };
    // Email only (§2.1, §4.1 rule 4): the email conversation's upload is secure; a contact's channel is not known.
    return target === 'conversation' || target === 'both' ? { kind: 'secure', rule: 'SECURE-URL-FORM' } : { kind: 'open' };
  }

  /** Whether a refusal of this upload is allowed: the secure flag where it is not for, before the change. */
  mayRefuse(target: UploadTarget, flag: SecureFlag): boolean {
    return flag === 'true' && this.regime() !== 'after' && (target === 'non-email' || target === 'contact');
  }

  /**
   * What an anonymous read of a file's URL must give now: its bytes (a refusal breaks `rule`, other bytes `exact`),
   * nothing of them, or either (near the hour's edge).
   */
  expectedRead(file: ModelFile): { serve: true; rule: RuleId; exact: RuleId } | { serve: false; rule: RuleId } | 'open' {
    if (file.kind === 'permanent') return { serve: true, rule: this.now - file.uploadedAt < WINDOW_MS ? 'PERMANENT-URL-ANONYMOUS' : 'PERMANENT-URL-LASTS', exact: 'PERMANENT-URL-ANONYMOUS' };
    if (!mayBePrivate(file.uploadedAt, this.now)) return { serve: true, rule: 'SECURE-PUBLIC-WINDOW', exact: 'SECURE-PUBLIC-WINDOW' };
    if (this.now - (file.uploadedBy ?? file.uploadedAt) >= WINDOW_MS + CLOCK_SLACK_MS) return { serve: false, rule: 'SECURE-PRIVATE-AFTER' };
    return 'open';
  }

  /** The file of the run these bytes are, if any: `own` where they are its bytes, since files of equal bytes are indistinguishable. */
  fileServedBy(reply: Reply, own?: ModelFile): ModelFile | undefined {
    return own && serves(reply, own.file) ? own : this.files.find((file) => serves(reply, file.file));
  }

  note(disagreement: Disagreement): void {
    disagreement.at ??= this.ran;
    this.noted.push(disagreement);
  }

  /** A new interactionId, once per exchange (§2.4): within its session (MUST), and of the run (SHOULD). */
  expectNewInteraction(id: unknown, exchange: string, executionId: string): void {
    if (typeof id !== 'string') throw new Disagreement('EXEC-RESPONSE-SCHEMA', `${exchange}: interactionId is ${JSON.stringify(id)}, not a string`);
    const given = this.interactionIds.get(id);
    if (given === executionId) throw new Disagreement('SESSION-INTERACTION-NEW', `${exchange}: interactionId ${id} was given to an earlier exchange of the same session`);
    // A SHOULD rule is noted and the sequence goes on: the MUST rules are judged over all of it.
    if (given !== undefined) this.note(new Disagreement('SESSION-INTERACTION-UNIQUE', `${exchange}: interactionId ${id} was given to an exchange of another session (${given})`));
    this.interactionIds.set(id, executionId);
  }
}

/** The regime as events count it (src/contract/sequences.ts EVENTS): the day the contract leaves open counts as before. */
export const regimeClass = (model: Readonly<Model>) => (model.regime() === 'after' ? 'after the change' : 'before the change');

/** A file's state as events count it: permanent, or secure within or after its public hour by the model's clock. */
export const fileClass = (model: Readonly<Model>, file: ModelFile) =>
  file.kind === 'permanent' ? 'permanent' : model.now - file.uploadedAt < WINDOW_MS ? 'secure within its hour' : 'secure after its hour';

/** Whether another file of the run has a file's bytes and the other kind: a store that dedupes by content mixes their kinds. */
export const hasTwin = (model: Readonly<Model>, file: ModelFile) => model.files.some((other) => other !== file && other.kind !== file.kind && other.file.bytes.equals(file.file.bytes));

/** Whether a secure file taken at `from` may be past its public hour at `at`, a running clock's slack allowed for. */
export const mayBePrivate = (from: number, at: number): boolean => at - from >= WINDOW_MS - CLOCK_SLACK_MS;

/** An answer that must be an acceptance; a refusal breaks `rule`. */
export function mustAccept(reply: Reply, what: string, rule: RuleId): void {
  if (!accepted(reply)) throw new Disagreement(rule, `${what} answered ${reply.status} ${excerpt(reply)}`.trim());
}

/**
 * A refusal of an exchanged token once the clock has moved on since it was issued, or once another was exchanged: the
 * contract names no lifetime and says nothing of revoking a token by issuing another, so no MUST rule is broken; but
 * within the lifetime its answer gave (expires_in, RFC 6749 §5.1), or by a later exchange alone, it is a choice a
 * server may make for security, warned of (OAUTH-TOKEN-LIFETIME). The step is then not applicable.
 */
export function expiredMayRefuse(model: Model, caller: ModelToken, reply: Reply): void {
  if (!refused(reply) || caller.issuedAt === undefined) return;
  const moved = model.now > caller.issuedAt;
  const later = model.exchanges > (caller.exchange ?? model.exchanges);
  if (!moved && !later) return;
  const age = `${caller.label} was refused (${shown(reply)}) ${Math.round((model.now - caller.issuedAt) / 1000)} s after it was issued${later ? `, after ${model.exchanges - (caller.exchange ?? 0)} later exchanges` : ''}`;
  const within = caller.expiresAt !== undefined && model.now + CLOCK_SLACK_MS < caller.expiresAt;
  if (within || !moved) model.note(new Disagreement('OAUTH-TOKEN-LIFETIME', `${age}: ${within ? `its expires_in had not run out (${Math.round((caller.expiresAt as number - model.now) / 1000)} s left)` : 'the clock had not moved, and the contract revokes no token by issuing another'}`));
  throw new NotApplicable(`${age}: an exchanged token may expire or be revoked, and the contract names no lifetime`);
}

/** How a model's answer is shown: the status and the start of the body, secrets redacted. */
export const shown = (reply: Reply) => `${reply.status} ${excerpt(reply)}`.trim();
