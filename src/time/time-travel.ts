// How a test reaches the instant it needs: the target's test clock when it has one, real waiting in the opt-in slow
// project, else time passing between runs: a check over time after an upload judges an upload an earlier run left
// once it has aged, and leaves this run's for a later run (src/time/aged-state.ts); with nothing aged yet it skips,
// saying why. Expectations always follow the server's clock.
import { test } from '@playwright/test';
import { boundariesCrossed, describeAge, type Uploaded, type UploadState, type Waiting } from './aged-state.ts';
import { ANNOTATION, type AnnotationType } from '../report/annotations.ts';
import { type Regime, regimeAt, type ServerClock } from './server-clock.ts';

export type TimeTravelMode = 'test-clock' | 'wait';

/** An upload as a test made it: its files, their URLs, and the Date header of the upload's answer. */
export interface Upload extends Uploaded {
  date: string | undefined;
}

/** A check that must hold at instants after an upload. */
export interface AfterUpload {
  /** The regime of the dated change the upload needs, and the instant a test clock jumps to for it. */
  regime?: { wanted: Exclude<Regime, 'ambiguous'>; jumpTo: string };
  upload(): Promise<Upload>;
  /** Seconds after the upload at which `check` must hold, in order; 0 is at once. */
  instants: number[];
  /** The ages of an earlier run's upload `check` can judge; by default its first instant after the upload and any later. */
  aged?: { from: number; to: number };
  /**
   * The ages (seconds after the upload) at which `check` holds by the contract, where a rule has an edge (the public
   * hour): each read is then judged at the age the server saw, by its clock read just before and after the check, and
   * `check` must assert hard (expect, not expect.soft): a failure of a read that may have crossed the edge proves nothing.
   */
  holds?: { from: number; to: number };
  /** `when` says when, for messages and evidence labels. */
  check(uploaded: Uploaded, when: string): Promise<void>;
}

const cannotPass = (seconds: number) => `needs ${seconds} s to pass on the server: set TEST_CLOCK_URL, or run the slow project (SUITE_SLOW=1) that really waits`;
const otherRegime = (now: number, regime: Regime, wanted: Regime) =>
  `the server's date ${new Date(now).toISOString()} is ${regime} the change of 30 November 2026; this check needs ${wanted}`;
const note = (type: AnnotationType, description: string) => test.info().annotations.push({ type, description });

/** Ages on the server's clock, in seconds, as a range: the upload and the read are each known within two clock readings. */
interface Ages {
  from: number;
  to: number;
}
const describeAges = (ages: Ages) => (Math.round(ages.from) === Math.round(ages.to) ? `${Math.round(ages.from)} s` : `${Math.round(ages.from)} to ${Math.round(ages.to)} s`);
const within = (ages: Ages, holds: Ages) => ages.from >= holds.from && ages.to < holds.to;

/** Why a read near an edge may have fallen on its other side. */
const missedEdge = (when: string, ages: Ages, holds: Ages) =>
  `the read meant for ${when} reached the server between ${describeAges(ages)} after the upload by its clock, which may lie outside [${holds.from} s, ${holds.to} s) where the rule's expectation holds`;

/** No verdict on such a read, never one against the instant it was meant for. */
function inconclusiveRead(why: string): never {
  note(ANNOTATION.inconclusive, why);
  throw new Error(`Inconclusive: ${why}`);
}

/** Uploads and reads near an edge, again with a new upload when a read may have crossed it (a retry, a slow answer). */
const EDGE_ATTEMPTS = 3;

export class TimeTravel {
  /** `state`: where uploads wait for a later run, when time can pass only between runs. */
  constructor(
    private readonly clock: ServerClock,
    private readonly mode: TimeTravelMode,
    private readonly state?: UploadState,
  ) {}

  /** Moves the server to an instant; only a test clock can, so otherwise the test skips. */
  async jumpTo(iso: string): Promise<void> {
    test.skip(!this.clock.movable, `needs the server at ${iso}: only a target with a test clock (TEST_CLOCK_URL) can be moved there`);
    await this.clock.set(Date.parse(iso));
  }

  /** Lets `seconds` pass on the server: moving its test clock, or really waiting in the slow project. */
  async pass(seconds: number): Promise<void> {
    if (this.clock.movable) {
      await this.clock.advance(seconds);
      return;
    }
    test.skip(this.mode !== 'wait', cannotPass(seconds));
    await new Promise((resolve) => setTimeout(resolve, seconds * 1000));
  }

