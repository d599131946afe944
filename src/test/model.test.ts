// The model of src/model/: what it allows for each regime and age, and its runs: a disagreement shrunk to the
// shortest sequence that still breaks the same rule, the test's own rule before another, a step not applicable noted.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import fc from 'fast-check';
import { type Real, Step, StepsInTurn } from '../model/step.ts';
import { eventsOf, figuresOf, KINDS, modelCoverageLine, type Reach } from '../contract/sequences.ts';
import { Coverage } from '../model/coverage.ts';
import { circuitOf, kindsOf, walkOf } from '../model/generator.ts';
import { modelFileSize, plainUpload, SIZE_SPREAD } from '../model/uploads.ts';
import { ClockStep } from '../model/clock.ts';
import type { Reply } from '../client/api.ts';
import type { TestFile } from '../files/test-file.ts';
import { ServerClock } from '../time/server-clock.ts';
import type { Transport } from '../client/transport.ts';
import { ParallelStep } from '../model/overlaps.ts';
import { CLOCK_SLACK_MS, Disagreement, Model, type ModelFile, NotApplicable } from '../model/model.ts';
import { describeSequence, runSequences } from '../model/run.ts';
import { REGIME_INSTANTS } from '../checks/requests.ts';
import { relatedName } from '../contract/relations.ts';
import { testFile } from '../files/test-file.ts';

const at = (iso: string) => new Model(Date.parse(iso), true, { label: 'ACCESS_TOKEN', auth: 'access' });
const HOUR = 3_600_000;

describe('the model of the contract', () => {
  // A file's bytes follow from its name and size: two files of one run with the same name and size would be one file
  // to a reader, and a URL serving either would read as serving the other's bytes (it did, at GENERATOR_SEED=6).
  test('no two uploads of a run give a file the same size, whatever each draws', () => {
    // Each upload's sizes lie in a range of their own, every range below the next.
    for (let upload = 1; upload < 200; upload++) assert.ok(modelFileSize(upload, SIZE_SPREAD) < modelFileSize(upload + 1, 0), `uploads #${upload} and #${upload + 1} may share a size`);
  });

  test('the flag decides before the change (email only), every upload is secure after it, the ambiguous day is open', () => {
    const before = at(REGIME_INSTANTS.before);
    assert.deepEqual(before.expectedKind('conversation', 'true'), { kind: 'secure', rule: 'SECURE-URL-FORM' });
    assert.deepEqual(before.expectedKind('non-email', 'true'), { kind: 'open' });
    assert.deepEqual(before.expectedKind('non-email', 'absent'), { kind: 'permanent' });
    assert.equal(before.mayRefuse('non-email', 'true'), true);
    assert.equal(before.mayRefuse('conversation', 'true'), false);
    const after = at(REGIME_INSTANTS.after);
    assert.deepEqual(after.expectedKind('non-email', 'absent'), { kind: 'secure', rule: 'CUTOVER-ALL-SECURE' });
    assert.deepEqual(after.expectedKind('contact', 'false'), { kind: 'secure', rule: 'CUTOVER-FLAG-IGNORED' });
    assert.equal(after.mayRefuse('non-email', 'true'), false);
    assert.deepEqual(at('2026-11-29T18:00:00Z').expectedKind('conversation', 'absent'), { kind: 'open' });
    // A clock that may run on for a few minutes could cross into the ambiguous day.
    assert.equal(at(new Date(Date.parse('2026-11-29T10:00:00Z') - CLOCK_SLACK_MS / 2).toISOString()).regime(), 'ambiguous');
  });

  test('a related name stays short: percent-encoding a name encoded before stops where it would pass 100 bytes', () => {
    const once = relatedName('percent', 'model 1-1 résumé 日本.zip') as string;
    const twice = relatedName('percent', once) as string;
    assert.equal(twice, `${encodeURIComponent(encodeURIComponent('model 1-1 résumé 日本'))}.zip`);
    assert.equal(relatedName('percent', twice), undefined, `${twice.length} characters, then three times its escapes`);
    assert.equal(relatedName('equal', twice), twice);
  });

  test('a secure file is public within the hour, private after it, open near its end; a permanent one serves at any age', () => {
    const model = at(REGIME_INSTANTS.before);
    const uploadedAt = model.now;
    const file = (kind: ModelFile['kind']): ModelFile => ({ label: '#1', file: testFile('a.pdf', 10), url: 'http://x.invalid/files/d/a', kind, uploadedAt, upload: 1, location: 'own' });
    const secure = file('secure');
    assert.deepEqual(model.expectedRead(secure), { serve: true, rule: 'SECURE-PUBLIC-WINDOW', exact: 'SECURE-PUBLIC-WINDOW' });
    model.now += HOUR;
    assert.equal(model.expectedRead(secure), 'open');
    model.now += CLOCK_SLACK_MS;
    assert.deepEqual(model.expectedRead(secure), { serve: false, rule: 'SECURE-PRIVATE-AFTER' });
    assert.deepEqual(model.expectedRead(file('permanent')), { serve: true, rule: 'PERMANENT-URL-LASTS', exact: 'PERMANENT-URL-ANONYMOUS' });
  });

  test('an interactionId given twice in a session breaks SESSION-INTERACTION-NEW; in two sessions, SESSION-INTERACTION-UNIQUE (noted: a SHOULD rule)', () => {
    const model = at(REGIME_INSTANTS.before);
    model.expectNewInteraction('int-1', 'first', 'S1');
    assert.throws(() => model.expectNewInteraction('int-1', 'second', 'S1'), (error: unknown) => error instanceof Disagreement && error.rule === 'SESSION-INTERACTION-NEW');
    model.expectNewInteraction('int-1', 'first of S2', 'S2');
    assert.deepEqual(model.noted.map((disagreement) => disagreement.rule), ['SESSION-INTERACTION-UNIQUE']);
    model.expectNewInteraction('int-2', 'first of S2', 'S2');
  });
});

