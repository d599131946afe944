// Test files: text (TXT, CSV, iCalendar, vCard).
// Each builder makes a valid file of its type, padded inside the format to the size asked for; test-file.ts picks
// the builder by extension.
import { type Builder, chunks, digits, evenSplit, join, MARK, runs } from './bytes.ts';

export function text(seed: Buffer, size: number): Buffer {
  const bytes = Buffer.alloc(Math.max(size, MARK + 1), `${seed.toString('hex')}\n`);
  bytes[bytes.length - 1] = 0x0a;
  return bytes;
}

export function csv(seed: Buffer, size: number): Buffer {
  const header = 'key,value\r\n';
  const cells = digits(seed, 2 * 64).toString('latin1');
  const row = (valueLength: number) => Buffer.from(`${cells.slice(0, MARK)},${cells.slice(MARK, MARK + valueLength)}\r\n`, 'latin1');
  // At least two rows under the header, as file(1) wants before it calls text CSV; values take up the size.
  const room = Math.max(size - header.length, 2 * row(0).length);
  const count = Math.max(2, Math.ceil(room / row(64 - MARK).length));
  return join([header, runs(evenSplit(room - count * row(0).length, count), row)]);
}

/**
 * A content line of exactly `octets` octets (at least the mark's), its value the padding, folded as iCalendar and
 * vCard require: lines of at most 75 octets, each continuation after CRLF and a space (3 octets a fold).
 */
function contentLine(seed: Buffer, property: string, octets: number): Buffer {
  const head = `${property}:`;
  const room = Math.max(octets - head.length - 2, MARK);
  const firstLine = 75 - head.length;
  const folds = Math.max(0, Math.ceil((room - firstLine) / 77));
  const value = room - 3 * folds;
  const first = Math.min(firstLine, value - folds);
  return join([head, digits(seed, first), chunks(seed, evenSplit(value - first, folds), () => '\r\n '), '\r\n']);
}

function withContentLine(before: string, property: string, after: string): Builder {
  return function folded(seed, size) {
    return join([before, contentLine(seed, property, size - before.length - after.length), after]);
  };
}

export const icalendar = withContentLine(
  'BEGIN:VCALENDAR\r\nVERSION:2.0\r\nPRODID:-//Conformance suite//Test file//EN\r\nBEGIN:VEVENT\r\n' +
    'UID:test-file@conformance.invalid\r\nDTSTAMP:20260101T000000Z\r\nDTSTART:20260101T000000Z\r\nSUMMARY:Test file\r\n',
  'DESCRIPTION',
  'END:VEVENT\r\nEND:VCALENDAR\r\n',
);

export const vcard = withContentLine('BEGIN:VCARD\r\nVERSION:3.0\r\nN:File;Test;;;\r\nFN:Test File\r\n', 'NOTE', 'END:VCARD\r\n');
