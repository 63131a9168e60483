/** The SDK's v2 calls over real HTTP: ids resolved, order, graph and queue-entry history. */
import { afterAll, beforeAll, expect, it } from 'vitest';
import { GreenlineApiError, GreenlineClient } from '../../src/client/index.js';
import { createApiHarness, REPO, type ApiHarness } from '../api/api-harness.js';

let h: ApiHarness;
let client: GreenlineClient;
beforeAll(async () => {
  h = await createApiHarness();
  await h.queueWithPrs(3);
  const url = await h.app.listen({ port: 0, host: '127.0.0.1' });
  client = new GreenlineClient({ url, token: h.token });
  for (const number of [1, 2, 3]) await client.submitPullRequest({ repo: REPO, targetBranch: 'main', pr: { number } });
  await h.t.runEffects();
});
afterAll(() => h?.close());

it('resolves ids and reads the order, the graph and a PR history through v2', async () => {
  const repo = await client.repositoryAt('https://github.com/acme/web');
  expect(repo.path).toBe('acme/web');
  const [queue] = (await client.mergeQueues({ repositoryId: repo.id, targetBranch: 'main' })).data;
  const order = await client.mergeQueueOrder(queue!.id);
  const ordered = [...order.batches.flatMap((b) => b.pullRequests), ...order.pending.map((p) => p.pullRequest)];
  expect(ordered.map((p) => p.number).sort()).toEqual([1, 2, 3]);
  const graph = await client.mergeQueueGraph(queue!.id, { includeImpactedTargets: true });
  expect(graph.nodes.map((n) => n.pullRequestNumber).sort()).toEqual([1, 2, 3]);
  expect(graph.edges.length).toBe(2);
  const [pr] = (await client.pullRequestsByNumber(repo.id, [2])).data;
  await client.cancelPullRequest({ repo: REPO, targetBranch: 'main', pr: { number: 2 } });
  const history = await client.queueEntryHistory(pr!.id, { direction: 'newest' });
  expect(history.data[0]).toMatchObject({ state: 'cancelled', reason: 'API_REQUESTED' });
  expect(history.data.at(-1)!.state).toBe('notReady');
});

it('refuses with the v2 error code', async () => {
  const err = await client.mergeQueueOrder('nope').catch((e: unknown) => e);
  expect(err).toBeInstanceOf(GreenlineApiError);
  expect(err).toMatchObject({ status: 404, code: 'MERGE_QUEUE_NOT_FOUND' });
});
