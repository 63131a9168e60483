/**
 * The GitHub App's installation changing under a running server: uninstalled, installed again under a
 * new id. `installation` and `installation_repositories` deliveries have the forge forget the
 * installation it kept for the repositories concerned; without a delivery, an installation token
 * GitHub no longer creates has the installation looked up again, once.
 */
import { generateKeyPairSync } from 'node:crypto';
import { afterEach, describe, expect, it, vi } from 'vitest';
import type { Json } from '../../helpers/json.js';
import { FakeGitHubApi } from './fake-github-api.js';
import { bindingFor, createGitHubHarness, makeForge, type GitHubHarness } from './github-harness.js';
import { gitHubExamples } from './webhook-examples.js';

type Payload = Record<string, Json>;
const { privateKey, publicKey } = generateKeyPairSync('rsa', {
  modulusLength: 2048,
  privateKeyEncoding: { type: 'pkcs1', format: 'pem' },
  publicKeyEncoding: { type: 'spki', format: 'pem' },
});
const APP = { kind: 'app' as const, appId: 4321, privateKey };

/** GitHub's example `installation` delivery of `action`, for installation `id` on acme/web. */
function installation(action: string, id: number): Payload {
  const p = gitHubExamples('installation').find((x) => x.action === action)!;
  p.installation.id = id;
  p.repositories = [{ ...p.repositories[0], full_name: 'acme/web', name: 'web' }];
  return p;
}

/** The fake with the App installed on acme/web as installation 77, and PR 1. */
function installedApp(): FakeGitHubApi {
  const api = new FakeGitHubApi();
  api.appId = APP.appId;
  api.appPublicKey = publicKey;
  api.installations.set('acme/web', 77);
  const base = api.commit(null, 'base');
  api.branches.set('main', base);
  api.openPr(1, { headSha: api.commit(base, 'one') });
  return api;
}

let h: GitHubHarness | undefined;
afterEach(async () => {
  vi.useRealTimers();
  await h?.close();
  h = undefined;
});

describe('the GitHub App uninstalled and installed again under a new id', () => {
  it('installation deliveries (deleted, created) have the forge look the installation up again', async () => {
    const api = installedApp();
    h = await createGitHubHarness({ api, forge: { auth: APP } });
    const b = bindingFor(api);
    expect((await h.forge.getPullRequest(b, 1))?.number).toBe(1);

    api.uninstall();
    expect((await h.deliver('installation', installation('deleted', 77))).body.result).toBe('accepted');
    api.installations.set('acme/web', 78);
    expect((await h.deliver('installation', installation('created', 78))).body.result).toBe('accepted');

    api.clearLog();
    expect((await h.forge.getPullRequest(b, 1))?.number).toBe(1);
    expect(api.log).toEqual([
      'GET /repos/acme/web/installation',
      'POST /app/installations/78/access_tokens',
      'GET /repos/acme/web/pulls/1',
    ]);
  });

  it('without a delivery: the revoked token fails one request; then the token GitHub refuses (404) has the installation looked up again', async () => {
    const api = installedApp();
    const forge = makeForge(api, { auth: APP });
    const b = bindingFor(api);
    expect((await forge.getPullRequest(b, 1))?.number).toBe(1);
    api.uninstall();
    api.installations.set('acme/web', 78);

    // Later than the 5 s after its creation in which @octokit/auth-app retries a token's 401 (GitHub's replication delay).
    vi.useFakeTimers({ toFake: ['Date'] });
    vi.setSystemTime(Date.now() + 60_000);
    await expect(forge.getPullRequest(b, 1)).rejects.toMatchObject({ status: 401 });
    api.clearLog();
    expect((await forge.getPullRequest(b, 1))?.number).toBe(1);
    expect(api.calls.map((c) => `${c.method} ${c.path} ${c.status}`)).toEqual([
      'POST /app/installations/77/access_tokens 404',
      'GET /repos/acme/web/installation 200',
      'POST /app/installations/78/access_tokens 201',
      'GET /repos/acme/web/pulls/1 200',
    ]);
    // From then on the new installation's token is used as it is.
    api.clearLog();
    await forge.getBranchSha(b, 'main');
    expect(api.log).toEqual(['GET /repos/acme/web/git/ref/heads/main']);
  });

  it("every example of GitHub's installation and installation_repositories deliveries is accepted and acted on at once", async () => {
    const api = installedApp();
    h = await createGitHubHarness({ api, forge: { auth: APP } });
    let n = 0;
    for (const event of ['installation', 'installation_repositories'])
      for (const payload of gitHubExamples(event)) {
        const res = await h.deliver(event, payload, { id: `installation-${++n}` });
        expect(res.body.result, `${event} ${payload.action}`).toBe('accepted');
      }
    expect(n).toBe(10);
  });
});
