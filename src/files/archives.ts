// Test files: archives (ZIP, RAR), and the zip packages documents are made of.
// Each builder makes a valid file of its type, padded inside the format to the size asked for; test-file.ts picks
// the builder by extension.
import { crc32 } from 'node:zlib';
import { DOS_EPOCH_DATE, hex, join, marks, sum, u16le, u32le, u8 } from './bytes.ts';

/** A zip archive of stored entries. */
export function zip(files: [string, Buffer][]): Buffer {
  const parts: Buffer[] = [];
  const directory: Buffer[] = [];
  let offset = 0;
  for (const [name, data] of files) {
    // Version needed 1.0, no flags, stored, time, date, CRC, sizes, name length, no extra field.
    const common = join([u16le(10), u16le(0), u16le(0), u16le(0), u16le(DOS_EPOCH_DATE), u32le(crc32(data)), u32le(data.length), u32le(data.length), u16le(name.length), u16le(0)]);
    parts.push(join([u32le(0x04034b50), common, name]), data);
    directory.push(join([u32le(0x02014b50), u16le(20), common, u16le(0), u16le(0), u16le(0), u32le(0), u32le(offset), name]));
    offset += 30 + name.length + data.length;
  }
  const central = join(directory);
  return join([...parts, central, u32le(0x06054b50), u16le(0), u16le(0), u16le(files.length), u16le(files.length), u32le(central.length), u32le(offset), u16le(0)]);
}

/** A zip of `files`, the last holding `before`, the padding, then `after`. */
export function archive(seed: Buffer, size: number, files: [string, string][], [last, before, after]: [string, string, string]): Buffer {
  const names = [...files.map(([name]) => name), last];
  const fixed = 22 + sum(names.map((name) => 76 + 2 * name.length)) + sum(files.map(([, content]) => content.length)) + before.length + after.length;
  const padded = join([before, marks(seed, size - fixed), after]);
  return zip([...files.map(([name, content]): [string, Buffer] => [name, Buffer.from(content, 'latin1')]), [last, padded]]);
}

export function zipFile(seed: Buffer, size: number): Buffer {
  return archive(seed, size, [], ['test-file.txt', '', '']);
}

export function rar(seed: Buffer, size: number): Buffer {
  // RAR 4 blocks: CRC16 (the low half of CRC-32 from the type on), type, flags, size, then the rest.
  const block = (type: number, flags: number, rest: Buffer) => {
    const body = join([u8(type), u16le(flags), u16le(7 + rest.length), rest]);
    return join([u16le(crc32(body) & 0xffff), body]);
  };
  const name = 'test-file.txt';
  const data = marks(seed, size - 7 - 13 - (32 + name.length) - 7);
  // Sizes, host MS-DOS, CRC, time, version 2.0, method store, name length, archive attribute, name.
  const fields = join([u32le(data.length), u32le(data.length), u8(0), u32le(crc32(data)), u32le(DOS_EPOCH_DATE << 16), u8(20, 0x30), u16le(name.length), u32le(0x20), name]);
  return join([hex('526172211a0700'), block(0x73, 0, Buffer.alloc(6)), block(0x74, 0x8000, fields), data, block(0x7b, 0x4000, Buffer.alloc(0))]);
}