/**
 * A step of a toy server: `mark` leaves a mark, `check` breaks `rule` once two marks were left; `refused` is not
 * applicable; a `racer` breaks SESSION-CONTINUE when another step was sent while it was in flight.
 */
let racing = 0;
class Toy extends Step {
  readonly kind = 'upload';

  constructor(readonly does: 'mark' | 'check' | 'idle' | 'refused' | 'racer', readonly rule: 'SESSION-CONTINUE' | 'SECURE-SIGNED-URL' = 'SESSION-CONTINUE') {
    super();
  }

  check(): boolean {
    return true;
  }

  toString(): string {
    return this.does === 'check' ? `check (${this.rule})` : this.does;
  }

  protected async send(model: Model): Promise<boolean> {
    if (this.does === 'mark') model.uploads += 1;
    if (this.does !== 'racer') return false;
    racing += 1;
    await new Promise((resolve) => setImmediate(resolve));
    const overlapped = racing > 1;
    racing -= 1;
    return overlapped;
  }

  protected async judge(model: Model, _real: Real, overlapped: unknown): Promise<void> {
    if (overlapped) model.note(new Disagreement('SESSION-CONTINUE', 'another step was sent while a racer was in flight'));
    if (this.does === 'refused') throw new NotApplicable('a form the server may refuse');
    if (this.does === 'check' && model.uploads >= 2) model.note(new Disagreement(this.rule, `${model.uploads} marks`));
  }
}

/** A target that offers every kind and reaches every event its kinds allow. */
const EVERY_REACH: Reach = { movable: true, otherLocation: true, foreign: true, grants: true };

const toys = [fc.constant(new Toy('mark')), fc.constant(new Toy('idle')), fc.constant(new Toy('refused')), fc.constant(new Toy('check')), fc.constant(new Toy('check', 'SECURE-SIGNED-URL'))];
const setup = async () => ({ model: at(REGIME_INSTANTS.before), real: { log: [], overlap: true, coverage: new Coverage(KINDS, EVERY_REACH) } as unknown as Real });
const options = { seed: 7, runs: 40, timeLimitMs: 60_000, shrink: true };
// Every sequence ends with the closing step, as each profile's does (closingOf): by default one that does nothing.
const drawn = (weighted: fc.Arbitrary<Step>[], closing: Step = new Toy('idle')) => ({ weighted, maxCommands: 10, closing: [closing] });

