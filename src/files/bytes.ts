// Byte helpers shared by the test files' builders (src/files/*.ts).

/** The bytes of a file of `size` bytes (or the smallest valid one, if larger), marked by `seed`. */
export type Builder = (seed: Buffer, size: number) => Buffer;

/**
 * How many of the seed's hex digits every file carries at least (GSM and AMR frames carry its bytes), so that two
 * names or sizes never share bytes, even at the smallest size.
 */
export const MARK = 16;

/** The seed's hex digits, repeated to `length` bytes: printable, so valid in every padding. */
export const digits = (seed: Buffer, length: number) => Buffer.alloc(length, seed.toString('hex'));

/** At least MARK of the seed's digits. */
export const marks = (seed: Buffer, length: number) => digits(seed, Math.max(length, MARK));

export type Part = Buffer | string;
export const join = (parts: Part[]) => Buffer.concat(parts.map((part) => (typeof part === 'string' ? Buffer.from(part, 'latin1') : part)));
export const hex = (text: string) => Buffer.from(text.replace(/\s+/g, ''), 'hex');
export const u8 = (...values: number[]) => Buffer.from(values);
export const sum = (values: number[]) => values.reduce((total, value) => total + value, 0);

export function uint(bytes: number, write: (buffer: Buffer, value: number) => unknown) {
  return (value: number) => {
    const buffer = Buffer.alloc(bytes);
    write(buffer, value);
    return buffer;
  };
}
export const u16be = uint(2, (b, v) => b.writeUInt16BE(v));
export const u32be = uint(4, (b, v) => b.writeUInt32BE(v));
export const u16le = uint(2, (b, v) => b.writeUInt16LE(v));
export const u32le = uint(4, (b, v) => b.writeUInt32LE(v));

/** `count` lengths as even as can be that add up to `total`. */
export function evenSplit(total: number, count: number): number[] {
  const base = Math.floor(total / count);
  return Array.from({ length: count }, (_, i) => base + (i < total % count ? 1 : 0));
}

/**
 * Payload lengths of the fewest chunks (a `header` of fixed size, then at most `max` bytes) that fill `budget`
 * exactly; the caller keeps `budget` at least one header.
 */
export function chunked(budget: number, header: number, max: number): number[] {
  const count = Math.max(1, Math.ceil(budget / (header + max)));
  return evenSplit(budget - header * count, count);
}

/**
 * The pieces `make` builds for these lengths, in order. The lengths come from evenSplit, so they fall in at most
 * two stretches of equal pieces, each one native fill however many thousand pieces it holds.
 */
export function runs(lengths: number[], make: (length: number) => Buffer): Buffer {
  const stretches: [number, number][] = [];
  for (const length of lengths) {
    const last = stretches.at(-1);
    if (last?.[0] === length) last[1]++;
    else stretches.push([length, 1]);
  }
  return join(
    stretches.map(([length, count]) => {
      const piece = make(length);
      return Buffer.alloc(piece.length * count, piece);
    }),
  );
}

/** Chunks of these payload lengths: each its header, then as many of the seed's digits. */
export const chunks = (seed: Buffer, lengths: number[], head: (length: number) => Part) => runs(lengths, (length) => join([head(length), digits(seed, length)]));

/** MS-DOS date of 1980-01-01, 00:00: a fixed time keeps the archives deterministic. */
export const DOS_EPOCH_DATE = 0x21;
