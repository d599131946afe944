// Which operations each rule's sequences draw, and how often, and the step each sequence ends with.
import fc from 'fast-check';
import { BYTES_RELATIONS, type LocationRelation, NAME_RELATIONS, RELATIONS } from '../contract/relations.ts';
import { CLOCK_SLACK_MS, type SecureFlag, type UploadTarget } from './model.ts';
import { ClockStep } from './clock.ts';
import { OTHER_ROUTES } from '../checks/privacy.ts';
import { ReadStep, readSweep, type SignedCaller, SignedStep } from './files.ts';
import { ParallelStep } from './overlaps.ts';
import { continueArbitrary, EverySessionStep, refusedTurnArbitrary, startArbitrary, StartStep } from './sessions.ts';
import { type Kind, KINDS } from '../contract/sequences.ts';
import { SECURE_PUBLIC_WINDOW_SECONDS } from '../contract/contract.ts';
import { FOCUS, Step } from './step.ts';
import { ExchangeStep, ForeignStep, EveryTokenStep } from './tokens.ts';
import { EverySecureFileSignedStep, EveryTargetStep, EveryWireFormStep, NameTakenAgainStep, plainUpload, refusedUploadArbitrary, UploadStep, uploadSpec } from './uploads.ts';


export interface Capabilities {
  /** NON_EMAIL_CONVERSATION_ID is set. */
  nonEmail: boolean;
  /** The target's clock can be moved (a test clock). */
  movable: boolean;
  /** FOREIGN_AGENT_ID, FOREIGN_LOCATION_ID and FOREIGN_ACCESS_TOKEN are set. */
  foreign: boolean;
  /** FOREIGN_LOCATION_ID, FOREIGN_ACCESS_TOKEN and FOREIGN_CONVERSATION_ID or FOREIGN_CONTACT_ID are set: files can be stored there. */
  otherLocation: boolean;
  /** The exchanges a run may make: a refresh (a target put back before each sequence), a location token (AGENCY_ACCESS_TOKEN). */
  grants: readonly ('refresh' | 'location')[];
}

/** Where uploads go; `favour` twice as often, where it is configured. */
const targetsOf = (can: Capabilities, favour?: 'non-email'): UploadTarget[] => ['conversation', 'contact', 'both', ...(can.nonEmail ? (['non-email'] as const) : []), ...(can.nonEmail && favour ? [favour] : [])];

/** Each operation as often as its weight: fast-check draws the next command evenly from the list. */
const weighted = (...entries: [number, fc.Arbitrary<Step>][]) => entries.flatMap(([weight, arbitrary]) => Array.from({ length: weight }, () => arbitrary));

/**
 * The operations of each profile: those its rule is most exposed to, weighted, and now and then any operation of the
 * target (a profile weights, it removes none). Every answer is judged by the whole model.
 */
export function profileOf(name: ProfileName, can: Capabilities): fc.Arbitrary<Step>[] {
  return [...focusOf(name, can), anyOperation(can)];
}

/** Any operation the target offers, of any kind, its values and relations drawn. */
function anyOperation(can: Capabilities): fc.Arbitrary<Step> {
  const operations = operationsOf(can);
  return fc.oneof(...kindsOf(can).map((kind) => fc.nat(11).chain((n) => (operations[kind] as (n: number) => fc.Arbitrary<Step>)(n))));
}

