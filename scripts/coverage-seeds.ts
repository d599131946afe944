// npm run coverage-seeds [-- --seeds 1-10]: the model's coverage figure at each seed, from live runs of
// specs/model.spec.ts against the reference server (one run a seed), and the events any seed left unsent. The figure
// is reached by construction (the walks, the histories' covering array): every seed must print 100 % of the reachable.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { childEnvironment } from '../src/config/config.ts';
import { PLAYWRIGHT_CLI } from './mutation.ts';

const at = process.argv.indexOf('--seeds');
const [from, to] = (at >= 0 ? process.argv[at + 1] : '1-10').split('-').map(Number);
let short = 0;
for (let seed = from; seed <= (to ?? from); seed++) {
  const dir = mkdtempSync(join(tmpdir(), `coverage-seed-${seed}-`));
  const env = childEnvironment({ SUITE_MODE: 'live', REFERENCE_SERVER: '1', GENERATOR_SEED: String(seed), REPORTS_DIR: dir, CI: '1' });
  const run = spawnSync(process.execPath, [PLAYWRIGHT_CLI, 'test', 'specs/model.spec.ts', '--reporter=./src/report/conformance-reporter.ts'], { env, encoding: 'utf8' });
  const line = /^Model coverage: .*$/m.exec(run.stdout)?.[0] ?? `no coverage line (exit ${run.status})`;
  // The picture lists the reachable events not sent under its own heading, before the unreachable.
  const texts = [...readFileSync(join(dir, 'model-coverage.svg'), 'utf8').matchAll(/<text [^>]*>([^<]*)<\/text>/g)].map((m) => m[1]);
  const heading = texts.indexOf('Reachable, not sent:');
  const missing = heading < 0 ? [] : texts.slice(heading + 1, texts.indexOf('Unreachable:') < 0 ? undefined : texts.indexOf('Unreachable:'));
  if (!/events \(pairs of value classes of one operation\) 100 %/.test(line) || run.status !== 0) short += 1;
  console.log(`seed ${seed} (exit ${run.status}): ${line}`);
  if (missing.length > 0) console.log(`  not sent: ${missing.join('; ')}`);
}
process.exit(short > 0 ? 1 : 0);
