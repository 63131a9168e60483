/** A recovery that outlasts the lease: the queues it took are held once it is done, not taken again. */
import { afterEach, beforeEach, expect, it } from 'vitest';
import { QueueLeases } from '../../src/app/cluster/queue-leases.js';
import { listQueueLeases } from '../../src/store/queue-leases.js';
import { createQueueFixture, type TestService } from '../helpers/service.js';

const TTL = 15_000;
let t: TestService;
beforeEach(async () => {
  ({ t } = await createQueueFixture());
});
afterEach(() => t.close());

it('queues whose recovery took longer than the lease are held afterwards, and not recovered again at the next round', async () => {
  const recovered: string[][] = [];
  const leases = new QueueLeases({
    db: t.db,
    clock: t.clock,
    instanceId: 'slow',
    ttlMs: TTL,
    onAcquired: async (queueIds) => {
      recovered.push(queueIds);
      t.clock.advance(2 * TTL); // e.g. leftover test branches looked for in a hundred repositories
    },
  });
  await leases.refresh();
  const [queue] = recovered[0]!;
  expect(leases.holds(queue!)).toBe(true);
  expect((await listQueueLeases(t.db)).find((l) => l.queue_id === queue)?.expires_at).toBe(t.clock.now() + TTL);
  t.clock.advance(TTL / 3);
  await leases.refresh();
  expect(recovered).toHaveLength(1);
  expect(leases.holds(queue!)).toBe(true);
});
