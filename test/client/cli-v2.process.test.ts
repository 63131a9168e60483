/** `greenline queue order`, `queue graph` and `pr history` (v2 reads) against a real server process. */
import { afterAll, beforeAll, expect, it } from 'vitest';
import type { V2MergeQueueOrder } from '../../src/client/index.js';
import { startCliServer, type CliServer } from './cli-server.js';

const Q = ['--repo', 'github.com/acme/web', '--branch', 'main'];
let s: CliServer;
beforeAll(async () => {
  s = await startCliServer({
    beforeServe: async (git) => {
      await git.openPr(7, { 'seven.txt': '7\n' });
      await git.openPr(8, { 'eight.txt': '8\n' });
    },
  });
});
afterAll(() => s?.stop());

it('shows the order, the graph and a PR history through the v2 API', async () => {
  expect((await s.run(['queue', 'create', ...Q])).code).toBe(0);
  // Paused, the queue keeps both PRs in line instead of testing and merging them at once.
  expect((await s.run(['queue', 'pause', ...Q])).code).toBe(0);
  expect((await s.run(['pr', 'submit', '7', ...Q])).code).toBe(0);
  expect((await s.run(['pr', 'submit', '8', ...Q])).code).toBe(0);

  const order = await s.run(['queue', 'order', ...Q, '--json']);
  expect(order.code, order.stderr).toBe(0);
  const parsed = JSON.parse(order.stdout) as V2MergeQueueOrder;
  const numbers = [
    ...parsed.batches.flatMap((b) => b.pullRequests.map((p) => p.number)),
    ...parsed.pending.map((p) => p.pullRequest.number),
    ...parsed.awaitingAdmission.map((p) => p.number),
  ];
  expect(numbers.sort()).toEqual([7, 8]);
  const table = await s.run(['queue', 'order', ...Q]);
  expect(table.stdout).toMatch(/^Queue github\.com\/acme\/web main \(paused, queue mode\)$/m);
  expect(table.stdout).toMatch(/^#7 /m);

  const graph = await s.run(['queue', 'graph', ...Q, '--json']);
  expect(graph.code, graph.stderr).toBe(0);
  expect(JSON.parse(graph.stdout)).toHaveProperty('edges');

  expect((await s.run(['pr', 'cancel', '8', ...Q])).code).toBe(0);
  const history = await s.run(['pr', 'history', '8', ...Q, '--newest-first', '--json']);
  expect(history.code, history.stderr).toBe(0);
  expect(JSON.parse(history.stdout)[0]).toMatchObject({ state: 'cancelled', reason: 'API_REQUESTED' });
  const text = await s.run(['pr', 'history', '8', ...Q]);
  expect(text.stdout).toMatch(/^AT\s+STATE\s+REASON/m);
  expect(text.stdout).toMatch(/cancelled/);

  const unknown = await s.run(['queue', 'order', '--repo', 'github.com/acme/web', '--branch', 'nope']);
  expect(unknown.code).not.toBe(0);
  expect(unknown.stderr).toMatch(/No queue for branch "nope"/);
});
