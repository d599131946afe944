// Reads of the run's files: anonymous GETs of their URLs or by another anonymous route, and signed URLs asked for by any caller.
import { accepted, type Reply } from '../client/api.ts';
import { offeredUrls, slugOf } from '../checks/discover.ts';
import { anonymousLeaks, AS_GIVEN, describeLeaks, type Leak } from '../checks/privacy.ts';
import type { RuleId } from '../contract/rules.ts';
import { describeSpelling, type Spelling } from '../contract/spelling.ts';
import { Disagreement, fileClass, hasTwin, type Model, type ModelFile, mustAccept, NotApplicable, shown } from './model.ts';
import { FOCUS, IndexedStep, type Real, Step, SweepStep } from './step.ts';

/** A read as sent: the file, the clock's moves before it, and the answer, the leaks of another route, or why it was not sent. */
interface Read {
  file: ModelFile;
  moves: number;
  reply?: Reply;
  leaks?: Leak[];
  skipped?: string;
}

/**
 * An anonymous GET of a file's URL, as the upload's answer gave it; or another anonymous route to it (a respelled URL,
 * GET /files/d/{slug} without files.readonly), which only a private file's answer tells anything by: none may reach it.
 */
export class ReadStep extends IndexedStep {
  readonly kind = 'read';

  constructor(
    index: number,
    readonly route: string = AS_GIVEN,
  ) {
    super(index);
  }

  protected among(model: Readonly<Model>): number {
    return model.files.length;
  }

  toString(): string {
    return `GET the URL of file ${this.index} (wrapping around the run's files)${this.#by()}, anonymously`;
  }

  #by(): string {
    return this.route === AS_GIVEN ? '' : ` by ${this.route}`;
  }

  protected async send(model: Model, real: Real): Promise<Read> {
    const file = this.chosen(model.files, model.focus.file);
    model.focus.file = file;
    real.log[real.log.length - 1] = `GET the URL of file ${file.label} (${file.file.name}, ${file.kind})${this.#by()}, anonymously`;
    const moves = real.clock.moves;
    real.coverage.event('read', { file: fileClass(model, file), history: file.signed ? 'signed' : 'never signed', twin: hasTwin(model, file) ? 'bytes of a file of the other kind' : 'none' });
    if (this.route === AS_GIVEN) return { file, moves, reply: await real.api.offered(`model: read ${file.label}`, file.url) };
    // Public, a file may be served by another route or not; private, by none. The clock only moves on: private now,
    // private in either order of a pair at once.
    const expected = model.expectedRead(file);
    if (expected === 'open' || expected.serve) return { file, moves, skipped: `file ${file.label} (${file.kind}) may be served by ${this.route} or not while its URL is public` };
    return { file, moves, leaks: await anonymousLeaks(real.api, file.url, file.file, [this.route]) };
  }

  protected async judge(model: Model, real: Real, sent: unknown): Promise<void> {
    const { file, reply, moves, leaks, skipped } = sent as Read;
    if (skipped !== undefined) throw new NotApplicable(skipped);
    const age = `${Math.round((model.now - file.uploadedAt) / 1000)} s after its upload`;
    if (leaks !== undefined) {
      if (leaks.length > 0) model.note(new Disagreement('SECURE-PRIVATE-AFTER', `file ${file.label} ${age}, private, reached anonymously by ${describeLeaks(leaks).join('; ')}`));
      return;
    }
    if (reply === undefined) throw new NotApplicable(`${real.api.evidence.redact(file.url)} could not be reached`);
    const expected = model.expectedRead(file);
    if (expected === 'open') throw new NotApplicable(`file ${file.label} is ${age}, within the clock's slack of its hour's end, where a running clock leaves the answer open`);
    // A step at once moved the clock while the URL handed over to (a short-lived signed URL, say) was followed.
    const handedOver = new URL(reply.url).href !== new URL(file.url).href;
    if (expected.serve && !accepted(reply) && handedOver && real.clock.moves !== moves) {
      throw new NotApplicable(`file ${file.label} ${age}: the clock moved on while the URL its own handed over to was followed, and a short-lived URL may have expired (${shown(reply)})`);
    }
    if (expected.serve && !accepted(reply)) return model.note(new Disagreement(expected.rule, `file ${file.label} (${file.kind}) ${age}: its URL answered ${shown(reply)}`));
    const other = model.fileServedBy(reply, file);
    if (expected.serve && other !== file) {
      return model.note(new Disagreement(expected.exact, `file ${file.label} (${file.kind}) ${age}: its URL served ${other ? `the bytes of file ${other.label} (${other.file.name})` : `${reply.body.length} other bytes`}`));
    }
    if (!expected.serve && (other === file || reply.status >= 500)) return model.note(new Disagreement(expected.rule, `file ${file.label} ${age}: its URL answered ${reply.status} ${other === file ? 'with its bytes, anonymously' : '(a server error)'}`));
  }
}


/** Reads every file of the run once, anonymously. */
export const readSweep = () => new SweepStep('GET the URL of every file of the run, anonymously', (model) => model.files, (index) => new ReadStep(index));



