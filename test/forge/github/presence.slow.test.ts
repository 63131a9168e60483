/**
 * What the github forge shows on GitHub, against the FAKE GitHub API as GitHub behaves: completed
 * check runs that keep their conclusion, and creations (check runs, comments, test PRs) that a 5xx
 * after the effect must not duplicate; 405 answers that are final.
 */
import { generateKeyPairSync } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { DEFAULT_QUEUE_CONFIG } from '../../../src/engine/config.js';
import type { QueueConfig, QueueEventPayload, TransitionReason } from '../../../src/engine/types.js';
import { bindingFor, makeForge, prEvent } from './github-harness.js';
import { FakeGitHubApi } from './fake-github-api.js';

const { privateKey, publicKey } = generateKeyPairSync('rsa', {
  modulusLength: 2048,
  privateKeyEncoding: { type: 'pkcs1', format: 'pem' },
  publicKeyEncoding: { type: 'spki', format: 'pem' },
});

/** A repository with `main` and PR 1, and the github forge on it as a GitHub App (check runs). */
function appRepo(): { api: FakeGitHubApi; forge: ReturnType<typeof makeForge>; head: string } {
  const api = new FakeGitHubApi();
  const base = api.commit(null, 'base');
  api.branches.set('main', base);
  const head = api.commit(base, 'one');
  api.openPr(1, { headSha: head });
  api.appId = 1;
  api.appPublicKey = publicKey;
  const forge = makeForge(api, { auth: { kind: 'app', appId: 1, privateKey } });
  return { api, forge, head };
}

const event = (type: QueueEventPayload['type'], reason: TransitionReason | null = null) => prEvent(type, 1, reason);

const queue = (config: Partial<QueueConfig> = {}) => ({
  targetBranch: 'main',
  config: { ...DEFAULT_QUEUE_CONFIG, commentsEnabled: false, ...config },
});

describe('github forge presence: check runs as GitHub keeps them', () => {
  it('a PR that failed and then merged shows ✅ as its latest check run: each attempt gets a new check run', async () => {
    const { api, forge, head } = appRepo();
    const b = bindingFor(api, { forgeData: { installationId: 9 } });
    for (const [type, reason] of [
      ['pull_request.queued', null],
      ['pull_request.testing', null],
      ['pull_request.failed', 'TEST_RUN_REQUIRED_STATUS_FAILED'],
      ['pull_request.submitted', null],
      ['pull_request.queued', null],
      ['pull_request.testing', null],
      ['pull_request.merged', 'MERGE_GRAPH_MERGE'],
    ] as const)
      await forge.onQueueEvent(b, queue(), event(type, reason));

    expect(api.checkRuns.map((c) => [c.status, c.conclusion])).toEqual([
      ['completed', 'failure'],
      ['completed', 'success'],
    ]);
    const patched = api.calls.filter((c) => c.method === 'PATCH' && c.path.includes('check-runs'));
    expect(patched.map((c) => c.path)).toEqual([
      '/repos/acme/web/check-runs/1000', // testing
      '/repos/acme/web/check-runs/1000', // failed
      '/repos/acme/web/check-runs/1001', // queued again
      '/repos/acme/web/check-runs/1001', // testing
      '/repos/acme/web/check-runs/1001', // merged
    ]);
    // What GitHub shows for the head: its latest `greenline (main)` check run.
    const forge2 = makeForge(api, { auth: { kind: 'app', appId: 1, privateKey } });
    expect(await forge2.checkStatuses(b, head)).toEqual([
      expect.objectContaining({ context: 'greenline (main)', state: 'success' }),
    ]);
  });

  it('after a restart, a completed check run found on the head is not edited back: a new one is created', async () => {
    const { api, head } = appRepo();
    const b = bindingFor(api, { forgeData: { installationId: 9 } });
    api.checkRuns.push({
      id: 7,
      name: 'greenline (main)',
      head_sha: head,
      status: 'completed',
      conclusion: 'cancelled',
    });
    const forge = makeForge(api, { auth: { kind: 'app', appId: 1, privateKey } });
    await forge.onQueueEvent(b, queue(), event('pull_request.submitted'));
    expect(api.checkRuns.map((c) => [c.id, c.status, c.conclusion])).toEqual([
      [7, 'completed', 'cancelled'],
      [1000, 'queued', null],
    ]);
    expect(api.log.filter((l) => l.startsWith('PATCH'))).toEqual([]);
  });
});

