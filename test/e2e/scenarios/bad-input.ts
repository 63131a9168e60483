/**
 * End to end, what a caller gets wrong: a repository whose remote does not exist, a PR number the
 * forge has no ref for, a malformed number, an unknown queue. Each answer names the problem, none is
 * a crash, and the good PRs submitted around them still merge.
 */
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CHECK_SH, writeCiScript } from '../ci-script.js';
import { GitRemote } from '../git-remote.js';
import { GreenlineProcess, runCli } from '../greenline-process.js';
import { QueueClient, SCENARIO_MS, SETTLE_MS } from '../queue-client.js';
import { makeTempDirSync, removeTempDir } from '../../helpers/temp-dir.js';

const SLUG = 'example.com/acme/app';
const GHOST = 'example.com/acme/ghost';

export function badInputScenario(): void {
  describe.concurrent('bad input against the real server', () => {
    let dir: string;
    let ghostRemote: string;
    let remote: GitRemote;
    let server: GreenlineProcess;
    let queue: QueueClient;
    let ghost: QueueClient;

    beforeAll(async () => {
      dir = makeTempDirSync('greenline-e2e-bad-');
      ghostRemote = path.join(dir, 'no-such-remote.git');
      remote = await GitRemote.create(dir, { 'check.sh': CHECK_SH });
      for (const n of [1, 2]) await remote.openPr(n, { [`features/pr-${n}.txt`]: 'works\n' }, `Feature ${n}`);
      const ci = writeCiScript(dir);
      server = await GreenlineProcess.start({
        dir,
        repos: [
          { repo: SLUG, remote: remote.dir, ciCommand: ci.command },
          { repo: GHOST, remote: ghostRemote, ciCommand: ci.command, remoteCheck: false },
        ],
      });
      queue = new QueueClient(server, SLUG);
      ghost = new QueueClient(server, GHOST);
      await queue.create('single', 2);
      expect((await queue.submit(1)).status).toBe(200);
    }, 60_000);

    afterAll(async () => {
      await server?.stop();
      await removeTempDir(dir);
    });

    it.sequential('repo connect refuses a remote that does not exist, saying what to do', async () => {
      const r = await runCli([
        'repo',
        'connect',
        'example.com/acme/nowhere',
        '--org',
        'default',
        '--forge',
        'git',
        '--remote',
        ghostRemote,
        '--data-dir',
        path.join(dir, 'data'),
      ]);
      expect(r.code).toBe(2);
      expect(r.stderr).toContain(`Cannot reach the remote ${ghostRemote}`);
      expect(r.stderr).toMatch(/no such directory/);
      expect(r.stderr).toMatch(/--no-remote-check/);
    });

    it.sequential('a repository whose remote is gone: submit answers 502 FORGE_UNREACHABLE naming the remote', async () => {
      await ghost.create('single', 1);
      const reply = await ghost.submit(1);
      expect(reply.status).toBe(502);
      expect(reply.json.error.code).toBe('FORGE_UNREACHABLE');
      expect(reply.json.error.message).toContain(`cannot reach remote ${ghostRemote}`);
      expect(reply.json.error.message).toMatch(/does not appear to be a git repository/);
      // Nothing was stored for it.
      const lookup = await server.api('getSubmittedPullRequest', { ...ghost.key, pr: { number: 1 } });
      expect([lookup.status, lookup.json.error.code]).toEqual([404, 'PR_NOT_SUBMITTED']);
    });

    it.sequential('a PR number the forge has no ref for: 404 PR_NOT_FOUND naming the PR', async () => {
      const reply = await queue.submit(42);
      expect(reply.status).toBe(404);
      expect(reply.json.error).toEqual({
        code: 'PR_NOT_FOUND',
        message: 'Pull request #42 does not exist in acme/app',
      });
    });

    it.sequential('a malformed PR number and an unknown queue: 400 and 404 naming them', async () => {
      const malformed = await server.api('submitPullRequest', { ...queue.key, pr: { number: 'forty-two' } });
      expect(malformed.status).toBe(400);
      expect(malformed.json.error.code).toBe('VALIDATION_FAILED');
      expect(malformed.json.error.message).toMatch(/body\/pr\/number/);
      const noQueue = await server.api('submitPullRequest', {
        ...queue.key,
        targetBranch: 'release',
        pr: { number: 1 },
      });
      expect(noQueue.status).toBe(404);
      expect(noQueue.json.error.code).toBe('QUEUE_NOT_FOUND');
      expect(noQueue.json.error.message).toContain('"release"');
    });

    it.sequential(
      'loses nothing: the PRs submitted around the bad requests merge',
      async ({ onTestFailed }) => {
        onTestFailed(() => console.error(server.story()));
        expect((await queue.submit(2)).status).toBe(200);
        const entries = await queue.settle([1, 2], SETTLE_MS);
        expect([entries.get(1).state, entries.get(2).state]).toEqual(['MERGED', 'MERGED']);
        expect((await remote.targetCommits()).map((c) => c.prNumber)).toEqual([1, 2]);
        expect(await (await fetch(`${server.url}/healthz`)).json()).toEqual({ status: 'ok' });
      },
      SCENARIO_MS,
    );
  });
}
