import type { FastifyInstance } from 'fastify';
import type { TestClock } from '../clock.ts';
import { badRequest } from '../errors.ts';

export const TEST_CLOCK_PATH = '/__test/clock';

interface ClockBody {
  now?: unknown;
  advanceSeconds?: unknown;
}

/** GET answers {"now"}; POST {"now": ISO} or {"advanceSeconds": N} moves the clock and answers the same. */
export async function testClockRoutes(app: FastifyInstance, { testClock }: { testClock: TestClock }): Promise<void> {
  const answer = () => ({ now: new Date(testClock.now()).toISOString() });
  app.get(TEST_CLOCK_PATH, async () => answer());
  app.post<{ Body: ClockBody | undefined }>(TEST_CLOCK_PATH, async (request) => {
    const { now, advanceSeconds } = request.body ?? {};
    if (typeof now === 'string' && !Number.isNaN(Date.parse(now))) {
      testClock.set(Date.parse(now));
    } else if (typeof advanceSeconds === 'number' && Number.isFinite(advanceSeconds)) {
      testClock.advance(advanceSeconds);
    } else {
      throw badRequest('send {"now": "<ISO-8601>"} or {"advanceSeconds": <number>}');
    }
    return answer();
  });
}
