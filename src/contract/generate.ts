// The cases of a rule's domain: every pair of values of its dimensions (a greedy all-pairs cover, small enough to
// write here: covertable is not a dependency), and the arbitrary that fast-check samples from a seed and shrinks a
// failure with, towards each dimension's first, simplest value.
import fc from 'fast-check';
import { type Case, DOMAINS, type Dimension, type PropertyRule, RULE_DOMAINS, type Value, valuesFor } from './domains.ts';

/** The values each dimension takes in one run, and the requests among them the contract allows. */
export interface Space {
  readonly dimensions: Readonly<Record<string, readonly Value[]>>;
  readonly valid: (request: Case) => boolean;
  /** A dimension whose value costs a request to change (the server's instant): the cover runs grouped by it. */
  readonly groupBy?: string;
  /** Dimensions whose largest value holds the others (Dimension.cumulative): the cover takes only it, samples and shrinking all. */
  readonly cumulative?: readonly string[];
}

/**
 * The space of a rule: every dimension of its operation at the values the rule takes, each narrowed to those the
 * target can reach (`reachable`: a regime a server without a test clock is not in, a field it has no id for).
 */
export function spaceOf(rule: PropertyRule, reachable: Readonly<Record<string, readonly Value[]>> = {}, valid: Space['valid'] = () => true, groupBy?: string): Space {
  const dimensions = DOMAINS[RULE_DOMAINS[rule].operation] as Record<string, Dimension>;
  const names = Object.keys(dimensions);
  const cumulative = names.filter((name) => dimensions[name].cumulative);
  return { dimensions: Object.fromEntries(names.map((name) => [name, reachable[name] ?? valuesFor(rule, name)])), valid, groupBy, cumulative };
}

/** The dimensions of the space that take more than one value. */
export const variedOf = (space: Space) => Object.keys(space.dimensions).filter((name) => space.dimensions[name].length > 1);

/** Every valid request of the space, the first values first. */
export function product(space: Space): Case[] {
  let cases: Case[] = [{}];
  for (const [name, values] of Object.entries(space.dimensions)) cases = cases.flatMap((partial) => values.map((value) => ({ ...partial, [name]: value })));
  return cases.filter(space.valid);
}

/** The pairs of values of the varying dimensions a request covers; a single varying dimension's values alone. */
function pairsOf(names: readonly string[], request: Case): string[] {
  const keys = names.map((name) => `${name}=${request[name]}`);
  if (keys.length < 2) return keys;
  return keys.flatMap((key, i) => keys.slice(i + 1).map((other) => `${key} & ${other}`));
}

/**
 * Valid requests that together hold every pair of values that some valid request holds: greedily, the request
 * covering most pairs not yet covered, the earliest on a tie, so the cover is the same in every run.
 */
export function pairwise(space: Space): Case[] {
  const largest = Object.fromEntries((space.cumulative ?? []).map((name) => [name, space.dimensions[name].slice(-1)]));
  const covered: Space = { ...space, dimensions: { ...space.dimensions, ...largest } };
  return coverOf(covered);
}

function coverOf(space: Space): Case[] {
  const names = variedOf(space);
  const requests = product(space);
  if (names.length === 0) return requests.slice(0, 1);
  // Each pair as a number, each request as the numbers of its pairs: the greedy scan below is the hot loop of a run.
  const ids = new Map<string, number>();
  const idOf = (pair: string) => {
    if (!ids.has(pair)) ids.set(pair, ids.size);
    return ids.get(pair) as number;
  };
  const pairs = requests.map((request) => pairsOf(names, request).map(idOf));
  const uncovered = new Uint8Array(ids.size).fill(1);
  let left = ids.size;
  const chosen: Case[] = [];
  // The requests that still cover a pair not yet covered, in order: a request that covers none never will again.
  let live = requests.map((_, i) => i);
  while (left > 0) {
    let best = live[0];
    let gain = -1;
    const next: number[] = [];
    for (const i of live) {
      let covers = 0;
      for (const pair of pairs[i]) covers += uncovered[pair];
      if (covers > 0) next.push(i);
      if (covers > gain) [best, gain] = [i, covers];
    }
    chosen.push(requests[best]);
    for (const pair of pairs[best]) {
      left -= uncovered[pair];
      uncovered[pair] = 0;
    }
    live = next;
  }
  const { groupBy } = space;
  if (groupBy === undefined) return chosen;
  const rank = (request: Case) => space.dimensions[groupBy].indexOf(request[groupBy]);
  return chosen.sort((a, b) => rank(a) - rank(b));
}

/** fast-check's arbitrary of the space: a run of whole numbers as an integer (it shrinks step by step), any other list by its values. */
export function arbitraryOf(space: Space): fc.Arbitrary<Case> {
  const of = (values: readonly Value[]): fc.Arbitrary<Value> => {
    const numbers = values.every((value, i) => typeof value === 'number' && value === (values[0] as number) + i);
    return numbers ? fc.integer({ min: values[0] as number, max: values.at(-1) as number }) : fc.constantFrom(...values);
  };
  return fc.record(Object.fromEntries(Object.entries(space.dimensions).map(([name, values]) => [name, of(values)]))).filter(space.valid);
}
