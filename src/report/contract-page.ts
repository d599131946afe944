// The contract as a web page, annotated: every sentence and table row beside the rules whose quotes stand in it, each
// with its level and this run's verdict (reports/conformance.json, computed once by the conformance reporter) and a
// link to its test in Playwright's report; the sentences no rule checks with their reason (contract/unchecked.json);
// the coverage figure at the top. Every heading keeps the anchor GitHub gives it (contractAnchor), where the reports'
// links to a rule's section lead; a browser shows a Markdown file as plain text, where no anchor leads anywhere.
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Reporter } from '@playwright/test/reporter';
import { CONTRACT_PAGE, contractAnchor } from '../contract/contract.ts';
import { type Annotated, annotatedContract, type ContractLine, coverageLine, coverageOf, REASON_LABEL, type Unit } from '../contract/coverage.ts';
import type { Rule } from '../contract/rules.ts';
import { type ConformanceReport, type RuleResult, summaryLine, type Verdict } from './verdicts.ts';
import { escapeXml } from './xml.ts';

/** A run's verdicts for the page, and where Playwright's HTML report is from the page's folder. */
export interface PageRun {
  report: ConformanceReport;
  htmlReport: string;
}

const escapeHtml = (text: string) => escapeXml(text).replace(/'/g, '&#39;');

/** The page's word for a verdict: a failed SHOULD rule is a warning, an INFO rule that ran is an observation. */
function verdictWord(level: Rule['level'], verdict: Verdict): string {
  if (verdict === 'skipped' || verdict === 'error') return verdict;
  if (level === 'INFO') return 'observed';
  return verdict === 'passed' ? 'pass' : level === 'SHOULD' ? 'warn' : 'fail';
}

/** One rule beside its words: id (to its first test), level, verdict; a skipped rule with its reason; its other tests. */
function ruleBadge(rule: Rule, run: PageRun | undefined, results: ReadonlyMap<string, RuleResult>): string {
  const result = results.get(rule.id);
  const testLink = (id: string, text: string, title: string) => `<a href="${escapeHtml(`${run?.htmlReport}#?testId=${encodeURIComponent(id)}`)}" title="${escapeHtml(title)}">${escapeHtml(text)}</a>`;
  const [first, ...others] = result?.tests ?? [];
  const id = first ? testLink(first.id, rule.id, first.title) : escapeHtml(rule.id);
  const word = result ? verdictWord(rule.level, result.verdict) : 'not run';
  const reason = result?.verdict === 'skipped' ? `: ${escapeHtml(result.detail)}` : '';
  const more = others.length > 0 ? ` <span class="tests">tests ${[first, ...others].map((test, i) => testLink(test.id, String(i + 1), test.title)).join(' ')}</span>` : '';
  return (
    `<span class="rule level-${rule.level.toLowerCase()} verdict-${result?.verdict ?? 'none'}" data-rule="${rule.id}" title="${escapeHtml(`${rule.title} (${rule.section})`)}">` +
    `${id} <span class="level">${rule.level}</span> <span class="verdict">${word}${reason}</span>${more}</span>`
  );
}

/** What stands beside a unit: its rules, or why none checks it. */
function unitNotes(annotated: Annotated | undefined, run: PageRun | undefined, results: ReadonlyMap<string, RuleResult>): string {
  if (!annotated) return '';
  if (annotated.rules.length > 0) return `<span class="rules">${annotated.rules.map((rule) => ruleBadge(rule, run, results)).join(' ')}</span>`;
  const entry = annotated.unchecked;
  const reason = entry ? `${REASON_LABEL[entry.reason]}: ${entry.why}` : 'gap: no rule and no reason (contract/unchecked.json)';
  return `<span class="unchecked reason-${entry?.reason ?? 'gap'}">not checked, ${escapeHtml(reason)}</span>`;
}

/**
 * The page's body: the contract's lines as a Markdown renderer shows them (headings without their marks with their
 * anchors, lists as lists, the HTML comment hidden), tables with a column of rules, sentences each with theirs.
 */
function body(lines: readonly ContractLine[], byUnit: ReadonlyMap<Unit, Annotated>, run: PageRun | undefined): string {
  const results = new Map((run?.report.rules ?? []).map((result) => [result.id, result]));
  const notes = (unit: Unit) => unitNotes(byUnit.get(unit), run, results);
  const html: string[] = [];
  let inTable = false;
  /** The lists open, innermost last, each with the indent of its items; the last item of each is open. */
  const lists: { indent: number; tag: 'ul' | 'ol' }[] = [];
  const closeList = () => html.push(`</li></${lists.pop()?.tag}>`);
  for (const line of lines) {
    const tableLine = line.kind === 'row' || line.kind === 'separator';
    if (tableLine && !inTable) html.push('<table>');
    if (!tableLine && inTable) html.push('</table>');
    inTable = tableLine;
    const item = line.kind === 'text' && line.marker !== '' ? line : undefined;
    // A blank line between items does not end their list; anything else but an item does.
    if (item === undefined && line.kind !== 'blank') while (lists.length > 0) closeList();
    if (item) {
      const tag = /^\d/.test(item.marker) ? 'ol' : 'ul';
      while (lists.length > 0 && lists[lists.length - 1].indent > item.indent) closeList();
      const open = lists.at(-1);
      if (open?.indent === item.indent && open.tag !== tag) closeList();
      if (lists.at(-1)?.indent === item.indent) html.push('</li>');
      else {
        html.push(`<${tag}>`);
        lists.push({ indent: item.indent, tag });
      }
      const label = item.label === undefined ? '' : `<span class="label">${escapeHtml(item.label)}</span> `;
      html.push(`<li${tag === 'ol' ? ` value="${parseInt(item.marker, 10)}"` : ''}>${label}${sentencesOf(item.units, notes)}`);
    } else if (line.kind === 'heading') html.push(`<h${line.depth} id="${line.anchor}">${escapeHtml(line.text.replace(/^#+\s*/, ''))}</h${line.depth}>`);
    // The contract's own comment (where the copy comes from), kept in the source as a Markdown renderer keeps it.
    else if (line.kind === 'note') html.push(`<!-- ${escapeHtml(line.text.replace(/^\s*<!--\s*|\s*-->\s*$/g, '').replace(/--/g, '- -'))} -->`);
    else if (line.kind === 'text') html.push(`<p class="line">${sentencesOf(line.units, notes)}</p>`);
    else if (line.kind === 'row') {
      const cell = line.header ? 'th' : 'td';
      const extra = line.header ? '<th>checked by</th>' : `<td class="unit">${line.units.map(notes).join(' ')}</td>`;
      html.push(`<tr>${line.cells.map((text) => `<${cell}>${escapeHtml(text)}</${cell}>`).join('')}${extra}</tr>`);
    }
  }
  if (inTable) html.push('</table>');
  while (lists.length > 0) closeList();
  return html.join('\n');
}

/** A line's sentences, each with what stands beside it. */
const sentencesOf = (units: readonly Unit[], notes: (unit: Unit) => string) => units.map((unit) => `<span class="unit"><span class="words">${escapeHtml(unit.text)}</span> ${notes(unit)}</span>`).join(' ');

const STYLE = [
  'body { font-family: sans-serif; max-width: 70em; margin: auto; padding: 1em 1em 100vh; line-height: 1.5 }',
  'table { border-collapse: collapse; margin: 0.5em 0 } th, td { border: 1px solid #ccc; padding: 0.2em 0.5em; vertical-align: top; text-align: left }',
  '.rule, .unchecked { font-size: 0.8em; border-radius: 0.3em; padding: 0 0.3em; margin-right: 0.3em } .rule { display: inline-block }',
  '.rule { background: #eef } .verdict-passed { background: #dfd } .verdict-failed.level-must, .verdict-error { background: #fcc } .verdict-failed.level-should { background: #fec }',
  '.verdict-skipped { background: #eee } .unchecked { background: #f6f6f6; color: #555; white-space: normal } .reason-gap { background: #fdd; color: #000 }',
].join('\n');

/** The summary at the top: the coverage figure (as in the matrix) and this run's verdicts, or why there are none yet. */
function summary(annotated: readonly Annotated[], run: PageRun | undefined): string {
  const gaps = annotated.filter((a) => a.rules.length === 0 && (a.unchecked?.reason ?? 'gap') === 'gap');
  const verdicts = run
    ? `This run (mode ${escapeHtml(run.report.mode)}, API ${escapeHtml(run.report.apiVersion)}): ${escapeHtml(summaryLine(run.report))}.`
    : 'No verdicts: the page was written as the run began, or without its conformance.json. Each rule is shown with its level.';
  const gapList = gaps.length === 0 ? '' : `<p>Gaps: ${gaps.map((a) => `<a href="#${a.unit.anchor}">§${escapeHtml(a.unit.section)}</a> ${escapeHtml(a.unit.text)}`).join('; ')}</p>`;
  return `<section id="summary"><p><strong>${escapeHtml(coverageLine(coverageOf(annotated)))}</strong></p><p id="verdicts">${verdicts}</p>${gapList}</section>`;
}

/** The annotated contract; without a run, its rules with their levels only. */
export function contractPage(run?: PageRun): string {
  const { lines, annotated } = annotatedContract();
  const byUnit = new Map(annotated.map((entry) => [entry.unit, entry]));
  return [
    '<!DOCTYPE html>',
    `<html lang="en"><head><meta charset="utf-8"><title>Platform API contract, annotated</title><style>\n${STYLE}\n</style></head>`,
    `<body>\n${summary(annotated, run)}\n${body(lines, byUnit, run)}\n</body></html>`,
    '',
  ].join('\n');
}

/** Writes the page into a folder: the reports folder (a run), or the Allure report's (npm run report), so that wherever that report is published it serves the page CONTRACT_URL may name. */
export function writeContractPage(dir: string, run?: PageRun): void {
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, CONTRACT_PAGE), contractPage(run));
}

/**
 * The link of both reports to a cited section: CONTRACT_URL, by default this page in the reports folder as a file://
 * URL, since the Playwright HTML report makes links of absolute URLs only (and Allure of http(s) ones only).
 */
export const contractLink = (contractUrl: string, citation: string): string => `${contractUrl}#${contractAnchor(citation)}`;

/** Reporter (playwright.config.ts): writes the page, without verdicts, as a run begins, so that the links lead somewhere while it runs; the conformance reporter writes it again with the verdicts at its end. */
export default class ContractPageReporter implements Reporter {
  readonly #dir: string;

  constructor({ outputDir }: { outputDir: string }) {
    this.#dir = outputDir;
  }

  onBegin(): void {
    writeContractPage(this.#dir);
  }

  printsToStdio(): boolean {
    return false;
  }
}
