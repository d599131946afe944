// The contract sentence by sentence: its testable units (sentences and table rows, in one normal form), where each
// rule's quote stands among them, the units no rule checks with the reason kept in contract/unchecked.json, and the
// coverage figure the reports give. A quote that no longer stands means the contract drifted from the catalogue.
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { CONTRACT_FILE, contractAnchor, headingAnchor } from './contract.ts';
import { type Level, RULES, type Rule } from './rules.ts';
import { describeErrors, validatorFor } from './schemas.ts';

/** One testable unit of the contract: a sentence of its prose or lists, or a row of one of its tables (not a header row). */
export interface Unit {
  readonly kind: 'sentence' | 'row';
  /** Its words in the normal form (normalForm). */
  readonly text: string;
  /** The number of the heading it stands under (`4.1`; '' under the title), as a rule cites it (§4.1). */
  readonly section: string;
  /** That heading's anchor (contractAnchor). */
  readonly anchor: string;
}

/** One line of the contract, as the contract's page shows it; `units` are the testable units the line holds. */
export type ContractLine =
  | { readonly kind: 'heading'; readonly depth: number; readonly text: string; readonly anchor: string }
  | { readonly kind: 'row'; readonly cells: readonly string[]; readonly header: boolean; readonly units: readonly Unit[] }
  | { readonly kind: 'text'; readonly marker: string; readonly indent: number; readonly units: readonly Unit[]; readonly label?: string }
  | { readonly kind: 'note'; readonly text: string }
  | { readonly kind: 'separator' }
  | { readonly kind: 'blank' };

/**
 * The one normal form of contract words and quotes: no Markdown code or emphasis marks, whitespace collapsed. Table
 * cells are joined by ` | `, list markers dropped; a quote's parts are joined by `…`.
 */