/** The operations a profile weights. */
function focusOf(name: ProfileName, can: Capabilities): fc.Arbitrary<Step>[] {
  const upload = (flags: readonly SecureFlag[], wire = false, targets = targetsOf(can), minFiles = 1, reuse: 'always' | 'sometimes' = 'sometimes') =>
    uploadSpec(targets, flags, wire, minFiles, reuse).map((spec) => new UploadStep(spec) as Step);
  // Mostly its URL as given (public or private, it tells); now and then another route, which tells once it is private.
  const route = fc.oneof({ arbitrary: fc.constant(undefined), weight: 3 }, { arbitrary: fc.constantFrom(...OTHER_ROUTES), weight: 1 });
  const read = fc.tuple(fc.nat(8), route).map(([i, by]) => new ReadStep(i, by) as Step);
  const signedBy = (...callers: SignedCaller[]) => fc.tuple(fc.nat(8), fc.constantFrom(...callers)).map(([i, caller]) => new SignedStep(i, caller) as Step);
  const signed = signedBy('filesReadonly', 'filesReadonly', 'noFilesScope', 'foreignAccess');
  const clock = (...moves: (number | 'across the change')[]) => fc.constantFrom(...moves).map((move) => new ClockStep(move) as Step);
  const later = clock(900, 2400, 4000, 86_400);
  const anyMove = clock(900, 2400, 4000, 86_400, 'across the change');
  const together = (a: fc.Arbitrary<Step>, b: fc.Arbitrary<Step>) => fc.tuple(a, b).map((pair) => new ParallelStep(pair) as Step);
  switch (name) {
    case 'signed URLs':
      return weighted([2, upload(['true', 'true', 'absent'], false, ['conversation', 'both'], 2)], [2, signedBy('filesReadonly')], [1, signedBy('noFilesScope', 'foreignAccess')], [1, read], [1, anyMove], [1, refusedUploadArbitrary()]);
    case 'names and reads':
      // Every later upload takes an earlier name, and reads of every file come often: what one upload does to another's file shows.
      return weighted(
        [3, upload(['absent', 'false'], false, targetsOf(can), 1, 'always')],
        [2, read],
        [1, fc.constant(readSweep() as Step)],
        [1, together(upload(['absent', 'false'], false, targetsOf(can), 1, 'always'), upload(['absent', 'true']))],
        [1, later],
        [1, refusedUploadArbitrary()],
      );
    case 'the change':
      return weighted([4, upload(['absent', 'false', 'true'], false, targetsOf(can, 'non-email'))], [1, read], [1, anyMove], [3, clock('across the change')], [1, signed]);
    case 'wire forms':
      return weighted([4, upload(['true', 'true', 'absent'], true, ['conversation', 'both', 'contact'])], [1, read], [1, signed]);
    case 'sessions':
      return weighted([2, startArbitrary()], [3, continueArbitrary()], [1, refusedTurnArbitrary()], [2, together(continueArbitrary(), continueArbitrary())], [1, together(startArbitrary(), continueArbitrary())]);
    case 'tokens':
      return weighted([2, fc.constantFrom<'refresh' | 'location'>('refresh', 'refresh', 'location').map((kind) => new ExchangeStep(kind) as Step)], [2, fc.constant(new ForeignStep() as Step)], [1, startArbitrary()], [1, continueArbitrary()], [1, upload(['absent'])]);
  }
}

/**
 * The step each drawn sequence of a profile ends with: what the drawn steps left is then looked at, whatever they
 * were: every secure file's signed URL, a later file of an upload among them; an upload under an earlier non-secure file's name, then every file read; a session on each path, then
 * every session continued after others began; a token of each exchange, then every token tried; every target across
 * the change; a secure upload in every wire form. Drawn only, a fault that needs that last look went unseen at some
 * seeds (signed-url-first-file-of-upload at 6, upload-name-overwrites at 3, session-continues-latest at 5, with three
 * sequences a test; the wire forms' two faults at 1, with two).
 */
export function closingOf(name: ProfileName, can: Capabilities): Step {
  switch (name) {
    case 'signed URLs':
      return new EverySecureFileSignedStep();
    case 'names and reads':
      return new NameTakenAgainStep();
    case 'the change':
      return new EveryTargetStep(targetsOf(can));
    case 'wire forms':
      return new EveryWireFormStep();
    case 'sessions':
      return new EverySessionStep();
    case 'tokens':
      return new EveryTokenStep();
  }
}

