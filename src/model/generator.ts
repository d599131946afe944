// Which operations each rule's sequences draw, and how often, and the step each sequence ends with.
import fc from 'fast-check';
import { BYTES_RELATIONS, type LocationRelation, NAME_RELATIONS } from '../contract/relations.ts';
import { CLOCK_SLACK_MS, type SecureFlag, type UploadTarget } from './model.ts';
import { ClockStep } from './clock.ts';
import { OTHER_ROUTES } from '../checks/privacy.ts';
import { ReadStep, readSweep, type SignedCaller, SignedStep } from './files.ts';
import { ParallelStep } from './overlaps.ts';
import { AuditStep } from './audit.ts';
import { pairwise } from './covering.ts';
import { CUTOVER_EARLIEST, CUTOVER_LATEST } from '../time/server-clock.ts';
import { ContinueStep, continueArbitrary, EverySessionStep, RefusedTurnStep, refusedTurnArbitrary, startArbitrary, StartStep } from './sessions.ts';
import { type Kind, KINDS } from '../contract/sequences.ts';
import { mergedUploadForms } from '../contract/cases.ts';
import type { Spelling } from '../contract/spelling.ts';
import { SECURE_PUBLIC_WINDOW_SECONDS } from '../contract/contract.ts';
import { BEFORE_FOCUS, FOCUS, Step } from './step.ts';
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
 * The steps each drawn sequence of a profile ends with: what the drawn steps left is then looked at, whatever they
 * were: every secure file's signed URL, a later file of an upload among them; an upload under an earlier non-secure file's name, then every file read; a session on each path, then
 * every session continued after others began; a token of each exchange, then every token tried; every target across
 * the change; a secure upload in every wire form. Drawn only, a fault that needs that last look went unseen at some
 * seeds (signed-url-first-file-of-upload at 6, upload-name-overwrites at 3, session-continues-latest at 5, with three
 * sequences a test; the wire forms' two faults at 1, with two). Then the final reads of every object (audit.ts).
 */
export function closingOf(name: ProfileName, can: Capabilities): Step[] {
  return [closingStepOf(name, can), new AuditStep()];
}

function closingStepOf(name: ProfileName, can: Capabilities): Step {
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

export type WalkName = 'every pair' | 'at once' | 'histories';

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
  const audit = fc.constant(new AuditStep() as Step);
  if (name === 'histories') return [...historiesOf(can).map((step) => fc.constant(step)), audit];
  if (name === 'at once') {
    const pairs = kinds.flatMap((a, i) => kinds.slice(i).map((b) => [a, b] as const));
    return [...start, ...pairs.map(([a, b]) => fc.tuple(operationOf(a), operationOf(b)).map((pair) => new ParallelStep(pair) as Step)), audit];
  }
  const circuit = circuitOf(kinds);
  const across = circuit.indexOf('clock', Math.floor(circuit.length / 2));
  const walk = circuit.map((kind, i) => (i === across ? fc.constant(new ClockStep('across the change or on') as Step) : operationOf(kind)));
  const { before, after } = everyState(kinds);
  return [...start, ...before, ...walk, ...after, audit];
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

/**
 * The dimensions of two related uploads, the rows of the histories walk (a covering array: each value of each meets
 * each of every other, whatever the seed): the regime they are sent in, the secure flags of an earlier upload and of a
 * later one (before the change, each flag decides the kind), how the later's first file's name and bytes relate to the
 * earlier's, whether the later goes alone or at once with a sibling (the earlier's flag, the same relation), how many
 * files each holds (three and three at once pass the limit of one request together), and whether a copy of the later
 * goes to the other location too (in turn after it, or at once with both: three in flight), and the form the later
 * and its copy are written in (the suite's own, or others HTTP and multipart permit, request-forms.json).
 */
export const HISTORY_DIMENSIONS = {
  regime: ['before the change', 'after the change'],
  flags: ['absent→true', 'true→absent', 'true→true', 'absent→absent', 'false→true', 'true→false'],
  name: ['fresh', 'equal', 'case'],
  bytes: ['fresh', 'equal'],
  together: ['in turn', 'at once'],
  files: ['1', '3'],
  location: ['own', 'other'],
  form: ['own', 'merged 1', 'merged 2'],
} as const satisfies Record<string, readonly string[]>;

/**
 * The later upload's form, read once: the suite's own, or one of the protocol's other forms merged into as many as the
 * dimension has other values (cases.ts; two: three values keep the array at its rows).
 */
const [MERGED_1, MERGED_2] = mergedUploadForms(HISTORY_DIMENSIONS.form.length - 1);
const HISTORY_FORMS: Record<(typeof HISTORY_DIMENSIONS.form)[number], Spelling | undefined> = { own: undefined, 'merged 1': MERGED_1, 'merged 2': MERGED_2 };

/** The sessions the histories walk holds at its end, the oldest continued last (audit.ts): past what a small store keeps. */
export const HISTORY_SESSIONS = 24;

/**
 * The histories walk, the same steps at every seed: the rows of HISTORY_DIMENSIONS' covering array, each a pair of
 * related uploads and a read of the later's first file, those before the change first, then the clock across it;
 * before it, a secure file of a permanent file's bytes signed twice and read, and three uploads at once (each flag,
 * the last file's name) and an upload, a read and a signed URL at once; then sessions on each path continued by each
 * token, alone and at once, refused at their second turn and a later one, grown to HISTORY_SESSIONS. The final reads
 * (audit.ts) then look at every file past its hour and continue every session, the oldest first. So every reachable
 * event (src/contract/sequences.ts EVENTS) of the kinds it sends is sent by construction, and a store that dedupes
 * bytes across the flag, keys by a folded name, lets one request's flag reach another's in flight, or hands a later
 * upload an older file's slug shows it whatever the seed: drawn sequences reached those at some seeds and styles only.
 */
export function historiesOf(can: Capabilities): Step[] {
  const dimensions = { ...HISTORY_DIMENSIONS, location: can.otherLocation ? HISTORY_DIMENSIONS.location : (['own'] as const) };
  const files = (count: string) => Array.from({ length: Number(count) }, (_, i) => ({ extension: (['pdf', 'png', 'txt'] as const)[i], size: i, unicode: i === 0 }));
  const rowsIn = (regime: string) =>
    pairwise(dimensions)
      .filter((row) => row.regime === regime)
      .flatMap((row): Step[] => {
        const [before, after] = row.flags.split('→') as [SecureFlag, SecureFlag];
        const relation = { name: row.name, bytes: row.bytes, earlier: FOCUS };
        const earlier = plainUpload({ flag: before, files: files(row.files) });
        const spelling = HISTORY_FORMS[row.form];
        const later = plainUpload({ flag: after, files: files(row.files), relation, ...(spelling ? { spelling } : {}) });
        // The other location takes the later's copy besides, never in its place: each relation stays in the location.
        const elsewhere = row.location === 'other' ? [plainUpload({ flag: after, files: files(row.files), relation, location: 'other', ...(spelling ? { spelling } : {}) })] : [];
        if (row.together === 'in turn') return [earlier, later, new ReadStep(FOCUS), ...elsewhere];
        return [earlier, new ParallelStep([later, plainUpload({ flag: before, files: files(row.files), relation }), ...elsewhere]), new ReadStep(FOCUS)];
      });
  const equal = { name: 'equal', bytes: 'fresh', earlier: FOCUS } as const;
  const signed = () => new SignedStep(FOCUS, 'filesReadonly');
  const twins = [plainUpload({}), plainUpload({ flag: 'true', relation: { name: 'fresh', bytes: 'equal', earlier: FOCUS } }), signed(), signed(), new ReadStep(FOCUS)];
  const together = [
    new ParallelStep((['true', 'absent', 'false'] as const).map((flag) => plainUpload({ flag, relation: equal }))),
    plainUpload({ flag: 'true' }),
    new ParallelStep([plainUpload({ flag: 'true', relation: equal }), new ReadStep(FOCUS), signed()]),
  ];
  // A secure file read past its hour after a later secure upload within it: a later upload renews no earlier hour.
  const renewed = can.movable ? [plainUpload({ flag: 'true' }), new ClockStep(1800), plainUpload({ flag: 'true' }), new ClockStep(2200), new ReadStep(FOCUS), new ReadStep(BEFORE_FOCUS)] : [];
  const across = can.movable ? dayOfTheChange() : [];
  return [...rowsIn('before the change'), ...twins, ...together, ...renewed, ...across, ...rowsIn('after the change'), ...sessionsOf(can)];
}

/**
 * Across the day of the change, whose zone the contract leaves open (server-clock.ts): a secure upload to the email
 * conversation every hour, at twenty past, read 45 minutes later, so that each whole hour, half hour and quarter to
 * of the day (the midnight of every zone) falls within a file's public hour. A secure upload is secure in either
 * regime, so its hour is judged whatever the zone; a server that cuts the hour at its own midnight shows it.
 */
function dayOfTheChange(): Step[] {
  const hour = 3_600_000;
  const first = CUTOVER_EARLIEST - 40 * 60_000;
  return Array.from({ length: Math.ceil((CUTOVER_LATEST - first) / hour) }, (_, i) => [
    new ClockStep({ to: first + i * hour }),
    plainUpload({ flag: 'true' }),
    new ClockStep({ to: first + i * hour + 45 * 60_000 }),
    new ReadStep(FOCUS),
  ]).flat();
}

/** The sessions of the histories walk: each path first and later, each token, alone and at once, refused, grown. */
function sessionsOf(can: Capabilities): Step[] {
  const turn = (caller: number) => new ContinueStep(FOCUS, caller);
  const both = () => new ParallelStep([turn(0), turn(1)]);
  const start = () => new StartStep('deprecated', 0);
  return [
    new StartStep('replacement', 0),
    start(),
    ...(can.grants.length > 0 ? [new ExchangeStep(can.grants[0])] : []),
    turn(0),
    turn(1),
    start(),
    both(),
    both(),
    start(),
    turn(1),
    turn(0),
    start(),
    new RefusedTurnStep(FOCUS, 'without message'),
    turn(0),
    new RefusedTurnStep(FOCUS, 'without locationId'),
    ...Array.from({ length: HISTORY_SESSIONS - 5 }, start),
  ];
}