describe('sequences judged by the model', () => {
  test("a disagreement on the test's own rule is shrunk to the shortest sequence that shows it", async () => {
    const run = await runSequences(drawn(toys), 'SESSION-CONTINUE', options, setup);
    assert.equal(run.failure?.rule, 'SESSION-CONTINUE');
    assert.deepEqual(run.failure?.sequence, ['mark', 'mark', 'check (SESSION-CONTINUE)']);
    assert.match(describeSequence(run.failure!.sequence), /^ 1\. mark\n 2\. mark\n 3\. check \(SESSION-CONTINUE\)$/);
    assert.ok(run.notApplicable.every((note) => note === '(not applicable: a form the server may refuse)'));
  });

  test('a parallel step is split: what one of its steps alone, or both in turn, still shows is reported so', async () => {
    const together = fc.constant(new ParallelStep([new Toy('idle'), new Toy('mark')]));
    const run = await runSequences(drawn([together, fc.constant(new Toy('check'))]), 'SESSION-CONTINUE', options, setup);
    assert.deepEqual(run.failure?.sequence, ['mark', 'mark', 'check (SESSION-CONTINUE)']);
    // Where only the overlap shows it, the parallel step stays.
    const overlap = fc.constant(new ParallelStep([new Toy('racer'), new Toy('racer')]));
    const once = await runSequences(drawn([overlap, fc.constant(new Toy('idle'))]), 'SESSION-CONTINUE', options, setup);
    assert.deepEqual(once.failure?.sequence, ['at once: [racer] and [racer]']);
  });

  test('without one, the first disagreement on another rule is shrunk and reported under that rule', async () => {
    const run = await runSequences(drawn(toys.filter((_, i) => i !== 3)), 'SESSION-CONTINUE', options, setup);
    assert.equal(run.failure?.rule, 'SECURE-SIGNED-URL');
    assert.deepEqual(run.failure?.sequence, ['mark', 'mark', 'check (SECURE-SIGNED-URL)']);
  });

  test('unshrunk (SHRINK_SECONDS=0), the first failing sequence is reported as it ran, the first of another rule without drawing again', async () => {
    const unshrunk = { ...options, shrink: false };
    const own = await runSequences(drawn(toys), 'SESSION-CONTINUE', unshrunk, setup);
    assert.equal(own.failure?.rule, 'SESSION-CONTINUE');
    assert.equal(own.failure?.shrinks, 0);
    assert.ok(own.failure!.sequence.length > 3, `the sequence as it ran: ${own.failure!.sequence.join(', ')}`);
    const other = await runSequences(drawn(toys.filter((_, i) => i !== 3)), 'SESSION-CONTINUE', unshrunk, setup);
    assert.equal(other.failure?.rule, 'SECURE-SIGNED-URL');
    assert.equal(other.sequences, options.runs, 'every sequence drawn once, none again for the other rule');
    assert.ok(other.failure?.sequence.includes('check (SECURE-SIGNED-URL)'), other.failure?.sequence.join(', '));
  });

  test('a model that never disagrees reports its sequences and steps, and no failure', async () => {
    const run = await runSequences(drawn([fc.constant(new Toy('mark')), fc.constant(new Toy('idle'))]), 'SESSION-CONTINUE', { ...options, runs: 3 }, setup);
    assert.equal(run.failure, undefined);
    assert.equal(run.sequences, 3);
    assert.ok(run.steps >= 15, `${run.steps} steps in 3 sequences of at least 5 operations`);
  });

  test('a closing step is split into the steps it ran, and only those that show the disagreement stay', async () => {
    class Turns extends StepsInTurn {
      check(): boolean {
        return true;
      }

      toString(): string {
        return 'turns';
      }

      protected async parts(model: Model, real: Real): Promise<void> {
        for (const kind of ['idle', 'mark', 'refused', 'mark', 'idle', 'check'] as const) await this.part(new Toy(kind), model, real);
      }
    }
    const run = await runSequences(drawn([fc.constant(new Toy('idle'))], new Turns()), 'SESSION-CONTINUE', options, setup);
    assert.deepEqual(run.failure?.sequence, ['mark', 'mark', 'check (SESSION-CONTINUE)']);
  });

  test('a run past the time limit is waited for and ends there: none of its steps is sent once the sequences have returned', async () => {
    let sent = 0;
    class Slow extends Toy {
      protected override async send(model: Model): Promise<boolean> {
        sent += 1;
        await new Promise((resolve) => setTimeout(resolve, 20));
        return super.send(model);
      }
    }
    const run = await runSequences(drawn([fc.constant(new Slow('idle'))]), 'SESSION-CONTINUE', { ...options, runs: 1000, timeLimitMs: 50 }, setup);
    const atReturn = sent;
    await new Promise((resolve) => setTimeout(resolve, 200));
    assert.equal(sent, atReturn, 'a step was sent after the sequences returned: a run left going would meet the next test on its server');
    assert.ok(run.sequences < 1000 && atReturn <= 11 * run.sequences, `${run.sequences} sequences, ${atReturn} steps sent`);
  });

  test('every drawn sequence ends with its closing step', async () => {
    const run = await runSequences(drawn([fc.constant(new Toy('idle'))], new Toy('refused')), 'SESSION-CONTINUE', { ...options, runs: 3 }, setup);
    assert.equal(run.notApplicable.length, 3, 'the closing step (here never applicable) once a sequence');
  });
});