export type ProfileName = 'signed URLs' | 'names and reads' | 'the change' | 'wire forms' | 'sessions' | 'tokens';

// ——— the walks: every ordered pair of kinds, and every pair at once, whatever the seed ———

/** The kinds of operation this target offers: a clock to move, another location's settings, an exchange to make. */
export function kindsOf(can: Capabilities): Kind[] {
  const offered: Partial<Record<Kind, boolean>> = { clock: can.movable, foreign: can.foreign, exchange: can.grants.length > 0 };
  const operations = operationsOf(can);
  return KINDS.filter((kind) => offered[kind] !== false && operations[kind] !== undefined);
}

/**
 * An Eulerian circuit of the complete directed graph with loops over `kinds`, from the first: each ordered pair of
 * kinds, a kind after itself included, follows once, in k² + 1 steps (a sequence covering array of strength 2 for
 * sequences of events, Kuhn et al.). Hierholzer's algorithm, each kind's successors taken in the kinds' order.
 */
export function circuitOf(kinds: readonly Kind[]): Kind[] {
  const unused = new Map(kinds.map((kind) => [kind, [...kinds]]));
  const stack: Kind[] = [kinds[0]];
  const circuit: Kind[] = [];
  while (stack.length > 0) {
    const at = stack.at(-1) as Kind;
    const next = unused.get(at)?.shift();
    if (next === undefined) circuit.push(stack.pop() as Kind);
    else stack.push(next);
  }
  return circuit.reverse();
}

/**
 * The operations of each kind, each acting on the file or session the step before acted on (FOCUS) where it acts on
 * one. The n-th upload of a walk takes the n-th relation of each dimension to the file in focus (wrapping around), so
 * that a walk relates its data in every way whatever the seed.
 */
function operationsOf(can: Capabilities): Partial<Record<Kind, (n: number) => fc.Arbitrary<Step>>> {
  const signedCallers: SignedCaller[] = ['filesReadonly', 'filesReadonly', 'noFilesScope', ...(can.foreign ? (['foreignAccess'] as const) : [])];
  const nth = <T extends string>(values: Record<T, string>, n: number) => (Object.keys(values) as T[])[n % Object.keys(values).length];
  const locations: LocationRelation[] = can.otherLocation ? ['own', 'other'] : ['own'];
  return {
    upload: (n) =>
      uploadSpec(targetsOf(can), ['absent', 'false', 'true'], true, 1, 'sometimes').map(
        (spec) => new UploadStep({ ...spec, relation: { name: nth(NAME_RELATIONS, n), bytes: nth(BYTES_RELATIONS, n), earlier: FOCUS }, location: locations[n % locations.length] }) as Step,
      ),
    'refused upload': () => refusedUploadArbitrary(),
    read: () => fc.constant(new ReadStep(FOCUS) as Step),
    'signed URL': () => fc.constantFrom(...signedCallers).map((caller) => new SignedStep(FOCUS, caller) as Step),
    clock: () => fc.constantFrom(900, 2400, 4000, 86_400).map((move) => new ClockStep(move) as Step),
    start: () => startArbitrary(),
    continue: () => continueArbitrary(fc.constant(FOCUS)),
    'refused turn': () => refusedTurnArbitrary(fc.constant(FOCUS)),
    exchange: () => fc.constantFrom(...(can.grants.length > 0 ? can.grants : (['location'] as const))).map((grant) => new ExchangeStep(grant) as Step),
    foreign: () => fc.constant(new ForeignStep() as Step),
  };
}

/** What every walk starts with, so that every kind applies from its first step: a secure file, a session. */
const prelude = () => [plainUpload({ flag: 'true' }), new StartStep('deprecated', 0)];

export type WalkName = 'every pair' | 'at once';

/**
 * The steps of a walk, position by position: every ordered pair of the target's kinds one after the other ('every
 * pair'), or every pair of kinds at once ('at once'). The seed draws each step's values, never which kinds follow
 * which. The clock crosses the change halfway through the circuit, where it can: each kind is seen in both regimes.
 */
