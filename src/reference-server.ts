// The suite's one door to the reference server (reference/), for REFERENCE_SERVER=1 and the mutation run: its
// settings checked before any worker starts, and one server per worker at an address of its own. The reference
// server sits above the suite's configuration and contract (it uses them) and below the fixtures (they start it), so
// only the entry points reach it, and only through here; it is loaded on demand, never in replay.
import { atAddress, type ReferenceSettings, SETTINGS, type Target } from './config/config.ts';

/** The problems of the reference settings that only the reference can see: an unknown style, an unreadable seed file. */
export async function referenceProblems(settings: ReferenceSettings): Promise<string[]> {
  const [{ parseStyle }, { loadSeed }] = await Promise.all([import('../reference/style.ts'), import('../reference/world.ts')]);
  const problems: string[] = [];
  try {
    parseStyle(settings.style, SETTINGS.style.env);
  } catch (error) {
    problems.push((error as Error).message);
  }
  try {
    loadSeed(settings.seedFile);
  } catch (error) {
    problems.push(`${SETTINGS.seedFile.env}: ${(error as Error).message}`);
  }
  return problems;
}

export interface RunningReference {
  /** The seed's world at this server's address, put back in its starting state before each test. */
  target: Target;
  /** Back to the starting state, with this fault (a name of reference/faults.ts) from now on. */
  reset(fault: string | undefined): Promise<void>;
  close(): Promise<void>;
}

/** A reference server of this style and fault on a free port of 127.0.0.1, its test clock on. */
export async function startReference(settings: ReferenceSettings, style: string | undefined, fault: string | undefined): Promise<RunningReference> {
  const [{ listenReference }, { parseFault }, { loadSeed, worldOf }, { TEST_CLOCK_PATH }] = await Promise.all([
    import('../reference/listen.ts'),
    import('../reference/faults.ts'),
    import('../reference/world.ts'),
    import('../reference/plugins/test-clock.ts'),
  ]);
  const { seed, clockStart, seedFile } = settings;
  const seedData = loadSeed(seedFile);
  const server = await listenReference(
    { seed, testClock: { start: clockStart ?? Date.now() }, style, fault: parseFault(fault), seedData },
    { host: '127.0.0.1', port: 0 },
  );
  const target = { ...atAddress(worldOf(seedData), server.address, TEST_CLOCK_PATH), freshEachTest: true };
  return { target, reset: (next) => server.reset(parseFault(next)), close: () => server.close() };
}