/**
 * A toy target with a test clock: an upload is taken at the clock's instant as it arrives; each file's URL is secure,
 * and serves its bytes anonymously for an hour after that.
 */
function toyTarget(start: string) {
  const world = { now: Date.parse(start) };
  const taken = new Map<string, { bytes: Buffer; at: number }>();
  const reply = (method: Reply['method'], url: string, status: number, body: Buffer): Reply => ({
    method, url, status, body, headers: { 'content-type': 'application/json' },
    text: () => body.toString(), json: () => (status === 200 && method === 'POST' ? JSON.parse(body.toString()) : undefined), shown: () => body.toString(),
  });
  const api = {
    evidence: { redact: (text: string) => text },
    unreachable() {},
    upload: async (_label: string, form: { files: TestFile[] }) => {
      const uploadedFiles = Object.fromEntries(form.files.map((file) => {
        const url = `http://toy.invalid/files/d/s${taken.size + 1}`;
        taken.set(url, { bytes: file.bytes, at: world.now });
        return [file.name, { url }];
      }));
      return reply('POST', 'http://toy.invalid/upload', 200, Buffer.from(JSON.stringify({ uploadedFiles })));
    },
    offered: async (_label: string, url: string) => {
      const file = taken.get(url);
      return file && world.now - file.at < HOUR ? reply('GET', url, 200, file.bytes) : reply('GET', url, 404, Buffer.from('{}'));
    },
  };
  // The suite's own clock, over a transport that is the toy's test clock: POST sets it, and both answer its instant.
  const transport = {
    fetch: async (request: { data?: { now?: string } }) => {
      if (request.data?.now !== undefined) world.now = Date.parse(request.data.now);
      return { url: 'http://toy.invalid/__clock', status: 200, headers: {}, body: Buffer.from(JSON.stringify({ now: new Date(world.now).toISOString() })) };
    },
  };
  const clock = new ServerClock(transport as unknown as Transport, 'http://toy.invalid', 'http://toy.invalid/__clock');
  const target = { locationId: 'loc', conversationId: 'conv', tokens: {} };
  const real = { api, clock, target, log: [], overlap: true, coverage: new Coverage(KINDS, EVERY_REACH) } as unknown as Real;
  return { model: at(start), real };
}

