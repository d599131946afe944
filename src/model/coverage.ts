// What the model's sequences exercised, counted against what the model defines: each ordered pair of operation kinds
// one after the other (the second on the file or session the first acted on), each pair of kinds at once, each kind in
// each state of what it acts on, each relation between an operation's data and an earlier one's. The figure depends on
// which kinds the target offers (a clock to move, the other location's settings), never on the seed.
import type { Model } from './model.ts';
import { type Kind, KINDS, type Step } from './step.ts';

/** The states a kind of operation is counted in: of the file or session it acts on, or of the dated change. */
const STATES: Record<Kind, readonly string[]> = {
  upload: ['before the change', 'after the change'],
  'refused upload': ['before the change', 'after the change'],
  read: ['permanent', 'secure within its hour', 'secure after its hour'],
  'signed URL': ['secure within its hour', 'secure after its hour'],
  clock: ['before the change', 'after the change'],
  start: ['no session yet', 'sessions open'],
  continue: ['second turn', 'later turn'],
  'refused turn': ['no session yet', 'sessions open'],
  exchange: ['configured token only', 'exchanged tokens held'],
  foreign: ['configured token only', 'exchanged tokens held'],
};

const HOUR_MS = 3_600_000;

/** The state a step of `kind` is sent in. */
function stateOf(kind: Kind, model: Readonly<Model>): string {
  const regime = model.regime() === 'after' ? 'after the change' : 'before the change';
  const file = model.focus.file;
  switch (kind) {
    case 'read':
    case 'signed URL':
      if (file === undefined || file.kind === 'permanent') return kind === 'read' ? 'permanent' : 'secure within its hour';
      return model.now - file.uploadedAt < HOUR_MS ? 'secure within its hour' : 'secure after its hour';
    case 'start':
    case 'refused turn':
      return model.sessions.length === 0 ? 'no session yet' : 'sessions open';
    case 'continue':
      return (model.focus.session?.turns ?? 1) <= 1 ? 'second turn' : 'later turn';
    case 'exchange':
    case 'foreign':
      return model.tokens.length <= 1 ? 'configured token only' : 'exchanged tokens held';
    default:
      return regime;
  }
}

/** A relation a step drew between its data and an earlier step's (src/contract/relations.ts names them). */
export type Relation = `${string}: ${string}`;

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

export class Coverage {
  readonly #pairs = new Set<string>();
  readonly #atOnce = new Set<string>();
  readonly #transitions = new Set<string>();
  readonly #relations = new Set<string>();
  #last: Kind | undefined;
  /** Steps still to be sent of a pair at once: they follow no step, and none follows them. */
  #together = 0;

  constructor(
    /** The kinds this target offers. */
    readonly kinds: readonly Kind[],
    /** The relations of data it allows. */
    readonly relationsDefined: readonly string[],
  ) {}

  /** A new sequence: its first step follows none. */
  begin(): void {
    this.#last = undefined;
    this.#together = 0;
  }

  sent(kind: Kind, model: Readonly<Model>): void {
    this.#transitions.add(`${kind} in ${stateOf(kind, model)}`);
    if (this.#together > 0) {
      this.#together -= 1;
      this.#last = undefined;
      return;
    }
    if (this.#last !== undefined) this.#pairs.add(`${this.#last} → ${kind}`);
    this.#last = kind;
  }

  atOnce(steps: readonly Step[]): void {
    const kinds = steps.map((step) => step.kind).filter((kind): kind is Kind => kind !== 'composite');
    if (kinds.length === 2) this.#atOnce.add(pairAtOnce(kinds[0], kinds[1]));
    this.#together = steps.length;
  }

  related(relation: Relation): void {
    this.#relations.add(relation);
  }

  record(): CoverageRecord {
    return {
      kinds: [...this.kinds],
      pairs: [...this.#pairs].sort(),
      atOnce: [...this.#atOnce].sort(),
      transitions: [...this.#transitions].sort(),
      relations: [...this.#relations].sort(),
      relationsDefined: [...this.relationsDefined],
    };
  }
}

/** A pair of kinds at once, either order. */
const pairAtOnce = (a: Kind, b: Kind) => [a, b].sort().join(' ∥ ');

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