describe('github forge presence: a 5xx after the creation does not duplicate it', () => {
  it('check run: created once, found by its name and head sha', async () => {
    const { api, forge } = appRepo();
    api.failAfterEffect('POST', /\/check-runs$/, 502);
    await forge.onQueueEvent(
      bindingFor(api, { forgeData: { installationId: 9 } }),
      queue(),
      event('pull_request.queued'),
    );
    expect(api.checkRuns).toHaveLength(1);
    expect(api.log.filter((l) => l === 'POST /repos/acme/web/check-runs')).toHaveLength(1);
    // Known from then on: the next event updates it.
    await forge.onQueueEvent(
      bindingFor(api, { forgeData: { installationId: 9 } }),
      queue(),
      event('pull_request.testing'),
    );
    expect(api.checkRuns).toEqual([expect.objectContaining({ status: 'in_progress' })]);
  });

  it('check run: created again when the lookup finds none (GitHub failed before creating it)', async () => {
    const { api, forge } = appRepo();
    api.failNext('POST', /\/check-runs$/, 502, { message: 'Server Error' });
    await forge.onQueueEvent(
      bindingFor(api, { forgeData: { installationId: 9 } }),
      queue(),
      event('pull_request.queued'),
    );
    expect(api.checkRuns).toHaveLength(1);
    expect(api.calls.filter((c) => c.path === '/repos/acme/web/check-runs').map((c) => c.status)).toEqual([502, 201]);
  });

  it('comment: created once, found by its marker', async () => {
    const { api, forge } = appRepo();
    api.failAfterEffect('POST', /\/issues\/1\/comments$/, 500);
    await forge.onQueueEvent(
      bindingFor(api, { forgeData: { installationId: 9 } }),
      queue({ commentsEnabled: true, statusCheckEnabled: false }),
      event('pull_request.queued'),
    );
    expect(api.comments).toHaveLength(1);
    expect(api.log.filter((l) => l === 'POST /repos/acme/web/issues/1/comments')).toHaveLength(1);
  });

  it('test PR: created once, found by its head branch', async () => {
    const { api, forge, head } = appRepo();
    api.branches.set('greenline-merge/main/run-1', head);
    api.failAfterEffect('POST', /\/pulls$/, 502);
    await forge.onQueueEvent(
      bindingFor(api, { forgeData: { installationId: 9 } }),
      queue({ createPrsForTestingBranches: true, statusCheckEnabled: false }),
      { ...event('pull_request.testing'), runId: 'run-1', testBranch: 'greenline-merge/main/run-1' },
    );
    expect([...api.pulls.values()].filter((p) => p.head.ref === 'greenline-merge/main/run-1')).toHaveLength(1);
    expect(api.log.filter((l) => l === 'POST /repos/acme/web/pulls')).toHaveLength(1);
  });
});

describe('github forge: a reply that GitHub posted despite a 5xx is not posted twice', () => {
  it('the last comment with the same text is the one posted', async () => {
    const { api, forge } = appRepo();
    const b = bindingFor(api, { forgeData: { installationId: 9 } });
    api.failAfterEffect('POST', /\/issues\/1\/comments$/, 502);
    await forge.reply(b, 1, 'Only users with write access can command the queue.');
    expect(api.comments.map((c) => c.body)).toEqual(['Only users with write access can command the queue.']);
    // The same answer again later is a new comment.
    await forge.reply(b, 1, 'Only users with write access can command the queue.');
    expect(api.comments).toHaveLength(2);
  });
});

describe('github client: 405 is final', () => {
  it('a 405 is not retried; the merge endpoint\'s "Base branch was modified" is', async () => {
    const { api, forge } = appRepo();
    const { api: octokit, loc } = await forge.clients.repoApi(bindingFor(api, { forgeData: { installationId: 9 } }));
    api.pulls.get(1)!.mergeable = false;
    await expect(
      octokit.request('PUT /repos/{owner}/{repo}/pulls/{pull_number}/merge', {
        ...loc,
        pull_number: 1,
        merge_method: 'squash',
      }),
    ).rejects.toMatchObject({ status: 405 });
    expect(api.log.filter((l) => l.startsWith('PUT'))).toHaveLength(1);

    api.pulls.get(1)!.mergeable = true;
    api.failNext('PUT', /pulls\/1\/merge$/, 405, {
      message: 'Base branch was modified. Review and try the merge again.',
    });
    await octokit.request('PUT /repos/{owner}/{repo}/pulls/{pull_number}/merge', {
      ...loc,
      pull_number: 1,
      merge_method: 'squash',
    });
    expect(api.calls.filter((c) => c.method === 'PUT').map((c) => c.status)).toEqual([405, 405, 200]);
  });
});
