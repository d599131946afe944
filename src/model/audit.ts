// The final reads of a sequence (Jepsen's tests end so): every object the run made looked at again once the run has
// moved on, after a later operation, so that damage a later step did to an older object shows whatever was drawn.
import { CLOCK_SLACK_MS, type Model } from './model.ts';
import { SECURE_PUBLIC_WINDOW_SECONDS } from '../contract/contract.ts';
import { getRequestForms } from '../contract/cases.ts';
import { ClockStep } from './clock.ts';
import { ReadStep, SignedStep } from './files.ts';
import { ParallelStep } from './overlaps.ts';
import { ContinueStep } from './sessions.ts';
import { type Real, type Step, StepsInTurn, SweepStep } from './step.ts';
import { ForeignStep } from './tokens.ts';
import { plainUpload } from './uploads.ts';

/** The forms a GET can take (cases.ts), the suite's own first, read once: the final reads sign each secure file in one, in turn. */
const SIGNED_FORMS = [undefined, ...getRequestForms()];

/** How many final reads are in flight together. */
const GROUP = 4;

/**
 * Every sequence ends with it (generator.ts): the test clock moved past every secure file's hour and the clock's
 * slack, where it can be, so that each secure file is private and judged so; a later secure upload, the operation
 * that may take an older file's slug, name or entry; then every file read anonymously (GROUP at once), a secure file signed before and
 * one not asked for by a token without files.readonly and by the other location's, every secure file of the location
 * signed with files.readonly, every session continued by the token after its own, and every token tried on
 * the other location's agent. Drawn steps looked at an older object only where they happened to (the bench's
 * slug-recycled, caught at some seeds and styles only).
 */
export class AuditStep extends StepsInTurn {
  check(): boolean {
    return true;
  }

  toString(): string {
    return 'the final reads: the clock past every secure hour, a later secure upload, then every file read, secure files asked for without the scope and by the other location, every secure file signed, every session continued and every token tried';
  }

  protected async parts(model: Model, real: Real): Promise<void> {
    const youngest = Math.max(...model.secureFiles().map((file) => file.uploadedBy ?? file.uploadedAt));
    const wait = Math.ceil((youngest + SECURE_PUBLIC_WINDOW_SECONDS * 1000 + 2 * CLOCK_SLACK_MS - model.now) / 1000);
    const past = new ClockStep(wait);
    if (wait > 0 && past.check(model)) await this.part(past, model, real);
    await this.part(plainUpload({ flag: 'true' }), model, real);
    await this.#together(model.files.map((_, i) => new ReadStep(i)), model, real);
    // Private now: a secure file not signed yet, and one signed before, asked for by each caller that must be refused.
    const secure = model.secureFiles();
    for (const before of [false, true]) {
      const at = secure.findIndex((file) => Boolean(file.signed) === before);
      if (at >= 0) for (const caller of ['noFilesScope', 'foreignAccess'] as const) await this.part(new SignedStep(at, caller), model, real);
    }
    // Each in one of the forms a GET can take, in turn, the suite's own first: past the hour a server that refuses a
    // form HTTP permits to the token that may have the file shows it (HTTP-REQUEST-FORMS), at no request more.
    await this.#together(model.secureFiles().map((_, i) => new SignedStep(i, 'filesReadonly', SIGNED_FORMS[i % SIGNED_FORMS.length])), model, real);
    const continued = new SweepStep('continue every session by the token after its own', (state) => state.sessions, (index) => new ContinueStep(index, 1));
    if (continued.check(model)) await this.part(continued, model, real);
    await this.part(new ForeignStep(), model, real);
  }

  /**
   * Steps on distinct objects, GROUP at a time: a read or a signed URL of one file changes no other, so the answers of
   * a group are judged by linearisability as any steps at once, and a server that holds each answer a while (a
   * gateway's latency) is asked in a fraction of the time.
   */
  async #together(steps: readonly Step[], model: Model, real: Real): Promise<void> {
    for (let at = 0; at < steps.length; at += GROUP) {
      const group = steps.slice(at, at + GROUP);
      await this.part(group.length > 1 ? new ParallelStep(group) : group[0], model, real);
    }
  }
}
