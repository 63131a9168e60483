/**
 * The github forge's write throttling against the FAKE GitHub API: each App installation (and each
 * token) has its own lane of writes, as GitHub limits each on its own.
 */
import { generateKeyPairSync } from 'node:crypto';
import { describe, expect, it, vi } from 'vitest';
import { bindingFor, makeForge } from './github-harness.js';
import { FakeGitHubApi } from './fake-github-api.js';

describe('github forge: write throttling', () => {
  const { privateKey, publicKey } = generateKeyPairSync('rsa', {
    modulusLength: 2048,
    privateKeyEncoding: { type: 'pkcs1', format: 'pem' },
    publicKeyEncoding: { type: 'spki', format: 'pem' },
  });

  it("one installation's writes do not wait behind another's", async () => {
    const api = new FakeGitHubApi();
    api.branches.set('main', api.commit(null, 'base'));
    api.openPr(1, { headSha: api.commit(null, 'one') });
    api.openPr(2, { headSha: api.commit(null, 'two') });
    api.appId = 4321;
    api.appPublicKey = publicKey;
    // The throttling plugin's own groups: one write a second, one comment every three seconds.
    const forge = makeForge(api, {
      auth: { kind: 'app', appId: 4321, privateKey },
      throttle: { retryAfterBaseValue: 1 },
    });
    const a = bindingFor(api, { forgeData: { installationId: 1 } });
    const b = bindingFor(api, { forgeData: { installationId: 2 } });
    // Tokens first, so that only the comments are left to compare.
    await forge.getBranchSha(a, 'main');
    await forge.getBranchSha(b, 'main');
    api.clearLog();
    const sent = () => api.calls.map((c) => `${c.authorization?.replace(/_\d+$/, '')} ${String(c.body?.body)}`);

    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
    try {
      const all = Promise.all([
        forge.reply(a, 1, 'first of A'),
        forge.reply(a, 1, 'second of A'),
        forge.reply(b, 2, 'only of B'),
      ]);
      // Less than the spacing of writes: A's second comment waits for its turn, B's does not.
      await vi.advanceTimersByTimeAsync(500);
      expect(sent().sort()).toEqual(['token ghs_installation_1 first of A', 'token ghs_installation_2 only of B']);
      await vi.advanceTimersByTimeAsync(5_000);
      await all;
      expect(sent()).toContain('token ghs_installation_1 second of A');
    } finally {
      vi.useRealTimers();
    }
  });
});
