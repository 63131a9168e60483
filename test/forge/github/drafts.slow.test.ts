/**
 * Test PRs (createPrsForTestingBranches) and skipped checks, against the FAKE GitHub API as GitHub
 * behaves: drafts refused on some plans, 422s that are not "already exists", the title template, and
 * a test commit whose required checks were all skipped (workflows that skip jobs on drafts).
 */
import { Writable } from 'node:stream';
import { type Logger, pino } from 'pino';
import { afterEach, describe, expect, it } from 'vitest';
import { DEFAULT_QUEUE_CONFIG } from '../../../src/engine/config.js';
import type { QueueEventPayload } from '../../../src/engine/types.js';
import { bindingFor, createGitHubHarness, type GitHubHarness, makeForge } from './github-harness.js';
import { FakeGitHubApi } from './fake-github-api.js';
import { gitHubExample } from './webhook-examples.js';

const BRANCH = 'greenline-merge/main/run-1';

/** A repository with `main`, PRs 12 and 13, and the test branch of a run testing them. */
function repo(): FakeGitHubApi {
  const api = new FakeGitHubApi();
  const base = api.commit(null, 'base');
  api.branches.set('main', base);
  api.openPr(12, { headSha: api.commit(base, 'twelve') });
  api.openPr(13, { headSha: api.commit(base, 'thirteen') });
  api.branches.set(BRANCH, api.commit(base, 'test'));
  return api;
}

const testing: QueueEventPayload = {
  type: 'pull_request_batch.testing',
  at: 0,
  prNumbers: [12, 13],
  prNumbersInBatch: [12, 13],
  runId: 'run-1',
  testBranch: BRANCH,
  testBranchSha: null,
  reason: null,
  batched: true,
  isBisection: false,
};
const queue = {
  targetBranch: 'main',
  config: { ...DEFAULT_QUEUE_CONFIG, createPrsForTestingBranches: true, statusCheckEnabled: false },
};

/** A logger whose warnings are kept as text. */
function capturingLogger(): { logger: Logger; lines: string[] } {
  const lines: string[] = [];
  const stream = new Writable({
    write(chunk, _enc, done) {
      lines.push(String(chunk));
      done();
    },
  });
  return { logger: pino({ level: 'warn' }, stream), lines };
}

const testPrs = (api: FakeGitHubApi) => [...api.pulls.values()].filter((p) => p.head.ref === BRANCH);

describe('github forge: test PRs', () => {
  it('a draft, titled from the default template (a Conventional Commits subject)', async () => {
    const api = repo();
    await makeForge(api).onQueueEvent(bindingFor(api), queue, testing);
    expect(testPrs(api)).toEqual([
      expect.objectContaining({ draft: true, title: 'ci: greenline test run for #12, #13', state: 'open' }),
    ]);
  });

  it('where GitHub refuses drafts (a private repository on the Free plan), a ready PR instead', async () => {
    const api = repo();
    api.draftsUnsupported = true;
    await makeForge(api).onQueueEvent(bindingFor(api), queue, testing);
    expect(api.calls.filter((c) => c.path === '/repos/acme/web/pulls').map((c) => [c.body!.draft, c.status])).toEqual([
      [true, 422],
      [false, 201],
    ]);
    expect(testPrs(api)).toEqual([expect.objectContaining({ draft: false, state: 'open' })]);
  });

  it('the title comes from the testPrTitle template', async () => {
    const api = repo();
    await makeForge(api, { testPrTitle: 'chore(queue): test {prs} on {branch}' }).onQueueEvent(
      bindingFor(api),
      queue,
      testing,
    );
    expect(testPrs(api)[0]!.title).toBe('chore(queue): test #12, #13 on main');
  });

  it('a PR for the branch that exists already is the one; another 422 is a failure, logged with its message', async () => {
    const api = repo();
    api.openPr(20, { headSha: api.branches.get(BRANCH)! }).head.ref = BRANCH;
    const quiet = capturingLogger();
    await makeForge(api, { logger: quiet.logger }).onQueueEvent(bindingFor(api), queue, testing);
    expect(testPrs(api)).toHaveLength(1);
    expect(quiet.lines.join('')).not.toContain('refused the test PR');

    const api2 = repo();
    api2.failNext('POST', /\/pulls$/, 422, {
      message: 'Validation Failed',
      errors: [{ resource: 'PullRequest', code: 'custom', message: 'The base branch main is archived.' }],
    });
    const { logger, lines } = capturingLogger();
    await makeForge(api2, { logger }).onQueueEvent(bindingFor(api2), queue, testing);
    expect(testPrs(api2)).toEqual([]);
    expect(lines.join('')).toContain(
      `GitHub refused the test PR of ${BRANCH}: Validation Failed (The base branch main is archived.)`,
    );
  });
});

