// Once per run, before any worker: a recording starts from an empty fixtures folder, so no stale file survives.
import { rmSync } from 'node:fs';
import { suiteConfig } from './config.ts';

export default function globalSetup(): void {
  const config = suiteConfig();
  if (config.mode === 'record') rmSync(config.fixturesDir, { recursive: true, force: true });
}
