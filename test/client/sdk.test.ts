/**
 * The SDK over real HTTP: the real HTTP app and service (fake forge and CI, effects run by the test)
 * listening on a local port. Every endpoint answers with the documented type; refusals are
 * GreenlineApiError with status and code; no answer is GreenlineNetworkError.
 */
import { createServer as createHttpServer, type Server } from 'node:http';
import { connect as connectSocket, createServer as createNetServer, type Socket } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  GreenlineApiError,
  GreenlineClient,
  GreenlineError,
  GreenlineNetworkError,
  waitForPullRequest,
  WaitTimeoutError,
  type QueueRequest,
  type SubmittedPullRequest,
} from '../../src/client/index.js';
import { createApiHarness, REPO, SLUG, type ApiHarness } from '../api/api-harness.js';

let h: ApiHarness;
let url: string;
let client: GreenlineClient;
const MAIN: QueueRequest = { repo: REPO, targetBranch: 'main' };

beforeAll(async () => {
  h = await createApiHarness();
  await h.queueWithPrs(4);
  url = await h.app.listen({ port: 0, host: '127.0.0.1' });
  client = new GreenlineClient({ url, token: h.token });
});
afterAll(() => h?.close());

/** The rejection of `promise` (fails the test when it resolves). */
async function rejectionOf(promise: Promise<unknown>): Promise<unknown> {
  try {
    await promise;
  } catch (err) {
    return err;
  }
  throw new Error('expected the call to reject');
}

/** Listens on a free local port; returns the server's http:// address (the caller closes it). */
async function listen(server: Server | ReturnType<typeof createNetServer>): Promise<string> {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return `http://127.0.0.1:${(server.address() as { port: number }).port}`;
}

describe('GreenlineClient: every endpoint', () => {
  it('pull requests: submit, read, list, targets, testing details, status reports, log, restart, cancel', async () => {
    const head = h.t.forge.state(SLUG).prs.get(1)!.headSha;
    expect(
      await client.setImpactedTargets({ ...MAIN, pr: { number: 1, sha: head }, impactedTargets: ['api', 'web'] }),
    ).toEqual({});
    expect(await client.submitPullRequest({ ...MAIN, pr: { number: 1 }, priority: 'high' })).toEqual({});
    expect(await client.queuePullRequest({ ...MAIN, pr: { number: '2' }, noBatch: true })).toEqual({});
    const pr1 = await client.getSubmittedPullRequest({ ...MAIN, pr: { number: 1 } });
    expect(pr1).toMatchObject({
      prNumber: 1,
      priorityName: 'high',
      priorityValue: 10,
      isCurrentlySubmittedToQueue: true,
    });
    const pr2 = await client.getSubmittedPullRequest({ ...MAIN, pr: { number: 2 } });
    expect(pr2.noBatch).toBe(true);

    await h.t.runEffects();
    const [runId] = h.t.ci.startedRunIds();
    const details = await client.getMergeQueueTestingDetails({ ...MAIN, testRunId: runId! });
    expect(details).toMatchObject({
      status: 'in_progress',
      testedPullRequests: [{ prNumber: 1 }],
      impactedTargetsForTestedPrs: ['api', 'web'],
    });
    h.t.ci.logs.set(runId!, 'step 1\nstep 2\n');
    expect(await client.getTestRunLog({ ...MAIN, testRunId: runId! })).toBe('step 1\nstep 2\n');
    expect(await client.restartTestsOnPullRequest({ ...MAIN, pr: { number: 1 } })).toEqual({});
    await h.t.runEffects();
    const restartedRun = h.t.ci.startedRunIds().at(-1)!;
    expect(restartedRun).not.toBe(runId);

    expect(
      await client.reportStatus({
        repo: REPO,
        testRunId: restartedRun,
        context: 'greenline/ci',
        state: 'SUCCESS',
        url: 'https://ci.example.com/1',
      }),
    ).toEqual({});
    await h.t.runEffects();
    expect((await client.getSubmittedPullRequest({ ...MAIN, pr: { number: 1 } })).state).toBe('MERGED');

    expect(await client.cancelPullRequest({ ...MAIN, pr: { number: 2 } })).toEqual({});
    const list = await client.listPullRequests({ ...MAIN, take: 1 });
    expect(list.pullRequests).toHaveLength(1);
    const rest = await client.listPullRequests({ ...MAIN, take: 100, cursor: list.nextCursor! });
    expect([...list.pullRequests, ...rest.pullRequests].map((p) => `${p.prNumber} ${p.state}`).sort()).toEqual([
      '1 MERGED',
      '2 CANCELLED',
    ]);
    expect(rest.nextCursor).toBeUndefined();
  });

  it('queues: create, get, update, delete; metrics; health', async () => {
    const q = { ...MAIN, targetBranch: 'sdk' };
    h.t.forge.pushToBranch(SLUG, 'sdk');
    expect(await client.createQueue({ ...q, mode: 'parallel', concurrency: 2 })).toEqual({});
    expect(await client.getQueue(q)).toMatchObject({
      state: 'RUNNING',
      branch: 'sdk',
      mode: 'parallel',
      concurrency: 2,
      enqueuedPullRequests: [],
    });
    const updated = await client.updateQueue({ ...q, state: 'paused', batch: true, requiredStatuses: ['build'] });
    expect(updated).toMatchObject({ state: 'PAUSED', batch: true, requiredStatuses: ['build'] });
    expect(updated).not.toHaveProperty('enqueuedPullRequests');

    const metrics = await client.getMergeQueueMetrics({ repo: 'acme/web', repoHost: 'github.com' });
    expect(metrics).toContain('mq_depth_current{repo="acme/web",branch="sdk",queue_type="main"} 0');
    expect(await client.getMergeQueueMetrics()).toContain('# TYPE mq_depth_current gauge');

    expect(await client.deleteQueue(q)).toEqual({});
    expect(await new GreenlineClient({ url }).healthz()).toEqual({ status: 'ok' });
  });
});