export function walkOf(name: WalkName, can: Capabilities): fc.Arbitrary<Step>[] {
  const operations = operationsOf(can);
  // Each kind's operations numbered along the walk: the n-th upload takes the n-th relations.
  const counts = new Map<Kind, number>();
  const operationOf = (kind: Kind) => {
    const n = counts.get(kind) ?? 0;
    counts.set(kind, n + 1);
    return (operations[kind] as (n: number) => fc.Arbitrary<Step>)(n);
  };
  const kinds = kindsOf(can);
  const start = prelude().map((step) => fc.constant(step as Step));
  if (name === 'at once') {
    const pairs = kinds.flatMap((a, i) => kinds.slice(i).map((b) => [a, b] as const));
    return [...start, ...pairs.map(([a, b]) => fc.tuple(operationOf(a), operationOf(b)).map((pair) => new ParallelStep(pair) as Step))];
  }
  const circuit = circuitOf(kinds);
  const across = circuit.indexOf('clock', Math.floor(circuit.length / 2));
  const walk = circuit.map((kind, i) => (i === across ? fc.constant(new ClockStep('across the change or on') as Step) : operationOf(kind)));
  const { before, after } = everyState(kinds);
  return [...start, ...before, ...walk, ...after];
}

/**
 * What the circuit leaves to the seed, sent whatever it is, so that each kind is seen in each of its states
 * (coverage.ts): before the circuit, before the change, the configured token alone tried on the other location, the
 * prelude's session refused and continued at its second turn and at a later one, a permanent file read, a secure one
 * read and signed within its hour, the clock moved; after it, after the change, an upload refused, a secure file read
 * and signed past its hour and the clock's slack (judged, not open), then read by every other anonymous route. Drawn,
 * the flags, moves and sessions missed some states at each seed (85 to 95 % of them).
 */
function everyState(kinds: readonly Kind[]): { before: fc.Arbitrary<Step>[]; after: fc.Arbitrary<Step>[] } {
  const has = (kind: Kind) => kinds.includes(kind);
  const steps = (...list: Step[]) => list.map((step) => fc.constant(step));
  const readAndSign = () => steps(new ReadStep(FOCUS), ...(has('signed URL') ? [new SignedStep(FOCUS, 'filesReadonly')] : []));
  const turns = has('refused turn') && has('continue') ? [refusedTurnArbitrary(fc.constant(FOCUS)), continueArbitrary(fc.constant(FOCUS))] : [];
  return {
    before: [
      ...steps(...(has('foreign') ? [new ForeignStep()] : [])),
      ...turns,
      ...turns,
      ...steps(plainUpload({ flag: 'absent' }), new ReadStep(FOCUS), plainUpload({ flag: 'true' })),
      ...readAndSign(),
      ...steps(...(has('clock') ? [new ClockStep(900)] : [])),
    ],
    after: [
      ...(has('refused upload') ? [refusedUploadArbitrary()] : []),
      ...steps(plainUpload({ flag: 'true' }), ...(has('clock') ? [new ClockStep(SECURE_PUBLIC_WINDOW_SECONDS + (2 * CLOCK_SLACK_MS) / 1000)] : [])),
      ...readAndSign(),
      // Private now, and signed since: no other anonymous route may reach it either.
      ...(has('clock') ? steps(...OTHER_ROUTES.map((route) => new ReadStep(FOCUS, route))) : []),
    ],
  };
}

/** The relations of data this target allows: another location's only where files can be stored there. */
export function relationsOf(can: Capabilities): string[] {
  return Object.entries(RELATIONS).flatMap(([dimension, relations]) =>
    Object.keys(relations)
      .filter((relation) => can.otherLocation || !(dimension === 'location' && relation === 'other'))
      .map((relation) => `${dimension}: ${relation}`),
  );
}
