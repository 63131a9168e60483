/**
 * Enums in any letter case on input; PR and queue states UPPERCASE by default and lowercase with
 * enumCase 'lower'; settings enums lowercase in both.
 */
import { afterEach, describe, expect, it } from 'vitest';
import type { EnumCase } from '../../src/api/v1/wire.js';
import { createApiHarness, json, type ApiHarness } from './api-harness.js';

let h: ApiHarness | undefined;
afterEach(async () => {
  await h?.close();
  h = undefined;
});

async function statesWith(enumCase: EnumCase) {
  h = await createApiHarness({ enumCase });
  await h.queueWithPrs(2);
  await h.post(
    '/v1/updateQueue',
    h.body({ state: 'pAuSeD', mergeMethod: 'Rebase', optimizationMode: 'BISECTION_SKIP_REDUNDANT_TESTS' }),
  );
  await h.post('/v1/submitPullRequest', h.body({ pr: { number: 1 }, priority: 'LOW' }));
  await h.t.runEffects();
  await h.post('/v1/updateQueue', h.body({ state: 'RUNNING' }));
  await h.t.runEffects();
  const queue = json(await h.post('/v1/getQueue', h.body()));
  const updated = json(await h.post('/v1/updateQueue', h.body({ state: 'Draining' })));
  const pr = json(await h.post('/v1/getSubmittedPullRequest', h.body({ pr: { number: 1 } })));
  const listed = json(await h.post('/v1/listPullRequests', h.body({ state: 'TESTING' })));
  const listedLower = json(await h.post('/v1/listPullRequests', h.body({ state: 'testing' })));
  return { queue, updated, pr, listed, listedLower };
}

describe('enum case', () => {
  it('answers UPPERCASE states by default', async () => {
    const { queue, updated, pr, listed, listedLower } = await statesWith('upper');
    expect(queue.state).toBe('RUNNING');
    expect(queue.enqueuedPullRequests[0].state).toBe('TESTING');
    expect(updated.state).toBe('DRAINING');
    expect(pr.state).toBe('TESTING');
    expect(listed.pullRequests.map((p: { state: string }) => p.state)).toEqual(['TESTING']);
    expect(listedLower).toEqual(listed);
    expect(updated).toMatchObject({
      mode: 'single',
      mergeMethod: 'rebase',
      optimizationMode: 'bisection_skip_redundant_tests',
    });
    expect(pr.priorityName).toBe('low');
  });

  it("answers Trunk's lowercase states with enumCase 'lower', settings enums unchanged", async () => {
    const { queue, updated, pr, listed, listedLower } = await statesWith('lower');
    expect(queue.state).toBe('running');
    expect(queue.enqueuedPullRequests[0].state).toBe('testing');
    expect(updated.state).toBe('draining');
    expect(pr.state).toBe('testing');
    expect(listed.pullRequests.map((p: { state: string }) => p.state)).toEqual(['testing']);
    expect(listedLower).toEqual(listed);
    expect(updated).toMatchObject({
      mode: 'single',
      mergeMethod: 'rebase',
      optimizationMode: 'bisection_skip_redundant_tests',
    });
  });
});

describe('enum case for Terraform and OpenTofu', () => {
  const TERRAFORM_CLIENTS: Record<string, string>[] = [
    { 'x-source': 'terraform' },
    { 'X-Source': 'OpenTofu' },
    { 'user-agent': 'Terraform/1.9.8 (+https://www.terraform.io) terraform-provider-trunk/0.4.0' },
    { 'user-agent': 'OpenTofu/1.8.0' },
  ];

  it('answers states in lowercase to requests from Terraform or OpenTofu, UPPERCASE to the others', async () => {
    h = await createApiHarness({ enumCase: 'upper' });
    await h.queueWithPrs(1);
    await h.post('/v1/submitPullRequest', h.body({ pr: { number: 1 } }));
    await h.t.runEffects();
    const states = async (headers: Record<string, string>) => ({
      updated: json(await h!.post('/v1/updateQueue', h!.body({ state: 'paused' }), headers)).state,
      queue: json(await h!.post('/v1/getQueue', h!.body(), headers)).state,
      item: json(await h!.post('/v1/getQueue', h!.body(), headers)).enqueuedPullRequests[0].state,
      pr: json(
        await h!.post('/v1/getSubmittedPullRequest', h!.body({ pr: { number: 1 }, includeTimeline: true }), headers),
      ),
      listed: json(await h!.post('/v1/listPullRequests', h!.body(), headers)).pullRequests[0].state,
      queues: json(await h!.post('/v1/listQueues', {}, headers)).queues[0].state,
      activity: json(await h!.post('/v1/getQueueActivity', h!.body(), headers)).state,
    });
    const flat = (s: Awaited<ReturnType<typeof states>>) => [
      s.updated,
      s.queue,
      s.item,
      s.pr.state,
      s.pr.timeline[0].toState,
      s.listed,
      s.queues,
      s.activity,
    ];

    expect(flat(await states({}))).toEqual([
      'PAUSED',
      'PAUSED',
      'TESTING',
      'TESTING',
      'TESTING',
      'TESTING',
      'PAUSED',
      'PAUSED',
    ]);
    for (const headers of TERRAFORM_CLIENTS) {
      expect(flat(await states(headers)), JSON.stringify(headers)).toEqual([
        'paused',
        'paused',
        'testing',
        'testing',
        'testing',
        'testing',
        'paused',
        'paused',
      ]);
    }
  });
});
