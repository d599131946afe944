// The model's event coverage as a picture (issue 47): for each kind of operation, its value classes against each
// other, a cell for each pair of classes of two dimensions: covered, reachable but not sent, or unreachable (with why,
// listed below). Attached to each model test (Playwright's HTML report, Allure) and written beside the reports for the
// whole run (model-coverage.svg).
import { type CoverageRecord, EVENTS, eventName, figuresOf, type Kind, KINDS } from '../contract/sequences.ts';
import { escapeXml as escape } from './xml.ts';

const CELL = 13;
const LABEL = 250;
const COLOURS = { covered: '#2e7d32', missing: '#c62828', unreachable: '#bdbdbd' } as const;

/** The picture of a union of coverage records, or undefined where there is none. */
export function coverageMatrixSvg(records: readonly CoverageRecord[]): string | undefined {
  const figures = figuresOf(records);
  if (figures === undefined) return undefined;
  const covered = new Set(records.flatMap((record) => record.events));
  const kinds = KINDS.filter((kind) => records.some((record) => record.kinds.includes(kind)));
  const parts: string[] = [];
  let y = 30;
  type Class = `${string}=${string}`;
  // A cell's state: one class alone (a kind of one dimension), or a pair in either order.
  const state = (kind: Kind, classes: Class[]): keyof typeof COLOURS => {
    const names = [eventName(kind, classes), eventName(kind, [...classes].reverse())];
    if (names.some((name) => covered.has(name))) return 'covered';
    return names.some((name) => name in figures.unreachable) ? 'unreachable' : 'missing';
  };
  for (const kind of kinds) {
    const dimensions = Object.entries(EVENTS[kind] as Record<string, readonly string[]>);
    const classes = dimensions.flatMap(([dimension, values]) => values.map((value) => ({ dimension, name: `${dimension}=${value}` as Class })));
    parts.push(`<text x="4" y="${y + 12}" font-weight="bold">${escape(kind)}</text>`);
    y += 18;
    for (const [row, a] of classes.entries()) {
      parts.push(`<text x="${LABEL - 4}" y="${y + row * CELL + 10}" text-anchor="end">${escape(a.name)}</text>`);
      for (const [column, b] of classes.entries()) {
        const x = LABEL + column * CELL;
        // One dimension: each class alone, on the diagonal; several: pairs of two dimensions off it.
        const single = dimensions.length === 1 && row === column;
        if (a.dimension === b.dimension && !single) continue;
        const colour = COLOURS[state(kind, single ? [a.name] : [a.name, b.name])];
        parts.push(`<rect x="${x}" y="${y + row * CELL}" width="${CELL - 1}" height="${CELL - 1}" fill="${colour}"><title>${escape(`${kind}: ${a.name} & ${b.name}`)}</title></rect>`);
      }
    }
    y += classes.length * CELL + 12;
  }
  // The widest listed line sets the width: some 6 px a character at this font size.
  let widest = LABEL + CELL * 20;
  const listed = (title: string, lines: string[]) => {
    if (lines.length === 0) return;
    parts.push(`<text x="4" y="${(y += 18)}" font-weight="bold">${escape(title)}</text>`);
    for (const line of lines) {
      parts.push(`<text x="12" y="${(y += 15)}">${escape(line)}</text>`);
      widest = Math.max(widest, 12 + 6 * line.length);
    }
  };
  listed('Reachable, not sent:', figures.eventsMissing);
  listed('Unreachable:', Object.entries(figures.unreachable).map(([event, why]) => `${event}: ${why}`));
  const { events } = figures;
  const title = `Events: ${events.covered} of ${events.defined} reachable pairs of value classes sent (green), not sent (red), unreachable (grey)`;
  return `<svg xmlns="http://www.w3.org/2000/svg" width="${Math.ceil(widest)}" height="${y + 20}" font-family="sans-serif" font-size="11"><rect width="100%" height="100%" fill="white"/><text x="4" y="16" font-size="13">${escape(title)}</text>${parts.join('')}</svg>\n`;
}