describe('github forge in the service: required checks that were all skipped', () => {
  let h: GitHubHarness;
  afterEach(() => h.close());

  /** GitHub's check_run completed delivery for acme/web, about `sha`. */
  const checkRun = (sha: string, name: string, conclusion: 'success' | 'neutral' | 'skipped') => {
    const p = gitHubExample('check_run', 'completed', { owner: 'acme', name: 'web' });
    Object.assign(p.check_run!, { id: 1, name, head_sha: sha, status: 'completed', conclusion });
    return p;
  };

  /** PR 1 submitted and testing on a queue requiring build and test; its test commit's sha. */
  async function testing1(settings: { allSkippedPasses?: boolean } = {}): Promise<string> {
    h = await createGitHubHarness();
    const base = h.api.commit(null, 'base');
    h.api.branches.set('main', base);
    h.api.openPr(1, { headSha: h.api.commit(base, 'pr1') });
    h.api.requiredChecks.set('main', ['build', 'test']);
    await h.app.service.createQueue(h.ctx, h.key, {});
    await h.app.service.updateQueue(h.ctx, h.key, settings);
    await h.app.service.submitPullRequest(h.ctx, h.key, { prNumber: 1 });
    await h.runEffects();
    const { entry } = await h.app.service.getSubmittedPullRequest(h.ctx, h.key, { number: 1 });
    expect(entry.state).toBe('TESTING');
    return h.api.branches.get(`greenline-merge/pr-1/${entry.runId}`)!;
  }

  it('fail the PR with the reason in words and nothing merged', async () => {
    const sha = await testing1();
    await h.deliver('check_run', checkRun(sha, 'build', 'skipped'));
    await h.deliver('check_run', checkRun(sha, 'test', 'neutral'));
    await h.runEffects();
    const { entry, reason } = await h.app.service.getSubmittedPullRequest(h.ctx, h.key, { number: 1 });
    expect(entry.state).toBe('FAILED');
    expect(entry.lastReason).toBe('REQUIRED_STATUSES_SKIPPED');
    expect(reason.detail).toMatch(
      /^every required check \(build, test\) was skipped on the test commit, so nothing was tested: make the workflows run these jobs/,
    );
    expect(h.api.pulls.get(1)!.merged).toBe(false);
  });

  it('one skipped beside one that passed merges', async () => {
    const sha = await testing1();
    await h.deliver('check_run', checkRun(sha, 'build', 'skipped'));
    await h.deliver('check_run', checkRun(sha, 'test', 'success'));
    await h.runEffects();
    expect((await h.app.service.getSubmittedPullRequest(h.ctx, h.key, { number: 1 })).entry.state).toBe('MERGED');
  });

  it('merge when the queue opts in (allSkippedPasses)', async () => {
    const sha = await testing1({ allSkippedPasses: true });
    await h.deliver('check_run', checkRun(sha, 'build', 'skipped'));
    await h.deliver('check_run', checkRun(sha, 'test', 'skipped'));
    await h.runEffects();
    expect((await h.app.service.getSubmittedPullRequest(h.ctx, h.key, { number: 1 })).entry.state).toBe('MERGED');
  });
});