describe('an upload in flight with a move of the clock', () => {
  // The upload is taken before the move; its URLs are read after it, in either order of judging the two.
  test('its secure URLs read past their hour: which serves which file is not known, and nothing is noted', async () => {
    const { model, real } = toyTarget('2026-11-25T12:00:00Z');
    await new ParallelStep([plainUpload({ flag: 'true' }), new ClockStep(7200)]).run(model, real);
    assert.deepEqual(model.noted, []);
    assert.deepEqual(model.files, [], 'the model takes none of its files');
    assert.match(real.log.join('\n'), /not applicable: the clock moved from 2026-11-25T12:00:00.000Z to 2026-11-25T14:00:00.000Z while upload #1 was in flight: a secure URL may be past its public hour/);
  });

  // A target is put back to the start of the test before each sequence: a move of an earlier sequence is no bound.
  test("only the move in flight bounds the upload's instant, not a later instant an earlier move set", async () => {
    const { model, real } = toyTarget('2026-11-25T12:00:00Z');
    const from = model.now;
    await real.clock.set(from + 30 * 24 * HOUR);
    await real.clock.set(from);
    await new ParallelStep([plainUpload({ flag: 'true' }), new ClockStep(900)]).run(model, real);
    assert.deepEqual(model.noted, []);
    assert.deepEqual(model.files.map((file) => [file.uploadedAt, file.uploadedBy]), [[from, from + 900_000]]);
  });

  test('across the change, whether its files are secure is not known', async () => {
    const { model, real } = toyTarget('2026-11-29T09:00:00Z');
    await new ParallelStep([plainUpload({}), new ClockStep('across the change')]).run(model, real);
    assert.deepEqual(model.noted, []);
    assert.match(real.log.join('\n'), /not applicable: .* whether its files are secure depends on which the server took first/);
  });

  test('read within the hour: its file may have been taken at either instant, and a later read near either edge is open', async () => {
    const { model, real } = toyTarget('2026-11-25T12:00:00Z');
    const from = model.now;
    await new ParallelStep([plainUpload({ flag: 'true' }), new ClockStep(900)]).run(model, real);
    assert.deepEqual(model.noted, []);
    const [file] = model.files;
    assert.deepEqual([file.uploadedAt, file.uploadedBy], [from, from + 900_000]);
    model.now = from + HOUR - CLOCK_SLACK_MS;
    assert.equal(model.expectedRead(file), 'open', 'taken at the first instant, it may be private by now');
    model.now = from + 900_000 + HOUR;
    assert.equal(model.expectedRead(file), 'open', 'taken at the second, it may still be public');
    model.now += CLOCK_SLACK_MS;
    assert.deepEqual(model.expectedRead(file), { serve: false, rule: 'SECURE-PRIVATE-AFTER' });
  });
});

describe('the walks and their coverage', () => {
  const can = { nonEmail: true, movable: true, foreign: true, grants: ['location'] as const, otherLocation: true };

  test('the circuit holds every ordered pair of kinds once, in k² + 1 steps', () => {
    const kinds = kindsOf(can);
    const circuit = circuitOf(kinds);
    assert.equal(circuit.length, kinds.length ** 2 + 1);
    const pairs = circuit.slice(1).map((kind, i) => `${circuit[i]} → ${kind}`);
    assert.equal(new Set(pairs).size, kinds.length ** 2);
  });

  test('the kinds follow the target: no clock, no other location, no exchange', () => {
    const kinds = kindsOf({ ...can, movable: false, foreign: false, grants: [] });
    for (const kind of ['clock', 'foreign', 'exchange'] as const) assert.ok(!kinds.includes(kind), kind);
  });

  test('a walk draws its kinds whatever the seed: only the values change', () => {
    const kindsAt = (seed: number) => fc.sample(fc.tuple(...walkOf('every pair', can)), { seed, numRuns: 1 })[0].map((step) => step.kind);
    assert.deepEqual(kindsAt(1), kindsAt(2));
    const atOnce = fc.sample(fc.tuple(...walkOf('at once', can)), { seed: 3, numRuns: 1 })[0];
    const n = kindsOf(can).length;
    assert.equal(atOnce.filter((step) => step instanceof ParallelStep).length, (n * (n + 1)) / 2);
  });

  test('the figure counts covered pairs out of those the kinds define, and names the missing', () => {
    const coverage = new Coverage(['upload', 'read'], EVERY_REACH);
    coverage.begin();
    for (const kind of ['upload', 'read', 'read'] as const) coverage.sent(kind);
    coverage.event('read', { file: 'permanent', history: 'never signed', twin: 'none' });
    const figures = figuresOf([coverage.record()]);
    assert.deepEqual(figures?.pairs, { covered: 2, defined: 4 });
    assert.deepEqual(figures?.missing, ['upload → upload', 'read → upload']);
    // file × history (6, less a permanent file signed), file × twin (6), history × twin (4); upload: 7 dimensions.
    const read = figures!.events.defined - figures!.eventsMissing.filter((event) => event.startsWith('upload')).length;
    assert.equal(read, 15);
    assert.equal(figures?.events.covered, 3);
    assert.deepEqual(Object.keys(figures!.unreachable), ['read: file=permanent & history=signed']);
    assert.match(modelCoverageLine([coverage.record()]) ?? '', /^Model coverage: events \(pairs of value classes of one operation\) \d+ % \(3\/\d+\) of the reachable, 1 unreachable/);
  });

  test('events a target cannot reach are listed with why, not counted', () => {
    const { defined, unreachable } = eventsOf(['upload', 'signed URL'], { movable: false, otherLocation: false, foreign: true, grants: false });
    assert.ok(!defined.some((event) => event.includes('regime=before the change') || event.includes('location=other')));
    assert.match(unreachable['upload: regime=before the change & flag=true'], /no test clock/);
    assert.match(unreachable['signed URL: file=secure within its hour & caller=noFilesScope'], /only a private one tells/);
  });

  test('the histories walk sends the same steps whatever the seed: what it reaches is constructed, not drawn', () => {
    const sent = (seed: number) => fc.sample(fc.tuple(...walkOf('histories', can)), { seed, numRuns: 1 })[0].map(String);
    assert.deepEqual(sent(1), sent(9));
  });
});