describe('GreenlineClient: errors', () => {
  it('a refusal is a GreenlineApiError with the status, code and message of the body', async () => {
    const exists = await rejectionOf(client.createQueue(MAIN));
    expect(exists).toBeInstanceOf(GreenlineApiError);
    expect(exists).toBeInstanceOf(GreenlineError);
    expect(exists).toMatchObject({
      status: 409,
      code: 'QUEUE_EXISTS',
      message: 'A merge queue already exists for branch "main" in this repository',
    });

    expect(await rejectionOf(client.getQueue({ ...MAIN, targetBranch: 'nope' }))).toMatchObject({
      status: 404,
      code: 'QUEUE_NOT_FOUND',
    });
    expect(await rejectionOf(client.getSubmittedPullRequest({ ...MAIN, pr: { number: 4 } }))).toMatchObject({
      status: 404,
      code: 'PR_NOT_SUBMITTED',
    });
    const invalid = (await rejectionOf(client.submitPullRequest({ ...MAIN, pr: { number: 0 } }))) as GreenlineApiError;
    expect(invalid).toMatchObject({ status: 400, code: 'VALIDATION_FAILED' });
    expect(invalid.message).toContain('body/pr/number');
    expect(await rejectionOf(client.deleteQueue({ ...MAIN, targetBranch: 'x' }))).toMatchObject({ status: 404 });

    for (const token of ['gl_wrong', undefined]) {
      const other = new GreenlineClient({ url, ...(token ? { token } : {}) });
      expect(await rejectionOf(other.getQueue(MAIN))).toMatchObject({ status: 401, code: 'UNAUTHORIZED' });
    }
  });

  it('no server is a GreenlineNetworkError naming the address and the reason', async () => {
    const server = createNetServer();
    const closed = await listen(server);
    await new Promise((resolve) => server.close(resolve));
    const err = await rejectionOf(new GreenlineClient({ url: closed, token: 't' }).getQueue(MAIN));
    expect(err).toBeInstanceOf(GreenlineNetworkError);
    expect(err).not.toBeInstanceOf(GreenlineApiError);
    expect(err).toMatchObject({ reason: 'ECONNREFUSED', url: `${closed}/v1/getQueue` });
  });

  it("a host whose every address refuses (localhost: ::1 and 127.0.0.1) is ECONNREFUSED too, with the first address's message", async () => {
    const server = createNetServer();
    const closed = await listen(server);
    await new Promise((resolve) => server.close(resolve));
    const port = Number(new URL(closed).port);
    // What Node's fetch rejects with when it tried several addresses: an AggregateError of one error
    // per address, with an empty message, and in some Node 20 releases no code of its own.
    const aggregate = await new Promise<Error & { code?: string }>((resolve) => {
      connectSocket({
        host: 'greenline.test',
        port,
        autoSelectFamily: true,
        lookup: (_host, _options, callback) =>
          (callback as unknown as (e: null, a: { address: string; family: number }[]) => void)(null, [
            { address: '127.0.0.1', family: 4 },
            { address: '::1', family: 6 },
          ]),
      }).on('error', resolve);
    });
    expect(aggregate).toBeInstanceOf(AggregateError);
    const withoutCode = Object.assign(new AggregateError((aggregate as AggregateError).errors, ''), {
      code: undefined,
    });
    for (const cause of [aggregate, withoutCode]) {
      const fetchFailing = (() => Promise.reject(new TypeError('fetch failed', { cause }))) as unknown as typeof fetch;
      const err = (await rejectionOf(
        new GreenlineClient({ url: closed, token: 't', fetch: fetchFailing }).getQueue(MAIN),
      )) as GreenlineNetworkError;
      expect(err).toBeInstanceOf(GreenlineNetworkError);
      expect(err.reason).toBe('ECONNREFUSED');
      expect(err.message).toBe(`Cannot reach ${closed}/v1/getQueue: connect ECONNREFUSED 127.0.0.1:${port}`);
    }
  });

  it('a server that never answers is a TIMEOUT after timeoutMs', async () => {
    const sockets: Socket[] = [];
    const server = createNetServer((socket) => {
      sockets.push(socket);
    });
    const silent = await listen(server);
    try {
      const started = Date.now();
      const err = await rejectionOf(new GreenlineClient({ url: silent, token: 't', timeoutMs: 150 }).healthz());
      expect(err).toBeInstanceOf(GreenlineNetworkError);
      expect(err).toMatchObject({ reason: 'TIMEOUT' });
      expect(Date.now() - started).toBeLessThan(5_000);
    } finally {
      for (const s of sockets) s.destroy();
      await new Promise((resolve) => server.close(resolve));
    }
  });

  it("an answer that is not greenline's is UNEXPECTED_RESPONSE, with the status and the start of the body", async () => {
    const server = createHttpServer((req, res) => {
      if (req.url === '/v1/getQueue') res.writeHead(200, { 'content-type': 'text/html' }).end('<html>login</html>');
      else res.writeHead(502, { 'content-type': 'text/html' }).end('<h1>Bad gateway</h1>');
    });
    const proxy = await listen(server);
    try {
      const c = new GreenlineClient({ url: proxy, token: 't' });
      expect(await rejectionOf(c.createQueue(MAIN))).toMatchObject({
        status: 502,
        code: 'UNEXPECTED_RESPONSE',
        message: 'HTTP 502 Bad Gateway: <h1>Bad gateway</h1>',
      });
      expect(await rejectionOf(c.getQueue(MAIN))).toMatchObject({ status: 200, code: 'UNEXPECTED_RESPONSE' });
    } finally {
      await new Promise((resolve) => server.close(resolve));
    }
  });

  it("aborting through the signal rejects with the signal's reason", async () => {
    const controller = new AbortController();
    const reason = new Error('stop now');
    controller.abort(reason);
    expect(await rejectionOf(client.getQueue(MAIN, { signal: controller.signal }))).toBe(reason);
  });
});

