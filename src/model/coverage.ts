// What the model's sequences exercised, counted against what the model defines: each ordered pair of operation kinds
// one after the other (the second on the file or session the first acted on), each pair of kinds at once, each kind in
// each state of what it acts on, each relation between an operation's data and an earlier one's. The pairs, the pairs
// at once and the relations depend on which kinds the target offers (a clock to move, the other location's settings),
// never on the seed; nor do the states a kind is seen in, which the walk of every pair visits in turn (generator.ts, everyState).
import { SECURE_PUBLIC_WINDOW_SECONDS } from '../contract/contract.ts';
import { type CoverageRecord, type Kind, pairAtOnce } from '../contract/sequences.ts';
import type { Model } from './model.ts';

/** The state a step of `kind` is sent in. */
function stateOf(kind: Kind, model: Readonly<Model>): string {
  const regime = model.regime() === 'after' ? 'after the change' : 'before the change';
  const file = model.focus.file;
  switch (kind) {
    case 'read':
    case 'signed URL':
      if (file === undefined || file.kind === 'permanent') return kind === 'read' ? 'permanent' : 'secure within its hour';
      return model.now - file.uploadedAt < SECURE_PUBLIC_WINDOW_SECONDS * 1000 ? 'secure within its hour' : 'secure after its hour';
    case 'start':
      return model.sessions.length === 0 ? 'no session yet' : 'sessions open';
    case 'continue':
    case 'refused turn':
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

  /** Steps sent at once, by their kinds (a composite step's is 'composite'). */
  atOnce(sent: readonly (Kind | 'composite')[]): void {
    const kinds = sent.filter((kind): kind is Kind => kind !== 'composite');
    if (kinds.length === 2) this.#atOnce.add(pairAtOnce(kinds[0], kinds[1]));
    this.#together = sent.length;
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
