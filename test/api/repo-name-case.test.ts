/**
 * Repository names in API requests are case-insensitive, as GitHub's are: a v1 `repo` in another
 * letter case, and a v2 provider URL in another case, reach the repository connected as
 * github.com/Acme/App; links name it as it was connected.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createApiHarness, json, type ApiHarness } from './api-harness.js';
import { v2Client } from './v2-client.js';

let h: ApiHarness;
beforeEach(async () => {
  h = await createApiHarness();
  await h.t.connectRepo('acme', 'github.com/Acme/App', { forge: 'github' });
  h.t.forge.openPr('github.com/Acme/App', { number: 1, title: 'Change 1', author: 'dev' });
});
afterEach(() => h.close());

const at = (host: string, owner: string, name: string) => ({ repo: { host, owner, name }, targetBranch: 'main' });

describe('a repository named in another letter case', () => {
  it('v1: creates its queue, submits and reads a PR, and the answers link the PR as connected', async () => {
    const created = await h.post('/v1/createQueue', at('GITHUB.COM', 'ACME', 'APP'));
    expect(created.statusCode, created.body).toBe(200);
    const again = await h.post('/v1/createQueue', at('github.com', 'acme', 'app'));
    expect(again.statusCode, again.body).toBe(409);
    const submitted = await h.post('/v1/submitPullRequest', { ...at('github.com', 'acme', 'app'), pr: { number: 1 } });
    expect(submitted.statusCode, submitted.body).toBe(200);
    const queue = await h.post('/v1/getQueue', at('github.com', 'aCmE', 'aPp'));
    expect(queue.statusCode, queue.body).toBe(200);
    expect(json(queue).enqueuedPullRequests.map((p: { prNumber: number }) => p.prNumber)).toEqual([1]);
    const pr = await h.post('/v1/getSubmittedPullRequest', { ...at('GITHUB.COM', 'ACME', 'APP'), pr: { number: 1 } });
    expect(pr.statusCode, pr.body).toBe(200);
    expect(json(pr).prUrl).toBe('https://github.com/Acme/App/pull/1');
  });

  it('v2: a provider URL in another case resolves the repository', async () => {
    const found = json(await v2Client(h).call('GET', '/v2/repositories?providerUrl=https://GITHUB.COM/ACME/APP'));
    expect(found.data).toEqual([expect.objectContaining({ path: 'Acme/App', url: 'https://github.com/Acme/App' })]);
  });
});
