import assert from 'node:assert/strict';
import { readdir } from 'node:fs/promises';
import { PassThrough } from 'node:stream';
import { it } from 'node:test';
import { FileStore } from '../file-store.ts';

// The failure must come after pipeline has started, as the parser's does when a body ends mid-file; sequential
// writes make the store's old race (remove, then the late open recreates the file) show on every run.
it('a write whose source fails mid-stream leaves no file behind, however late the sink opens', async () => {
  const store = await FileStore.create();
  try {
    for (let n = 0; n < 500; n++) {
      const source = new PassThrough();
      setImmediate(() => source.destroy(new Error('Unexpected end of form')));
      await assert.rejects(store.write(`blob-${n}`, source), /Unexpected end of form/);
    }
    await new Promise((settled) => setTimeout(settled, 50));
    assert.deepEqual(await readdir(store.dir), []);
  } finally {
    await store.close();
  }
});
