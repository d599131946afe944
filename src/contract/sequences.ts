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

/** The states a kind of operation is counted in: of the file or session it acts on, or of the dated change. */
export const STATES: Record<Kind, readonly string[]> = {
  upload: ['before the change', 'after the change'],
  'refused upload': ['before the change', 'after the change'],
  read: ['permanent', 'secure within its hour', 'secure after its hour'],
  'signed URL': ['secure within its hour', 'secure after its hour'],
  clock: ['before the change', 'after the change'],
  start: ['no session yet', 'sessions open'],
  continue: ['second turn', 'later turn'],
  // A refused turn continues a session the run holds: it is the turn that session's next would have been.
  'refused turn': ['second turn', 'later turn'],
  exchange: ['configured token only', 'exchanged tokens held'],
  foreign: ['configured token only', 'exchanged tokens held'],
};

export interface Figure {
  covered: number;
  defined: number;
}

/** The coverage of one test's sequences, as its annotation carries it: what was covered, by name, and out of how many. */
export interface CoverageRecord {
  kinds: Kind[];
  pairs: string[];
  atOnce: string[];
  transitions: string[];
  relations: string[];
  /** The relations the model defines that this target allows (src/contract/relations.ts). */
  relationsDefined: string[];
}

/** A pair of kinds at once, either order. */
export const pairAtOnce = (a: Kind, b: Kind) => [a, b].sort().join(' ∥ ');

/** The figures of a union of records: each kind of coverage, covered out of defined over the kinds the target offers. */
export function figuresOf(records: readonly CoverageRecord[]): { pairs: Figure; atOnce: Figure; transitions: Figure; relations: Figure; missing: string[] } | undefined {
  if (records.length === 0) return undefined;
  const kinds = [...new Set(records.flatMap((record) => record.kinds))].sort((a, b) => KINDS.indexOf(a) - KINDS.indexOf(b));
  const union = (key: 'pairs' | 'atOnce' | 'transitions' | 'relations' | 'relationsDefined') => new Set(records.flatMap((record) => record[key]));
  const pairs = kinds.flatMap((a) => kinds.map((b) => `${a} → ${b}`));
  const atOnce = [...new Set(kinds.flatMap((a) => kinds.map((b) => pairAtOnce(a, b))))];
  const transitions = kinds.flatMap((kind) => STATES[kind].map((state) => `${kind} in ${state}`));
  const count = (defined: string[], covered: Set<string>) => ({ covered: defined.filter((item) => covered.has(item)).length, defined: defined.length });
  const coveredPairs = union('pairs');
  return {
    pairs: count(pairs, coveredPairs),
    atOnce: count(atOnce, union('atOnce')),
    transitions: count(transitions, union('transitions')),
    relations: count([...union('relationsDefined')], union('relations')),
    missing: pairs.filter((pair) => !coveredPairs.has(pair)),
  };
}

const percent = ({ covered, defined }: Figure) => `${defined === 0 ? 100 : Math.floor((100 * covered) / defined)} % (${covered}/${defined})`;

/** The figure in one line, for the matrix and the run's last lines. */
export function modelCoverageLine(records: readonly CoverageRecord[]): string | undefined {
  const figures = figuresOf(records);
  if (figures === undefined) return undefined;
  const { pairs, atOnce, transitions, relations } = figures;
  return `Model coverage: ordered pairs of operation kinds ${percent(pairs)}, pairs at once ${percent(atOnce)}, kinds in each state ${percent(transitions)}, relations of data ${percent(relations)}`;
}
