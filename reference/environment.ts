import { API_VERSION } from '../src/contract.ts';
import { TEST_CLOCK_PATH } from './plugins/test-clock.ts';
import type { SeedData } from './world.ts';

/** The variables that point the suite at a reference server listening on `address`, in the suite's order. */
export function referenceEnvironment(seed: SeedData, address: string, testClock: boolean): [string, string][] {
  const byEnv = (name: string, list: { env?: string; id?: string; value?: string }[]) => {
    const item = list.find((entry) => entry.env === name);
    return item?.id ?? item?.value;
  };
  const block: [string, string | undefined][] = [
    ['SUITE_MODE', 'live'],
    ['BASE_URL', address],
    ['API_VERSION', API_VERSION],
    ['LOCATION_ID', byEnv('LOCATION_ID', seed.locations)],
    ['CONVERSATION_ID', byEnv('CONVERSATION_ID', seed.conversations)],
    ['CONTACT_ID', byEnv('CONTACT_ID', seed.contacts)],
    ['AGENT_ID', byEnv('AGENT_ID', seed.agents)],
    ['INACTIVE_AGENT_ID', byEnv('INACTIVE_AGENT_ID', seed.agents)],
    ['FOREIGN_LOCATION_ID', byEnv('FOREIGN_LOCATION_ID', seed.locations)],
    ['ACCESS_TOKEN', byEnv('ACCESS_TOKEN', seed.tokens)],
    ['PIT_TOKEN', byEnv('PIT_TOKEN', seed.tokens)],
    ['FILES_READONLY_TOKEN', byEnv('FILES_READONLY_TOKEN', seed.tokens)],
    ['NO_FILES_SCOPE_TOKEN', byEnv('NO_FILES_SCOPE_TOKEN', seed.tokens)],
    ['TEST_CLOCK_URL', testClock ? `${address}${TEST_CLOCK_PATH}` : undefined],
  ];
  return block.filter((entry): entry is [string, string] => entry[1] !== undefined);
}