/** Who asks GET /files/d/{slug}: a files.readonly token (must get the file), one without the scope, another location's. */
export type SignedCaller = 'filesReadonly' | 'noFilesScope' | 'foreignAccess';

const SIGNED_RULES: Record<SignedCaller, RuleId> = { filesReadonly: 'SECURE-SIGNED-URL', noFilesScope: 'SECURE-SCOPE-REQUIRED', foreignAccess: 'AUTH-TENANT-FILES' };

/** A signed URL asked for: the file, the answer (or why it was not sent), and the clock's moves before it was sent. */
interface Signed {
  file: ModelFile;
  moves: number;
  reply?: Reply;
  skipped?: string;
}

export class SignedStep extends Step {
  readonly kind = 'signed URL';

  constructor(
    readonly index: number,
    readonly caller: SignedCaller,
    /** Another form HTTP permits, where not the suite's own. */
    readonly spelling?: Spelling,
  ) {
    super();
  }

  check(model: Readonly<Model>): boolean {
    return model.secureFiles().length > 0;
  }

  toString(): string {
    return `GET /files/d/{slug} of secure file ${this.index} (wrapping around) with ${this.caller}`;
  }

  protected async send(model: Model, real: Real): Promise<Signed> {
    const moves = real.clock.moves;
    const secure = model.secureFiles();
    const file = this.index === FOCUS && model.focus.file !== undefined && secure.includes(model.focus.file) ? model.focus.file : secure[Math.max(this.index, 0) % secure.length];
    model.focus.file = file;
    real.log[real.log.length - 1] = `GET /files/d/{slug} of file ${file.label} (${file.file.name}, upload #${file.upload}) with ${this.caller}${this.#form()}`;
    if (real.target.tokens[this.caller] === undefined) return { file, moves, skipped: `${this.caller} is not configured` };
    // Within its public hour a secure file may be served to anyone: only a private one tells what a token reaches.
    const read = model.expectedRead(file);
    if (this.caller !== 'filesReadonly' && (read === 'open' || read.serve)) return { file, moves, skipped: `file ${file.label} is still public, and may be served to any caller` };
    real.coverage.event('signed URL', { file: fileClass(model, file), caller: this.caller, history: file.signed ? 'signed before' : 'not signed yet' });
    return { file, moves, reply: await real.api.signedUrlFor(`model: signed URL of ${file.label} with ${this.caller}${this.#form()}`, slugOf(file.url) as string, this.caller, this.spelling) };
  }

  #form(): string {
    return this.spelling ? `, written with ${describeSpelling(this.spelling)}` : '';
  }

  protected async judge(model: Model, real: Real, sent: unknown): Promise<void> {
    const { file, reply, skipped, moves } = sent as Signed;
    if (reply === undefined) throw new NotApplicable(skipped ?? 'not sent');
    const rule = SIGNED_RULES[this.caller];
    const what = `GET /files/d/{slug} of file ${file.label} with ${this.caller}`;
    if (this.caller === 'filesReadonly') {
      file.signed = true;
      // The suite's own form is asked elsewhere: a refusal of another form HTTP permits is the protocol's finding.
      if (this.spelling && !accepted(reply) && reply.status < 500) return model.note(new Disagreement('HTTP-REQUEST-FORMS', `${what}${this.#form()} answered ${shown(reply)}: the same request in the suite's own form is answered`));
      mustAccept(reply, what, rule);
    }
    if (reply.status >= 500) return model.note(new Disagreement(rule, `${what} answered ${shown(reply)}`));
    const reads: Reply[] = [reply];
    let unreachable = false;
    for (const url of offeredUrls(reply)) {
      const read = await real.api.offered(`model: follow the URL offered for ${file.label}`, url);
      if (read) reads.push(read);
      unreachable ||= read === undefined;
    }
    const servedOwn = reads.some((read) => model.fileServedBy(read, file) === file);
    if (this.caller !== 'filesReadonly') {
      if (servedOwn) return model.note(new Disagreement(rule, `${what}: the answer or a URL it offered served the file's bytes`));
      return;
    }
    if (servedOwn) return;
    const other = reads.map((read) => model.fileServedBy(read)).find((found) => found !== undefined);
    if (other === undefined && unreachable) throw new NotApplicable(`${what}: a URL it offered could not be reached, and may be the one that serves it`);
    // A step at once moved the clock between the answer and its URL's use: a short-lived URL may have expired.
    if (other === undefined && real.clock.moves !== moves) throw new NotApplicable(`${what}: the clock moved on before the URL it offered was followed, and a short-lived URL may have expired`);
    model.note(new Disagreement(rule, `${what}: ${other ? `the signed URL served the bytes of file ${other.label} (${other.file.name}, upload #${other.upload})` : `no URL offered served its bytes (${shown(reply)})`}`));
  }
}

/**
 * Asks for the signed URL of every secure file of the run whose signed URL it has not asked for with files.readonly
 * yet, in order: the later files of an upload as surely as its first, each once at least.
 */
export const unsignedSweep = () =>
  new SweepStep('GET /files/d/{slug} with filesReadonly of every secure file not asked for yet', (model) => model.secureFiles(), (index) => new SignedStep(index, 'filesReadonly'), (file) => !file.signed);