  /**
   * How far from an edge of a time window a check stands: a second with a test clock, moved right before the read
   * (#atEdges makes room for one of whole seconds); half a minute with the server's own clock, read from its Date
   * header (a one-second resolution, and requests take time).
   */
  get margin(): number {
    return this.clock.movable ? 1 : 30;
  }

  /** True when the server can be moved far (a day, a month): only a test clock can, the slow project cannot wait that long. */
  get farReachable(): boolean {
    return this.clock.movable;
  }

  /** A timeline from now (an upload): `to(s)` moves the server forward to `s` seconds after it. */
  timeline(): { to(seconds: number): Promise<void> } {
    let at = 0;
    return {
      to: async (seconds: number) => {
        if (seconds < at) throw new Error(`the timeline only moves forward: ${seconds} s is before ${at} s`);
        await this.pass(seconds - at);
        at = seconds;
      },
    };
  }

  /** Puts the server in a regime of the dated change: jumps there with a test clock, else skips unless already in it. */
  async ensureRegime(wanted: Exclude<Regime, 'ambiguous'>, jumpTarget: string): Promise<void> {
    if (this.clock.movable) return this.jumpTo(jumpTarget);
    const now = await this.clock.now();
    const regime = regimeAt(now);
    test.skip(regime !== wanted, otherRegime(now, regime, wanted));
  }

  /** Uploads, then checks at each instant after the upload; where time passes only between runs, across runs. */
  async afterUpload(plan: AfterUpload): Promise<void> {
    if (this.state) return this.#acrossRuns(plan, this.state);
    if (plan.regime) await this.ensureRegime(plan.regime.wanted, plan.regime.jumpTo);
    if (plan.holds) {
      for (let attempt = 1; ; attempt++) {
        const missed = await this.#atEdges(plan, plan.holds);
        if (missed === undefined) return;
        // Waiting out another hour is not worth it: only a test clock tries again.
        if (attempt === EDGE_ATTEMPTS || !this.clock.movable) inconclusiveRead(missed);
        note(ANNOTATION.retry, `${missed}: a new upload and its reads, attempt ${attempt + 1} of ${EDGE_ATTEMPTS}`);
      }
    }
    const uploaded = await plan.upload();
    const time = this.timeline();
    for (const seconds of plan.instants) {
      await time.to(seconds);
      await plan.check(uploaded, `${seconds} s after the upload`);
    }
  }

