/**
 * The Gitea client's deadline and rate limits against a real HTTP server that misbehaves: a server
 * that never answers (or never finishes its answer) fails the request at the deadline, and a rate
 * limit (429, or 403 with Retry-After) is ForgeRateLimitedError with the time to ask again.
 */
import { pino } from 'pino';
import { afterEach, describe, expect, it } from 'vitest';
import { DEFAULT_CONFIG } from '../../../src/config/schema.js';
import { ForgeDeadlineError } from '../../../src/forge/forge-http.js';
import { GiteaClient } from '../../../src/forge/gitea/client.js';
import { ForgeRateLimitedError, ForgeUnreachableError, type RepoBinding } from '../../../src/forge/port.js';
import { ManualClock } from '../../../src/lib/clock.js';
import { giteaForge } from '../../../src/forge/gitea/definition.js';
import { forgeContext } from '../../../src/forges.js';
import { createForge } from '../../../src/server/server.js';
import { makeTempDir, removeTempDir } from '../../helpers/temp-dir.js';
import { type Misbehaviour, type MisbehavingServer, startMisbehavingServer } from '../misbehaving-server.js';

const PULL = '/api/v1/repos/acme/web/pulls/1';

describe('gitea client: deadline and rate limits', () => {
  let server: MisbehavingServer | null = null;
  afterEach(async () => {
    await server?.close();
    server = null;
  });

  async function clientOf(how: Misbehaviour, clock = new ManualClock()): Promise<GiteaClient> {
    server = await startMisbehavingServer(how);
    return new GiteaClient(server.url, 'token-1', { requestTimeoutMs: 200, clock });
  }

  it.each([
    ['never answers', { kind: 'silent' }],
    ['answers the headers but never the body', { kind: 'headers-only' }],
  ] as const)('a server that %s fails the request at the deadline', async (_, how) => {
    const client = await clientOf(how);
    const err = await client.request('GET', '/repos/acme/web/pulls/1').catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ForgeDeadlineError);
    expect(err).toBeInstanceOf(ForgeUnreachableError);
    expect((err as Error).message).toBe(`${server!.url} did not answer GET ${PULL} within 0.2 s`);
    expect(server!.requests).toEqual([`GET ${PULL}`]);
  });

  it('429 with Retry-After in seconds: rate-limited until then', async () => {
    const clock = new ManualClock(Date.UTC(2026, 0, 5, 9));
    const client = await clientOf(
      { kind: 'answer', status: 429, headers: { 'retry-after': '2' }, body: { message: 'Too Many Requests' } },
      clock,
    );
    const err = await client.request('POST', '/repos/acme/web/issues/1/comments', { body: 'hi' }).catch((e) => e);
    expect(err).toBeInstanceOf(ForgeRateLimitedError);
    expect(err).toMatchObject({
      retryAt: clock.now() + 2_000,
      message: `${server!.url} rate-limited greenline (POST /api/v1/repos/acme/web/issues/1/comments: 429) until 2026-01-05T09:00:02.000Z; greenline waits for it`,
    });
  });

  it('403 with Retry-After as an HTTP date, and 429 without one (a minute), are rate limits; a plain 403 is not', async () => {
    const clock = new ManualClock(Date.UTC(2026, 0, 5, 9));
    const at = Date.UTC(2026, 0, 5, 9, 5);
    const dated = await clientOf(
      { kind: 'answer', status: 403, headers: { 'retry-after': new Date(at).toUTCString() }, body: {} },
      clock,
    );
    expect(await dated.request('GET', '/repos/acme/web/pulls/1').catch((e) => e)).toMatchObject({
      name: 'ForgeRateLimitedError',
      retryAt: at,
    });
    await server!.close();

    const bare = await clientOf({ kind: 'answer', status: 429, headers: {}, body: {} }, clock);
    expect(await bare.request('GET', '/repos/acme/web/pulls/1').catch((e) => e)).toMatchObject({
      name: 'ForgeRateLimitedError',
      retryAt: clock.now() + 60_000,
    });
    await server!.close();

    const refused = await clientOf({ kind: 'answer', status: 403, headers: {}, body: { message: 'Forbidden' } }, clock);
    const err = await refused.request('GET', '/repos/acme/web/pulls/1').catch((e) => e);
    expect(err).not.toBeInstanceOf(ForgeUnreachableError);
    expect(err).toMatchObject({ name: 'GiteaApiError', status: 403 });
  });

  it('the server setting forgeRequestTimeoutSeconds is the deadline of the gitea forge', async () => {
    server = await startMisbehavingServer({ kind: 'silent' });
    const dataDir = await makeTempDir('greenline-gitea-deadline-');
    try {
      const logger = pino({ level: 'silent' });
      const config = { ...DEFAULT_CONFIG, giteaUrl: server.url, giteaToken: 'token-1', forgeRequestTimeoutSeconds: 1 };
      const forge = createForge(
        giteaForge,
        config,
        forgeContext(dataDir, config.forgeRequestTimeoutSeconds * 1000, logger)('gitea'),
      )!.port;
      const repo: RepoBinding = {
        id: 'repo-1',
        org: 'acme',
        repo: { host: '127.0.0.1', owner: 'acme', name: 'web' },
        forge: 'gitea',
        remote: null,
        prRefPattern: 'refs/pull/{n}/head',
        ciCommand: null,
        testBranchPrefix: 'greenline-merge',
      };
      await expect(forge.getPullRequest(repo, 1)).rejects.toThrow(`did not answer GET ${PULL} within 1 s`);
    } finally {
      await removeTempDir(dataDir);
    }
  });
});
