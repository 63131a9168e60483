/**
 * The dashboard's links to the forge: getQueueActivity's PRs and recent PRs and getSubmittedPullRequest
 * carry `prUrl` and `headCommitUrl` for a GitHub repository, for a git repository connected with a PR
 * URL template (PR link only), and none for a git repository without one (no address known). Trunk's
 * contract fields that must be strings (testing details' `prUrl`) keep GitHub's form there.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createApiHarness, json, SLUG, type ApiHarness } from './api-harness.js';
import { v2Client } from './v2-client.js';

let h: ApiHarness;
beforeEach(async () => {
  h = await createApiHarness();
});
afterEach(() => h.close());

const GITHUB = 'github.com/acme/app';
const TEMPLATED = 'git.example.com/acme/api';

const keyOf = (slug: string) => {
  const [host, owner, name] = slug.split('/');
  return { repo: { host, owner, name }, targetBranch: 'main' };
};

/** PRs 1 and 2 submitted to the slug's main queue; PR 1 cancelled so that it is a recent PR. */
async function queueOf(slug: string): Promise<void> {
  const key = keyOf(slug);
  expect((await h.post('/v1/createQueue', key)).statusCode).toBe(200);
  for (const number of [1, 2]) {
    h.t.forge.openPr(slug, { number, title: `Change ${number}`, author: 'dev' });
    expect((await h.post('/v1/submitPullRequest', { ...key, pr: { number } })).statusCode).toBe(200);
  }
  await h.t.runEffects();
  expect((await h.post('/v1/cancelPullRequest', { ...key, pr: { number: 1 } })).statusCode).toBe(200);
  await h.t.runEffects();
}

const headOf = (slug: string, n: number) => h.t.forge.state(slug).prs.get(n)!.headSha;

async function linksOf(slug: string) {
  const key = keyOf(slug);
  const activity = json(await h.post('/v1/getQueueActivity', key));
  const submitted = json(await h.post('/v1/getSubmittedPullRequest', { ...key, pr: { number: 2 } }));
  const pick = (p: { prNumber: number; prUrl: unknown; headCommitUrl: unknown }) => ({
    prNumber: p.prNumber,
    prUrl: p.prUrl,
    headCommitUrl: p.headCommitUrl,
  });
  return {
    queued: activity.pullRequests.map(pick),
    recent: activity.recentPullRequests.map(pick),
    submitted: pick(submitted),
  };
}

describe('links to the forge', () => {
  it("links a GitHub repository's PRs and head commits in GitHub's form", async () => {
    await h.t.connectRepo('acme', GITHUB, { forge: 'github' });
    await queueOf(GITHUB);
    const [sha1, sha2] = [headOf(GITHUB, 1), headOf(GITHUB, 2)];
    const second = {
      prNumber: 2,
      prUrl: 'https://github.com/acme/app/pull/2',
      headCommitUrl: `https://github.com/acme/app/commit/${sha2}`,
    };
    expect(await linksOf(GITHUB)).toEqual({
      queued: [second],
      recent: [
        {
          prNumber: 1,
          prUrl: 'https://github.com/acme/app/pull/1',
          headCommitUrl: `https://github.com/acme/app/commit/${sha1}`,
        },
      ],
      submitted: second,
    });
  });

  it("links a git repository's PRs through its template, and none of its commits", async () => {
    await h.t.connectRepo('acme', TEMPLATED, { prUrlTemplate: 'https://git.example.com/acme/api/pulls/{n}' });
    await queueOf(TEMPLATED);
    const second = { prNumber: 2, prUrl: 'https://git.example.com/acme/api/pulls/2', headCommitUrl: null };
    expect(await linksOf(TEMPLATED)).toEqual({
      queued: [second],
      recent: [{ prNumber: 1, prUrl: 'https://git.example.com/acme/api/pulls/1', headCommitUrl: null }],
      submitted: second,
    });
  });

  it('gives no links for a git repository without a template, but keeps the contract string of testing details', async () => {
    await queueOf(SLUG);
    expect(await linksOf(SLUG)).toEqual({
      queued: [{ prNumber: 2, prUrl: null, headCommitUrl: null }],
      recent: [{ prNumber: 1, prUrl: null, headCommitUrl: null }],
      submitted: { prNumber: 2, prUrl: null, headCommitUrl: null },
    });
    const [runId] = h.t.ci.startedRunIds().slice(-1);
    const details = json(await h.post('/v1/getMergeQueueTestingDetails', { ...keyOf(SLUG), testRunId: runId }));
    expect(details.testedPullRequests).toEqual([
      { prNumber: 2, prUrl: 'https://github.com/acme/web/pull/2', title: 'Change 2' },
    ]);
  });

  it('follows the same rule on v2: a provider and PR addresses only where the forge is GitHub or a template says', async () => {
    await h.t.connectRepo('acme', GITHUB, { forge: 'github' });
    await queueOf(GITHUB);
    await queueOf(SLUG);
    const v2 = v2Client(h, new Set());
    const repoAt = async (url: string) =>
      json(await v2.call('GET', `/v2/repositories?providerUrl=${encodeURIComponent(url)}`)).data[0];
    const [github, plain] = [await repoAt('https://github.com/acme/app'), await repoAt('https://github.com/acme/web')];
    expect([github.provider, plain.provider]).toEqual(['github', 'unknown']);
    const prOf = async (repositoryId: string) =>
      json(await v2.call('GET', `/v2/pull-requests?repositoryId=${repositoryId}&number=2`)).data[0];
    expect((await prOf(github.id)).url).toBe('https://github.com/acme/app/pull/2');
    const plainPr = await prOf(plain.id);
    expect(plainPr.number).toBe(2);
    expect(plainPr).not.toHaveProperty('url');
  });
});
