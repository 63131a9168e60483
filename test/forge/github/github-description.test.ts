/**
 * The fake of GitHub checks what it is sent and what it answers against GitHub's own description
 * (github-description.ts): each kind of request GitHub would not take, and each answer GitHub would not
 * give, is a violation (and a test that produces one fails).
 */
import { describe, expect, it } from 'vitest';
import examples from '@octokit/webhooks-examples';
import { checkResponse, checkWebhook, findOperation } from './github-description.js';
import { gitHubExample } from './webhook-examples.js';
import { expectNoViolations, FakeGitHubApi } from './fake-github-api.js';

function repo(): FakeGitHubApi {
  const api = new FakeGitHubApi();
  const base = api.commit(null, 'base');
  api.branches.set('main', base);
  api.openPr(1, { headSha: api.commit(base, 'one') });
  return api;
}

const send = (api: FakeGitHubApi, method: string, path: string, body?: unknown) =>
  api.fetch(`${api.baseUrl}${path}`, {
    method,
    headers: { authorization: 'token ghp_test', 'content-type': 'application/json' },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });

/** The violations the fake saw, taken (so that the test itself does not fail for them). */
const taken = (api: FakeGitHubApi) => api.violations.splice(0).map((v) => `${v.method} ${v.path}: ${v.message}`);

