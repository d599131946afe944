// The operation kinds of the contract's state machine as the model draws them, the states each is counted in, and
// what covering them means: each ordered pair of kinds one after the other, each pair at once, each kind in each state,
// each relation of data (relations.ts). src/model/coverage.ts counts what a run's sequences covered; the figure here is
// the one the reports print, whatever the seed.

/**
 * The kinds of operation of the model, each a family of requests: the coverage counts which kinds followed which (on
 * the same file or session), and which were sent at once.
 */
export const KINDS = ['upload', 'refused upload', 'read', 'signed URL', 'clock', 'start', 'continue', 'refused turn', 'exchange', 'foreign'] as const;
export type Kind = (typeof KINDS)[number];

const REGIME = ['before the change', 'after the change'] as const;
const FLIGHT = ['alone', 'at once'] as const;
const TOKENS = ['configured token only', 'exchanged tokens held'] as const;
const TURN = ['second', 'later'] as const;

/**
 * The events of the model: each kind of operation with the classes of its values, of the state of the object it acts
 * on and of what was done to that object before. An event is counted by each pair of its classes (of two dimensions
 * of one operation): the figure of what makes a fault show, which a covering array reaches (src/model/covering.ts).
 * A kind of one dimension is counted by its classes alone.
 */
export const EVENTS = {
  upload: { regime: REGIME, flag: ['absent', 'false', 'true'], files: ['one', 'several'], name: ['fresh', 'related'], bytes: ['fresh', 'equal'], location: ['own', 'other'], form: ['own', 'other'], flight: FLIGHT },
  'refused upload': { regime: REGIME },
  read: { file: ['permanent', 'secure within its hour', 'secure after its hour'], history: ['never signed', 'signed'], twin: ['none', 'bytes of a file of the other kind'] },
  'signed URL': { file: ['secure within its hour', 'secure after its hour'], caller: ['filesReadonly', 'noFilesScope', 'foreignAccess'], history: ['not signed yet', 'signed before'] },
  clock: { regime: REGIME },
  start: { path: ['deprecated', 'replacement'], sessions: ['none yet', 'open'] },
  continue: { turn: TURN, caller: ['its own token', 'another token'], flight: FLIGHT },
  'refused turn': { turn: TURN },
  exchange: { tokens: TOKENS },
  foreign: { tokens: TOKENS },
} as const satisfies Record<Kind, Record<string, readonly string[]>>;

/** What a target offers that some events need (src/model/generator.ts Capabilities). */
export interface Reach {
  movable: boolean;
  otherLocation: boolean;
  foreign: boolean;
  /** A token can be obtained by an exchange. */
  grants: boolean;
}

/** A class of an event's value, `dimension=class`. */
type Class = `${string}=${string}`;

/**
 * The pairs of classes no correct run can send, each with why: by the contract's state (a permanent file has no signed
 * URL), by what the model sends (a public file tells nothing of who may sign it), or by what the target offers.
 */
function unreachableWhy(kind: Kind, classes: readonly Class[], reach: Reach): string | undefined {
  const has = (c: Class) => classes.includes(c);
  if (!reach.movable && classes.some((c) => c === 'regime=before the change' || c === 'twin=bytes of a file of the other kind' || c === 'file=permanent')) return 'no test clock: the target is past the change, where every upload is secure';
  if (!reach.movable && has('file=secure after its hour')) return 'no test clock: no file passes its hour within a run';
  if (!reach.otherLocation && has('location=other')) return 'FOREIGN_LOCATION_ID, FOREIGN_ACCESS_TOKEN and a foreign conversation or contact are not all set';
  if (!reach.foreign && has('caller=foreignAccess')) return 'FOREIGN_ACCESS_TOKEN is not set';
  if (!reach.grants && (has('caller=another token') || has('tokens=exchanged tokens held'))) return 'no token can be obtained (no refresh chain put back before each sequence, no AGENCY_ACCESS_TOKEN): the run holds ACCESS_TOKEN alone';
  if (kind === 'read' && has('file=permanent') && has('history=signed')) return 'only a secure file has a signed URL';
  if (kind === 'signed URL' && has('file=secure within its hour') && !has('caller=filesReadonly') && classes.some((c) => c.startsWith('caller='))) {
    return 'a file within its public hour may be served to any caller: only a private one tells what a token reaches, so the model asks it then only';
  }
  return undefined;
}