describe('GreenlineClient: requests', () => {
  it("sends the token and JSON to the endpoint's path, whatever the form of the base URL", async () => {
    const seen: { url: string; method: string; headers: Record<string, string>; body: unknown }[] = [];
    const recording: typeof fetch = async (input, init) => {
      seen.push({
        url: String(input),
        method: init!.method!,
        headers: init!.headers as Record<string, string>,
        body: init!.body,
      });
      return new Response('{}', { status: 200 });
    };
    for (const base of [
      'http://gl.example:8080',
      'http://gl.example:8080/',
      'http://gl.example:8080/v1',
      'http://gl.example:8080/v1/',
    ]) {
      await new GreenlineClient({ url: base, token: 'gl_x', fetch: recording }).cancelPullRequest({
        ...MAIN,
        pr: { number: 5 },
      });
    }
    expect(new Set(seen.map((s) => s.url))).toEqual(new Set(['http://gl.example:8080/v1/cancelPullRequest']));
    expect(seen[0]).toMatchObject({
      method: 'POST',
      headers: { 'x-api-token': 'gl_x', 'content-type': 'application/json' },
    });
    expect(JSON.parse(seen[0]!.body as string)).toEqual({ ...MAIN, pr: { number: 5 } });

    await new GreenlineClient({
      url: 'https://gl.example/prefix',
      token: 'gl_x',
      fetch: recording,
    }).getMergeQueueMetrics({ repo: 'acme/web', repoHost: 'github.com' });
    expect(seen.at(-1)).toMatchObject({
      url: 'https://gl.example/prefix/v1/getMergeQueueMetrics?repo=acme%2Fweb&repoHost=github.com',
      method: 'GET',
      body: undefined,
    });
    expect(seen.at(-1)!.headers).not.toHaveProperty('content-type');
  });

  it('refuses a URL that is not http(s)', () => {
    expect(() => new GreenlineClient({ url: 'localhost:8080' })).toThrow(/only http:\/\/ and https:\/\//);
    expect(() => new GreenlineClient({ url: 'not a url' })).toThrow(/Invalid greenline URL "not a url"/);
  });
});

describe('waitForPullRequest', () => {
  it('reports each state and resolves with the PR once it is terminal', async () => {
    await client.updateQueue({ ...MAIN, state: 'PAUSED' });
    await client.submitPullRequest({ ...MAIN, pr: { number: 3 } });
    const seen: string[] = [];
    const done = waitForPullRequest(
      client,
      { ...MAIN, pr: { number: 3 } },
      {
        intervalMs: 20,
        onChange: (pr) => {
          seen.push(pr.state);
          if (seen.length === 1) void client.cancelPullRequest({ ...MAIN, pr: { number: 3 } });
        },
      },
    );
    const final: SubmittedPullRequest = await done;
    expect(final.state).toBe('CANCELLED');
    expect(seen.length).toBe(2);
    expect(seen[0]).not.toBe('CANCELLED');
    expect(seen[1]).toBe('CANCELLED');
  });

  it('gives up with WaitTimeoutError carrying the last read', async () => {
    await client.submitPullRequest({ ...MAIN, pr: { number: 4 } });
    const err = await rejectionOf(
      waitForPullRequest(client, { ...MAIN, pr: { number: 4 } }, { intervalMs: 20, timeoutMs: 120 }),
    );
    expect(err).toBeInstanceOf(WaitTimeoutError);
    expect((err as WaitTimeoutError).last.prNumber).toBe(4);
    expect((err as WaitTimeoutError).message).toMatch(/^PR #4 is still \w+ after 0.12 s$/);
  });
});