describe("GitHub's description as the fake's referee", () => {
  it('a request GitHub has no route for is a violation (and answered 404)', async () => {
    const api = repo();
    expect((await send(api, 'GET', '/repos/acme/web/pulls/1/merge-status')).status).toBe(404);
    expect(taken(api)).toEqual([
      'GET /repos/acme/web/pulls/1/merge-status: GitHub has no GET /repos/acme/web/pulls/1/merge-status',
    ]);
  });

  it('an operation GitHub has but the subset the fake reads leaves out is a violation naming what to do', async () => {
    const api = repo();
    expect((await send(api, 'GET', '/repos/acme/web/pulls/1/files')).status).toBe(404);
    expect(taken(api)).toEqual([
      'GET /repos/acme/web/pulls/1/files: pulls/list-files (GET /repos/{owner}/{repo}/pulls/{pull_number}/files) is left out of the description read: add it to test/forge/github/fake-operations.ts and run `npx tsx scripts/github-description-subset.ts`',
    ]);
  });

  it('a body field GitHub does not take, and an enum value it does not know, are violations', async () => {
    const api = repo();
    await send(api, 'POST', '/repos/acme/web/check-runs', { name: 'ci', head_sha: 'a'.repeat(40), colour: 'green' });
    await send(api, 'PUT', '/repos/acme/web/pulls/1/merge', { merge_method: 'fast-forward' });
    expect(taken(api)).toEqual([
      'POST /repos/acme/web/check-runs: body: (body) must NOT have additional properties: colour',
      'PUT /repos/acme/web/pulls/1/merge: body: /merge_method must be equal to one of the allowed values (merge, squash, rebase)',
    ]);
  });

  it('per_page over 100 and a query parameter GitHub does not take are violations', async () => {
    const api = repo();
    await send(api, 'GET', '/repos/acme/web/issues/1/comments?per_page=101&order=asc');
    expect(taken(api)).toEqual([
      'GET /repos/acme/web/issues/1/comments?per_page=101&order=asc: query parameter per_page=101: it must be <= 100',
      'GET /repos/acme/web/issues/1/comments?per_page=101&order=asc: GET /repos/{owner}/{repo}/issues/{issue_number}/comments takes no query parameter order',
    ]);
  });

  it('an answer without a field GitHub always sends, or with a status GitHub does not answer, is a violation', async () => {
    const pull = findOperation('GET', '/repos/acme/web/pulls/1')!.op;
    const { _links: _l, ...withoutLinks } = (await (await send(repo(), 'GET', '/repos/acme/web/pulls/1')).json()) as {
      _links: unknown;
    };
    expect(checkResponse(pull, 200, withoutLinks)).toEqual(["answer 200: (body) must have required property '_links'"]);

    const api = repo();
    api.failNext('POST', /check-runs$/, 200, { id: 1 });
    api.failNext('GET', /pulls\/1$/, 418, { message: "I'm a teapot" });
    await send(api, 'POST', '/repos/acme/web/check-runs', { name: 'ci', head_sha: 'a'.repeat(40) });
    await send(api, 'GET', '/repos/acme/web/pulls/1');
    expect(taken(api)).toEqual([
      'POST /repos/acme/web/check-runs: GitHub does not answer POST /repos/{owner}/{repo}/check-runs with 200 (it documents 201)',
      'GET /repos/acme/web/pulls/1: GitHub does not answer GET /repos/{owner}/{repo}/pulls/{pull_number} with 418 (it documents 200, 304, 404, 406, 500, 503)',
    ]);
  });

  it('routes with parameters that span slashes match as GitHub documents them', () => {
    expect(findOperation('GET', '/repos/acme/web/git/ref/heads/greenline-merge/main')?.pathParams).toMatchObject({
      ref: 'heads/greenline-merge/main',
    });
    expect(findOperation('GET', '/repos/acme/web/git/matching-refs/heads/greenline-merge/')?.op.template).toBe(
      '/repos/{owner}/{repo}/git/matching-refs/{ref}',
    );
    expect(findOperation('PATCH', '/repos/acme/web/git/refs/heads/a/b')?.pathParams.ref).toBe('heads/a/b');
    expect(findOperation('GET', '/repos/acme/web/branches/release/2.x')?.pathParams.branch).toBe('release/2.x');
    expect(findOperation('GET', '/repos/acme/web/branches/main/protection')?.op.template).toBe(
      '/repos/{owner}/{repo}/branches/{branch}/protection',
    );
    expect(findOperation('GET', '/repos/acme/web/commits/abc/check-runs')?.pathParams.ref).toBe('abc');
    // A segment of text and parameters wins over a parameter, which alone spans slashes.
    expect(findOperation('GET', '/repos/acme/web/compare/abc...def')?.pathParams).toMatchObject({
      base: 'abc',
      head: 'def',
    });
    expect(findOperation('GET', '/repos/acme/web/compare/main...feature/x')?.pathParams.basehead).toBe(
      'main...feature/x',
    );
  });

  it('a webhook payload GitHub would not send (a field missing, a state it does not know) is a violation', () => {
    const raw = (examples as unknown as { name: string; examples: { action?: string }[] }[])
      .find((e) => e.name === 'pull_request')!
      .examples.find((p) => p.action === 'opened')!;
    expect(checkWebhook('pull_request', raw)).toEqual([
      "pull-request-opened payload: /pull_request must have required property 'auto_merge'",
    ]);
    expect(checkWebhook('pull_request', gitHubExample('pull_request', 'opened'))).toEqual([]);
    const status = gitHubExample('status');
    status.state = 'passed';
    expect(checkWebhook('status', status)).toEqual([
      'status payload: /state must be equal to one of the allowed values (pending, success, failure, error)',
    ]);
    expect(checkWebhook('pull_request', { action: 'teleported' })).toEqual([
      'GitHub sends no pull_request teleported delivery',
    ]);
  });

  it('a test after which a fake saw a violation fails, without the test asking', async () => {
    const api = repo();
    await send(api, 'GET', '/repos/acme/web/pulls/1?expand=all');
    // What the fake's module runs after every test:
    expect(() => expectNoViolations()).toThrow(
      'GitHub would not have taken or answered this:\n  GET /repos/acme/web/pulls/1?expand=all: GET /repos/{owner}/{repo}/pulls/{pull_number} takes no query parameter expand',
    );
    expect(() => expectNoViolations()).not.toThrow();
  });
});