/** The events of `kinds`, as the figure counts them: `kind: a=x & b=y` for each pair of classes of two dimensions. */
export function eventsOf(kinds: readonly Kind[], reach: Reach): { defined: string[]; unreachable: Record<string, string> } {
  const defined: string[] = [];
  const unreachable: Record<string, string> = {};
  for (const kind of kinds) {
    for (const classes of classPairs(kind, Object.fromEntries(Object.entries(EVENTS[kind]).map(([dimension, values]) => [dimension, [...values]])))) {
      const event = eventName(kind, classes);
      const why = unreachableWhy(kind, classes, reach);
      if (why === undefined) defined.push(event);
      else unreachable[event] = why;
    }
  }
  return { defined, unreachable };
}

/** Each pair of classes of two dimensions of `values` (each class alone where there is one dimension). */
export function classPairs(kind: Kind, values: Record<string, readonly string[]>): Class[][] {
  const dimensions = Object.keys(EVENTS[kind]).filter((dimension) => values[dimension] !== undefined);
  const classes = (dimension: string) => values[dimension].map((value): Class => `${dimension}=${value}`);
  if (dimensions.length === 1) return classes(dimensions[0]).map((c) => [c]);
  return dimensions.flatMap((a, i) => dimensions.slice(i + 1).flatMap((b) => classes(a).flatMap((x) => classes(b).map((y) => [x, y]))));
}

export const eventName = (kind: Kind, classes: readonly Class[]) => `${kind}: ${classes.join(' & ')}`;

/** How far the run grew the state: the most files in one location, sessions of one run, turns of one session. */
export interface Volume {
  files: number;
  sessions: number;
  turns: number;
}

export interface Figure {
  covered: number;
  defined: number;
}

/** The coverage of one test's sequences, as its annotation carries it: what was covered, by name, and out of how many. */
export interface CoverageRecord {
  kinds: Kind[];
  pairs: string[];
  atOnce: string[];
  /** The events sent (eventsOf's names). */
  events: string[];
  /** The events this target allows, and those it does not, with why. */
  eventsDefined: string[];
  unreachable: Record<string, string>;
  volume: Volume;
}

/** A pair of kinds at once, either order. */
export const pairAtOnce = (a: Kind, b: Kind) => [a, b].sort().join(' ∥ ');

/** The figures of a union of records: each kind of coverage, covered out of defined over the kinds the target offers. */
export function figuresOf(records: readonly CoverageRecord[]): { pairs: Figure; atOnce: Figure; events: Figure; volume: Volume; missing: string[]; eventsMissing: string[]; unreachable: Record<string, string> } | undefined {
  if (records.length === 0) return undefined;
  const kinds = [...new Set(records.flatMap((record) => record.kinds))].sort((a, b) => KINDS.indexOf(a) - KINDS.indexOf(b));
  const union = (key: 'pairs' | 'atOnce' | 'events' | 'eventsDefined') => new Set(records.flatMap((record) => record[key]));
  const pairs = kinds.flatMap((a) => kinds.map((b) => `${a} → ${b}`));
  const atOnce = [...new Set(kinds.flatMap((a) => kinds.map((b) => pairAtOnce(a, b))))];
  const count = (defined: string[], covered: Set<string>) => ({ covered: defined.filter((item) => covered.has(item)).length, defined: defined.length });
  const coveredPairs = union('pairs');
  const events = union('events');
  const eventsDefined = [...union('eventsDefined')];
  // An event one test's target cannot reach and another's can is reachable.
  const unreachable = Object.fromEntries(records.flatMap((record) => Object.entries(record.unreachable)).filter(([event]) => !eventsDefined.includes(event)));
  const most = (key: keyof Volume) => Math.max(0, ...records.map((record) => record.volume[key]));
  return {
    pairs: count(pairs, coveredPairs),
    atOnce: count(atOnce, union('atOnce')),
    events: count(eventsDefined, events),
    volume: { files: most('files'), sessions: most('sessions'), turns: most('turns') },
    missing: pairs.filter((pair) => !coveredPairs.has(pair)),
    eventsMissing: eventsDefined.filter((event) => !events.has(event)),
    unreachable,
  };
}

const percent = ({ covered, defined }: Figure) => `${defined === 0 ? 100 : Math.floor((100 * covered) / defined)} % (${covered}/${defined})`;

/** The figure in one line, for the matrix and the run's last lines. */
export function modelCoverageLine(records: readonly CoverageRecord[]): string | undefined {
  const figures = figuresOf(records);
  if (figures === undefined) return undefined;
  const { pairs, atOnce, events, volume, unreachable } = figures;
  const out = Object.keys(unreachable).length;
  return `Model coverage: events (pairs of value classes of one operation) ${percent(events)} of the reachable${out > 0 ? `, ${out} unreachable (model-coverage.svg says why)` : ''}; ordered pairs of operation kinds ${percent(pairs)}, pairs at once ${percent(atOnce)}; volume ${volume.files} files in one location, ${volume.sessions} sessions, ${volume.turns} turns in one session`;
}