  /**
   * A check with an edge, judged at the age the server saw: the upload dated by the clock read before and after it,
   * each read by the clock's instant just before it (the answer of the move, or the last reading) and the clock read
   * after it. A test clock may be frozen, run on once set, or keep whole seconds, and the suite's own pace or a retry
   * may delay a request: a read that may have fallen on the other side of the edge is inconclusive, never judged
   * against the instant it was meant for (afterUpload tries again with a new upload). A test clock is only ever moved forward, and the move and the read go out
   * back to back (the test clock is not paced, and the read's pace is reserved first); a read sent after an answer came back is after it.
   */
  async #atEdges(plan: AfterUpload, holds: Ages): Promise<string | undefined> {
    const started = await this.clock.now();
    const uploaded = await plan.upload();
    const ended = await this.clock.now();
    // A clock whose readings are all whole seconds may keep whole seconds: each reading then stands for the second it begins.
    const resolution = started % 1000 === 0 && ended % 1000 === 0 ? 1000 : 0;
    const upload = { from: started, to: ended + resolution };
    let last = ended;
    const time = this.timeline();
    for (const seconds of plan.instants) {
      const when = `${seconds} s after the upload`;
      // Near the window's end the earliest upload is the one to fear (the read must stay short of the end), near its start the latest.
      const nearEnd = holds.to - seconds < seconds - holds.from;
      const target = nearEnd ? upload.from + seconds * 1000 - resolution : upload.to + seconds * 1000;
      let before = last;
      if (!this.clock.movable) {
        await time.to(seconds);
        before = await this.clock.now();
      } else if (target > last) {
        // The check's first request straight after the move (the test clock itself is not paced).
        await this.clock.reserve(1);
        before = await this.clock.set(target);
      }
      // A check near an edge asserts hard: what it found counts only once the read is known to be on its side.
      const failure = await plan.check(uploaded, when).then(
        () => undefined,
        (error: unknown) => ({ error }),
      );
      last = await this.clock.now();
      const ages = { from: Math.max(0, (before - upload.to) / 1000), to: (last + resolution - upload.from) / 1000 };
      if (!within(ages, holds)) return missedEdge(when, ages, holds);
      if (failure) throw failure.error;
    }
    return undefined;
  }

  /**
   * Judges the oldest upload an earlier run left that has aged enough, then uploads, checks what can be checked at
   * once, and leaves the upload for a later run. With nothing judged, the test skips saying why.
   */
  async #acrossRuns(plan: AfterUpload, state: UploadState): Promise<void> {
    const later = plan.instants.find((seconds) => seconds > 0) ?? 0;
    const now = await this.clock.now();
    const earlier = await this.#judgeEarlier(plan, state, now, plan.aged ?? { from: later, to: Number.POSITIVE_INFINITY });
    const regime = regimeAt(now);
    /** What became of this run's upload, and why this run cannot judge it. */
    let mine: string;
    let why: string;
    if (plan.regime && regime !== plan.regime.wanted) {
      why = otherRegime(now, regime, plan.regime.wanted);
      mine = `this run made no upload: ${why}`;
    } else {
      const uploaded = await plan.upload();
      for (const seconds of plan.instants.filter((instant) => instant === 0)) await plan.check(uploaded, `${seconds} s after the upload`);
      mine = await this.#keep(state, uploaded);
      why = `${cannotPass(later)}; ${mine}`;
    }
    test.skip(earlier.judged === undefined, `${why}; ${earlier.status}`);
    note(ANNOTATION.observation, `${earlier.judged}; ${mine}`);
  }

  /**
   * The oldest upload of an earlier run whose age `check` can judge and that is due: never judged, or across a
   * boundary since its last judgment (boundariesCrossed). It is judged, then kept to be judged again at the next
   * boundary; those too old for the check are dropped.
   */
  async #judgeEarlier(plan: AfterUpload, state: UploadState, now: number, ages: { from: number; to: number }): Promise<{ judged?: string; status: string }> {
    const { uploads, warnings } = state.waiting(now);
    for (const warning of warnings) note(ANNOTATION.warning, warning);
    const past = uploads.filter((upload) => upload.age > ages.to);
    for (const upload of past) state.drop(upload.path);
    const crossed = (upload: Waiting) => (upload.judgedAt === undefined ? [] : boundariesCrossed(now - upload.age * 1000, upload.judgedAt, now));
    const inWindow = uploads.filter((upload) => upload.age >= ages.from && upload.age <= ages.to);
    const oldest = inWindow.find((upload) => upload.judgedAt === undefined || crossed(upload).length > 0);
    if (oldest === undefined) {
      const young = uploads.find((upload) => upload.age < ages.from);
      const status = [
        ...(young ? [`the oldest upload an earlier run left is ${describeAge(young.age)} old, short of the ${ages.from} s this check needs`] : []),
        ...(inWindow.length > 0 ? [`${inWindow.length} left by earlier runs were judged already and have crossed no boundary since`] : []),
        ...(past.length > 0 ? [`${past.length} left by earlier runs were past the ${ages.to} s this check holds until, and were dropped`] : []),
      ];
      return { status: status.length > 0 ? status.join('; ') : 'no upload of an earlier run waits' };
    }
    const again = oldest.judgedAt === undefined ? '' : `again, across ${crossed(oldest).join(' and ')} since a run judged it ${describeAge(Math.round((now - oldest.judgedAt) / 1000))} earlier, `;
    const made = `${again}on an upload made ${describeAge(oldest.age)} earlier by the server's clock`;
    await plan.check(oldest, made);
    const end = await this.clock.now();
    // The age the server saw at the end of the check, not the one it had when the check began (the Date has whole seconds).
    const seen = { from: oldest.age - 1, to: oldest.age + 1 + (end - now) / 1000 };
    if (plan.holds && !within(seen, plan.holds)) inconclusiveRead(missedEdge(made, seen, plan.holds));
    state.judged(oldest.path, end);
    return { judged: `judged ${made}, left by an earlier run ${oldest.regime === 'ambiguous' ? 'on the day of' : oldest.regime} the change of 30 November 2026`, status: '' };
  }

  /** Leaves this run's upload for a later run, dated by the server; says where, or why not. */
  async #keep(state: UploadState, uploaded: Upload): Promise<string> {
    const date = uploaded.date === undefined ? Number.NaN : Date.parse(uploaded.date);
    const at = Number.isNaN(date) ? await this.clock.now() : date;
    try {
      state.keep(uploaded, at, regimeAt(at));
      return `this run's upload waits in ${state.dir}/ for a later run to judge`;
    } catch (error) {
      const why = `this run's upload could not be kept for a later run: ${(error as Error).message}`;
      note(ANNOTATION.warning, why);
      return why;
    }
  }
}
