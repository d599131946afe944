// What the model's sequences exercised, counted against what the model defines (src/contract/sequences.ts): each
// event (an operation by the classes of its values, of its object's state and of what was done to it before, counted
// by each pair of classes), each ordered pair of operation kinds one after the other (the second on the file or
// session the first acted on), each pair of kinds at once, and how far the state grew.
import { classPairs, type CoverageRecord, EVENTS, eventName, eventsOf, type Kind, pairAtOnce, type Reach, type Volume } from '../contract/sequences.ts';
import type { Model } from './model.ts';

export class Coverage {
  readonly #pairs = new Set<string>();
  readonly #atOnce = new Set<string>();
  readonly #events = new Set<string>();
  readonly #volume: Volume = { files: 0, sessions: 0, turns: 0 };
  readonly #defined: ReturnType<typeof eventsOf>;
  #last: Kind | undefined;
  /** Steps still to be sent of a group at once: they follow no step, and none follows them. */
  #together = 0;
  /** Whether the step being sent is one of a group at once. */
  #flight: 'alone' | 'at once' = 'alone';

  constructor(
    /** The kinds this target offers. */
    readonly kinds: readonly Kind[],
    reach: Reach,
  ) {
    this.#defined = eventsOf(kinds, reach);
  }

  /** A new sequence: its first step follows none. */
  begin(): void {
    this.#last = undefined;
    this.#together = 0;
  }

  sent(kind: Kind): void {
    this.#flight = this.#together > 0 ? 'at once' : 'alone';
    if (this.#together > 0) {
      this.#together -= 1;
      this.#last = undefined;
      return;
    }
    if (this.#last !== undefined) this.#pairs.add(`${this.#last} → ${kind}`);
    this.#last = kind;
  }

  /**
   * The event a step of `kind` sends, by the class of each of its dimensions (EVENTS), as the step knows them once it
   * has chosen its object; whether it is in flight with others is known here.
   */
  event(kind: Kind, classes: Record<string, string>): void {
    const values = { ...Object.fromEntries(Object.entries(classes).map(([dimension, value]) => [dimension, [value]])), ...('flight' in EVENTS[kind] ? { flight: [this.#flight] } : {}) };
    for (const pair of classPairs(kind, values)) this.#events.add(eventName(kind, pair));
  }

  /** Steps sent at once, by their kinds (a composite step's is 'composite'). */
  atOnce(sent: readonly (Kind | 'composite')[]): void {
    const kinds = sent.filter((kind): kind is Kind => kind !== 'composite');
    for (const [i, a] of kinds.entries()) for (const b of kinds.slice(i + 1)) this.#atOnce.add(pairAtOnce(a, b));
    this.#together = sent.length;
  }

  /** The state a sequence reached: its files in LOCATION_ID, its sessions, its longest session's turns. */
  reached(model: Readonly<Model>): void {
    const files = model.files.filter((file) => file.location === 'own').length;
    const turns = Math.max(0, ...model.sessions.map((session) => session.turns));
    Object.assign(this.#volume, { files: Math.max(this.#volume.files, files), sessions: Math.max(this.#volume.sessions, model.sessions.length), turns: Math.max(this.#volume.turns, turns) });
  }

  record(): CoverageRecord {
    return {
      kinds: [...this.kinds],
      pairs: [...this.#pairs].sort(),
      atOnce: [...this.#atOnce].sort(),
      events: [...this.#events].sort(),
      eventsDefined: [...this.#defined.defined],
      unreachable: { ...this.#defined.unreachable },
      volume: { ...this.#volume },
    };
  }
}