export const normalForm = (markdown: string): string => markdown.replace(/`|\*\*|__/g, '').replace(/\s+/g, ' ').trim();

/** A quote's verbatim parts: the words between its ellipses, each in the normal form. */
export const quoteParts = (quote: string): string[] => quote.split('…').map(normalForm).filter((part) => part !== '');

/** A line of prose as its sentences: a sentence ends at `.`, `!` or `?` before a space and a capital (`OAuth 2.0 access` does not). */
const sentencesOf = (text: string): string[] => normalForm(text).split(/(?<=[.!?])\s+(?=[A-Z{])/).filter((sentence) => sentence !== '');

/** A list item that only names the list below it (`Rules:`): not a sentence of its own. */
const isLabel = (sentence: string) => /^\S+:$/.test(sentence);

/** The line under a table's header row: `|---|---|`. */
const SEPARATOR = /^\|[\s|:-]+\|$/;

/** The contract's lines, each with its testable units; the page shows the same lines the rules are placed in. */
export function contractLines(markdown: string): ContractLine[] {
  const lines = markdown.split('\n');
  let section = '';
  let anchor = '';
  return lines.map((line, index): ContractLine => {
    const heading = /^(#+) (.*)$/.exec(line);
    if (heading) {
      section = /^(\d+(?:\.\d+)*)\.? /.exec(heading[2])?.[1] ?? '';
      anchor = headingAnchor(heading[2]);
      return { kind: 'heading', depth: heading[1].length, text: line, anchor };
    }
    if (line.trim() === '') return { kind: 'blank' };
    if (/^\s*<!--/.test(line)) return { kind: 'note', text: line };
    if (line.startsWith('|')) {
      if (SEPARATOR.test(line)) return { kind: 'separator' };
      const cells = line.slice(1, -1).split('|').map(normalForm);
      const header = SEPARATOR.test(lines[index + 1] ?? '');
      return { kind: 'row', cells, header, units: header ? [] : [{ kind: 'row', text: cells.join(' | '), section, anchor }] };
    }
    const item = /^(\s*)([-*]|\d+\.) (.*)$/.exec(line);
    const [indent, marker, words] = item ? [item[1].length, item[2], item[3]] : [0, '', line];
    const sentences = sentencesOf(words);
    // A list item's label ("Rules:") heads the items under it: shown, never a unit.
    const label = item ? sentences.find(isLabel) : undefined;
    const units = sentences.filter((sentence) => sentence !== label).map((text): Unit => ({ kind: 'sentence', text, section, anchor }));
    return { kind: 'text', marker, indent, units, ...(label === undefined ? {} : { label }) };
  });
}

/** Every testable unit of the contract, in order. */
export const unitsOf = (lines: readonly ContractLine[]): Unit[] => lines.flatMap((line) => ('units' in line ? line.units : []));

/**
 * The anchors of the sections a rule cites (`§4.1 rule 4, §8`): its quote must stand there. A section a new copy of the
 * contract no longer has leaves the quote standing nowhere, for the meta-test to name, and the reports' page still whole.
 */
const citedAnchors = (rule: Rule): Set<string> =>
  new Set(
    (rule.section.match(/§[\d.]+/g) ?? []).flatMap((citation) => {
      try {
        return [contractAnchor(citation)];
      } catch {
        return [];
      }
    }),
  );

/** Where a rule's quote stands: the units holding one of its parts, and the parts that stand in no unit of its sections. */
export interface Placement {
  readonly units: readonly Unit[];
  readonly missing: readonly string[];
}

/** A part shorter than this many words could stand anywhere: it proves no sentence is still there. */
export const MIN_PART_WORDS = 3;

export function placeQuote(rule: Rule, units: readonly Unit[]): Placement {
  const anchors = citedAnchors(rule);
  const cited = units.filter((unit) => anchors.has(unit.anchor));
  const found = quoteParts(rule.quote).map((part) => ({ part, units: cited.filter((unit) => unit.text.includes(part)) }));
  return {
    units: cited.filter((unit) => found.some((f) => f.units.includes(unit))),
    missing: found.filter((f) => f.units.length === 0).map((f) => f.part),
  };
}

/** Why the catalogue no longer follows the contract: each rule whose words no longer stand there, or too short to prove anything. */
export function quoteProblems(rules: readonly Rule[], units: readonly Unit[]): string[] {
  return rules.flatMap((rule) => {
    const short = quoteParts(rule.quote).filter((part) => part.split(' ').length < MIN_PART_WORDS);
    const { missing } = placeQuote(rule, units);
    return [
      ...missing.map((words) => `${rule.id}: "${words}" no longer stands in ${rule.section.match(/§[\d.]+/g)?.join(' or ') ?? rule.section} of contract/platform-api.md (the contract drifted: the catalogue must follow)`),
      ...short.map((words) => `${rule.id}: "${words}" is shorter than ${MIN_PART_WORDS} words, too short to show the sentence still stands`),
    ];
  });
}

/** Why no rule checks a unit (contract/unchecked.json). */
export type UncheckedReason = 'untestable' | 'out-of-scope' | 'elsewhere' | 'gap';

export const REASON_LABEL: Record<UncheckedReason, string> = {
  untestable: 'not testable from outside',
  'out-of-scope': 'out of scope',
  elsewhere: 'covered elsewhere',
  gap: 'gap',
};

export interface Unchecked {
  /** The unit's section number, as Unit.section ('' before the first numbered heading). */
  readonly section: string;
  /** The unit's whole text, in the normal form. */
  readonly words: string;
  readonly reason: UncheckedReason;
  readonly why: string;
}

export const UNCHECKED_FILE = fileURLToPath(new URL('../../contract/unchecked.json', import.meta.url));

/** contract/unchecked.json, validated against schemas/unchecked-sentences.schema.json. */
export function loadUnchecked(file = UNCHECKED_FILE): Unchecked[] {
  const data: unknown = JSON.parse(readFileSync(file, 'utf8'));
  const validate = validatorFor('unchecked-sentences');
  if (!validate(data)) throw new Error(`${file} does not match schemas/unchecked-sentences.schema.json: ${describeErrors(validate.errors)}`);
  return (data as { sentences: Unchecked[] }).sentences;
}

/** Each unit with the rules whose quotes stand in it, or the reason no rule does (undefined: neither, a problem the meta-test names). */
export interface Annotated {
  readonly unit: Unit;
  readonly rules: readonly Rule[];
  readonly unchecked?: Unchecked;
}

/** An entry of contract/unchecked.json names a unit by its section and its whole text. */
const names = (entry: Unchecked, unit: Unit) => entry.words === unit.text && entry.section === unit.section;

export function annotate(units: readonly Unit[], rules: readonly Rule[], unchecked: readonly Unchecked[]): Annotated[] {
  const placements = rules.map((rule) => ({ rule, units: placeQuote(rule, units).units }));
  return units.map((unit) => ({
    unit,
    rules: placements.filter((p) => p.units.includes(unit)).map((p) => p.rule),
    unchecked: unchecked.find((entry) => names(entry, unit)),
  }));
}

/** Why contract/unchecked.json no longer follows the contract and the catalogue: units neither checked nor explained, entries naming no unit or a checked one. */
export function uncheckedProblems(annotated: readonly Annotated[], unchecked: readonly Unchecked[]): string[] {
  const problems = annotated.flatMap(({ unit, rules, unchecked: entry }) => [
    ...(rules.length === 0 && !entry ? [`§${unit.section} "${unit.text}": no rule quotes it and contract/unchecked.json gives no reason`] : []),
    ...(rules.length > 0 && entry ? [`§${unit.section} "${unit.text}": checked by ${rules.map((r) => r.id).join(', ')}, yet contract/unchecked.json lists it as ${entry.reason}`] : []),
  ]);
  const stale = unchecked.filter((entry) => !annotated.some(({ unit }) => names(entry, unit)));
  return [...problems, ...stale.map((entry) => `contract/unchecked.json: §${entry.section} "${entry.words}" is no sentence or row of the contract`)];
}

const LEVELS: readonly Level[] = ['MUST', 'SHOULD', 'INFO'];

/** The coverage figure: testable units (all but the untestable and out of scope), checked ones by their strongest rule's level, the others by reason. */
export interface Coverage {
  readonly units: number;
  readonly testable: number;
  readonly checked: Record<Level, number>;
  readonly unchecked: Record<UncheckedReason, number>;
}

export function coverageOf(annotated: readonly Annotated[]): Coverage {
  const checked = { MUST: 0, SHOULD: 0, INFO: 0 };
  const unchecked = { untestable: 0, 'out-of-scope': 0, elsewhere: 0, gap: 0 };
  for (const { rules, unchecked: entry } of annotated) {
    const level = LEVELS.find((l) => rules.some((rule) => rule.level === l));
    if (level) checked[level] += 1;
    else unchecked[entry?.reason ?? 'gap'] += 1;
  }
  return { units: annotated.length, testable: annotated.length - unchecked.untestable - unchecked['out-of-scope'], checked, unchecked };
}

/** `52 of 70 testable sentences checked (41 MUST, 7 SHOULD, 4 INFO); 6 covered elsewhere, 12 gaps; 40 not testable from outside or out of scope` */
export function coverageLine(coverage: Coverage): string {
  const { checked, unchecked } = coverage;
  const total = checked.MUST + checked.SHOULD + checked.INFO;
  return (
    `Contract coverage: ${total} of ${coverage.testable} testable sentences checked (${LEVELS.map((level) => `${checked[level]} ${level}`).join(', ')}); ` +
    `${unchecked.elsewhere} covered elsewhere, ${unchecked.gap} gaps; ${unchecked.untestable} not testable from outside, ${unchecked['out-of-scope']} out of scope`
  );
}

let current: { lines: ContractLine[]; annotated: Annotated[] } | undefined;

/** The repository's contract, read once: its lines and each unit with its rules or its reason. */
export function annotatedContract(): { lines: ContractLine[]; annotated: Annotated[] } {
  if (current) return current;
  const lines = contractLines(readFileSync(CONTRACT_FILE, 'utf8'));
  current = { lines, annotated: annotate(unitsOf(lines), RULES, loadUnchecked()) };
  return current;
}
