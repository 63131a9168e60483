/**
 * The GitLab client's deadline and rate limits against a real HTTP server that misbehaves: a server
 * that never answers (or never finishes its answer) fails the request at the deadline; a 429 is
 * ForgeRateLimitedError at `Retry-After`, a 403 with `RateLimit-Remaining: 0` at `RateLimit-Reset`;
 * a plain 403 is GitLab's refusal; and forgeRequestTimeoutSeconds is the gitlab forge's deadline.
 */
import { pino } from 'pino';
import { afterEach, describe, expect, it } from 'vitest';
import { DEFAULT_CONFIG } from '../../../src/config/schema.js';
import { ForgeDeadlineError } from '../../../src/forge/forge-http.js';
import { GitlabClient } from '../../../src/forge/gitlab/client.js';
import { gitlabForge } from '../../../src/forge/gitlab/definition.js';
import { ForgeRateLimitedError, ForgeUnreachableError, type RepoBinding } from '../../../src/forge/port.js';
import { forgeContext } from '../../../src/forges.js';
import { ManualClock } from '../../../src/lib/clock.js';
import { createForge } from '../../../src/server/server.js';
import { makeTempDir, removeTempDir } from '../../helpers/temp-dir.js';
import { type Misbehaviour, type MisbehavingServer, startMisbehavingServer } from '../misbehaving-server.js';

const MR = '/api/v4/projects/acme%2Ftools%2Fweb/merge_requests/1';

describe('gitlab client: deadline and rate limits', () => {
  let server: MisbehavingServer | null = null;
  afterEach(async () => {
    await server?.close();
    server = null;
  });

  async function clientOf(how: Misbehaviour, clock = new ManualClock()): Promise<GitlabClient> {
    server = await startMisbehavingServer(how);
    return new GitlabClient(server.url, 'glpat-1', { requestTimeoutMs: 200, clock });
  }

  it.each([
    ['never answers', { kind: 'silent' }],
    ['answers the headers but never the body', { kind: 'headers-only' }],
  ] as const)('a server that %s fails the request at the deadline', async (_, how) => {
    const client = await clientOf(how);
    const err = await client.request('GET', '/projects/acme%2Ftools%2Fweb/merge_requests/1').catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ForgeDeadlineError);
    expect((err as Error).message).toBe(`${server!.url} did not answer GET ${MR} within 0.2 s`);
  });

  it('a 429 waits until Retry-After; a 403 with no request left until RateLimit-Reset; a plain 403 is a refusal', async () => {
    const clock = new ManualClock(Date.UTC(2026, 0, 5, 9));
    const limited = await clientOf(
      {
        kind: 'answer',
        status: 429,
        headers: { 'retry-after': '30', 'ratelimit-remaining': '0' },
        body: { message: 'Retry later' },
      },
      clock,
    );
    expect(await limited.request('GET', '/user').catch((e: unknown) => e)).toMatchObject({
      name: 'ForgeRateLimitedError',
      retryAt: clock.now() + 30_000,
    });
    await server!.close();

    const reset = Math.floor(clock.now() / 1000) + 90;
    const spent = await clientOf(
      {
        kind: 'answer',
        status: 403,
        headers: { 'ratelimit-remaining': '0', 'ratelimit-reset': String(reset) },
        body: {},
      },
      clock,
    );
    const err = await spent.request('GET', '/user').catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ForgeRateLimitedError);
    expect((err as ForgeRateLimitedError).retryAt).toBe(reset * 1000);
    await server!.close();

    const refused = await clientOf(
      { kind: 'answer', status: 403, headers: {}, body: { message: '403 Forbidden' } },
      clock,
    );
    const forbidden = await refused.request('GET', '/user').catch((e: unknown) => e);
    expect(forbidden).not.toBeInstanceOf(ForgeUnreachableError);
    expect(forbidden).toMatchObject({ name: 'GitlabApiError', status: 403, gitlabMessage: '403 Forbidden' });
  });

  it('the server setting forgeRequestTimeoutSeconds is the deadline of the gitlab forge', async () => {
    server = await startMisbehavingServer({ kind: 'silent' });
    const dataDir = await makeTempDir('greenline-gitlab-deadline-');
    try {
      const config = {
        ...DEFAULT_CONFIG,
        gitlabUrl: server.url,
        gitlabToken: 'glpat-1',
        forgeRequestTimeoutSeconds: 1,
      };
      const forge = createForge(
        gitlabForge,
        config,
        forgeContext(dataDir, config.forgeRequestTimeoutSeconds * 1000, pino({ level: 'silent' }))('gitlab'),
      )!.port;
      const repo: RepoBinding = {
        id: 'repo-1',
        org: 'acme',
        repo: { host: '127.0.0.1', owner: 'acme/tools', name: 'web' },
        forge: 'gitlab',
        remote: null,
        prRefPattern: 'refs/merge-requests/{n}/head',
        ciCommand: null,
        testBranchPrefix: 'greenline-merge',
      };
      await expect(forge.getPullRequest(repo, 1)).rejects.toThrow(`did not answer GET ${MR} within 1 s`);
    } finally {
      await removeTempDir(dataDir);
    }
  });
});
