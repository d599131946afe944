// Test files: images (PNG, JPEG, GIF, SVG).
// Each builder makes a valid file of its type, padded inside the format to the size asked for; test-file.ts picks
// the builder by extension.
import { crc32 } from 'node:zlib';
import { chunked, chunks, hex, join, MARK, marks, u16be, u32be, u8 } from './bytes.ts';

export function png(seed: Buffer, size: number): Buffer {
  const chunk = (type: string, data: Buffer) => {
    const name = Buffer.from(type, 'latin1');
    return join([u32be(data.length), name, data, u32be(crc32(data, crc32(name)))]);
  };
  const header = chunk('IHDR', hex('00000001 00000001 08 00 00 00 00'));
  // One black pixel: filter byte 0 and grey level 0, deflated.
  const image = chunk('IDAT', hex('789c6360000000020001'));
  const end = chunk('IEND', Buffer.alloc(0));
  const keyword = 'Comment\0';
  const text = marks(seed, size - 8 - header.length - 12 - keyword.length - image.length - end.length);
  return join([hex('89504e470d0a1a0a'), header, chunk('tEXt', join([keyword, text])), image, end]);
}

/** A 1x1 grey baseline JPEG after its comments: tables, frame and a scan whose only block is all zero. */
const JPEG_IMAGE = hex(`
  ffdb 0043 00 ${'01'.repeat(64)}
  ffc0 000b 08 0001 0001 01 01 11 00
  ffc4 0014 00 01 ${'00'.repeat(15)} 00
  ffc4 0014 10 01 ${'00'.repeat(15)} 00
  ffda 0008 01 01 00 00 3f 00
  3f
  ffd9`);

export function jpeg(seed: Buffer, size: number): Buffer {
  const start = hex('ffd8 ffe0 0010 4a46494600 0101 00 0001 0001 00 00');
  // A COM segment holds at most 65533 bytes; larger files take several.
  const lengths = chunked(Math.max(size - start.length - JPEG_IMAGE.length, 4 + MARK), 4, 65533);
  return join([start, chunks(seed, lengths, (n) => join([hex('fffe'), u16be(n + 2)])), JPEG_IMAGE]);
}

export function gif(seed: Buffer, size: number): Buffer {
  const screen = hex('474946383961 0100 0100 80 00 00 000000 ffffff');
  const image = hex('2c 0000 0000 0100 0100 00 02 02 4401 00 3b');
  // Comment data travels in sub-blocks of at most 255 bytes, closed by an empty one.
  const lengths = chunked(Math.max(size - screen.length - 3 - image.length, 1 + MARK), 1, 255);
  return join([screen, hex('21fe'), chunks(seed, lengths, (n) => u8(n)), u8(0), image]);
}

export function svg(seed: Buffer, size: number): Buffer {
  const before = '<?xml version="1.0" encoding="UTF-8"?>\n<svg xmlns="http://www.w3.org/2000/svg" width="1" height="1" viewBox="0 0 1 1"><!-- ';
  const after = ' --><rect width="1" height="1" fill="#fff"/></svg>\n';
  return join([before, marks(seed, size - before.length - after.length), after]);
}
