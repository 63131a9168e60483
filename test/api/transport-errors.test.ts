/** Authentication, body parsing, routing and the error format, for every kind of bad request. */
import { Writable } from 'node:stream';
import pino from 'pino';
import { afterEach, describe, expect, it } from 'vitest';
import { buildHttpApp } from '../../src/api/build-app.js';
import type { MergeQueueService } from '../../src/app/service-port.js';
import { createTestService } from '../helpers/service.js';
import { findImpactedTargets } from '../../src/store/impacted-targets.js';
import { findRepo } from '../../src/store/repos.js';
import { createApiHarness, errorOf, json, REPO, SLUG, type ApiHarness } from './api-harness.js';

let h: ApiHarness | undefined;
afterEach(async () => {
  await h?.close();
  h = undefined;
});

describe('authentication', () => {
  it('answers 401 without a token, with an unknown token, and with an empty one', async () => {
    h = await createApiHarness();
    for (const token of [undefined, 'not-a-token', '']) {
      expect(errorOf(await h.post('/v1/getQueue', h.body(), { 'x-api-token': token }))).toEqual({
        status: 401,
        code: 'UNAUTHORIZED',
        message: 'Missing or invalid API token: send a valid token in the x-api-token header',
      });
    }
  });

  it('needs the token on the metrics endpoint too', async () => {
    h = await createApiHarness();
    expect(errorOf(await h.get('/v1/getMergeQueueMetrics', { 'x-api-token': undefined })).status).toBe(401);
  });

  it("takes impacted targets from a fork PR's CI on the word of its running workflow run (no token)", async () => {
    const api = (h = await createApiHarness());
    const sha = 'a'.repeat(40);
    const fork = { 'x-api-token': '', 'x-forked-workflow-run-id': '123456789' };
    const upload = (pr: Record<string, unknown>, headers: Record<string, string | undefined> = fork) =>
      api.post('/v1/setImpactedTargets', api.body({ pr, impactedTargets: ['web'] }), headers);
    // merge-action sends the PR number as a string and both headers, the token empty.
    expect(errorOf(await upload({ number: '7', sha }))).toEqual({
      status: 401,
      code: 'FORK_RUN_NOT_VERIFIED',
      message: 'The workflow run in x-forked-workflow-run-id does not vouch for this upload: no workflow run 123456789',
    });
    const runs = h.t.forge.state(SLUG).workflowRuns;
    runs.set('123456789', { headSha: sha, fromFork: true, running: true });
    expect((await upload({ number: '7', sha })).statusCode).toBe(200);
    expect(
      await findImpactedTargets(h.t.db, (await findRepo(h.t.db, REPO.host, REPO.owner, REPO.name))!.id, 7, sha),
    ).toEqual(['web']);
    expect(errorOf(await upload({ number: '7', sha: 'b'.repeat(40) })).message).toContain(
      `runs on ${sha}, not on ${'b'.repeat(40)}`,
    );
    runs.set('123456789', { headSha: sha, fromFork: true, running: false });
    expect(errorOf(await upload({ number: '7', sha })).message).toContain('has finished');
    // A run id authenticates nothing else, and a non-empty token wins over it.
    expect(errorOf(await h.post('/v1/getQueue', h.body(), fork))).toMatchObject({
      status: 401,
      code: 'FORK_UPLOAD_UNSUPPORTED',
    });
    expect((await upload({ number: 7, sha }, { 'x-forked-workflow-run-id': '123456789' })).statusCode).toBe(200);
    expect(
      errorOf(await upload({ number: 7, sha }, { 'x-api-token': 'gl_wrong', 'x-forked-workflow-run-id': '123456789' }))
        .code,
    ).toBe('UNAUTHORIZED');
  });

  it('checks the token before reading the body', async () => {
    h = await createApiHarness();
    expect(errorOf(await h.post('/v1/getQueue', '{not json', { 'x-api-token': undefined })).code).toBe('UNAUTHORIZED');
  });
});

describe('request bodies', () => {
  it('names the field that fails validation', async () => {
    h = await createApiHarness();
    const cases: [unknown, string][] = [
      [h.body({ pr: { number: 1.5 } }), 'body/pr/number must be a positive integer or a decimal string such as "123"'],
      [
        h.body({ pr: { number: '12a' } }),
        'body/pr/number must be a positive integer or a decimal string such as "123"',
      ],
      [
        h.body({ pr: { number: '99999999999' } }),
        'body/pr/number must be a positive integer or a decimal string such as "123"',
      ],
      [h.body({ pr: { number: '4294967296' } }), 'body/pr/number must be between 1 and 4294967295'],
      [h.body({ pr: { number: 0 } }), 'body/pr/number must be a positive integer or a decimal string such as "123"'],
      [h.body({ pr: {} }), 'body/pr/number is required'],
      [h.body(), 'body/pr is required'],
      [{ targetBranch: 'main', pr: { number: 1 } }, 'body/repo is required'],
      [h.body({ repo: { host: 'github.com', owner: 'acme' }, pr: { number: 1 } }), 'body/repo/name is required'],
      [h.body({ targetBranch: '', pr: { number: 1 } }), 'body/targetBranch must not be empty'],
      [h.body({ targetBranch: 5, pr: { number: 1 } }), 'body/targetBranch must be string'],
      [
        h.body({ targetBranch: 'main\n', pr: { number: 1 } }),
        'body/targetBranch must be a non-empty name without control characters',
      ],
      [
        h.body({ repo: { host: 'github.com', owner: 'ac\u0000me', name: 'web' }, pr: { number: 1 } }),
        'body/repo/owner must be a non-empty name without control characters',
      ],
      [h.body({ pr: { number: 1 }, noBatch: 'true' }), 'body/noBatch must be boolean'],
      [
        h.body({ pr: { number: 1 }, priority: 'asap' }),
        'body/priority must be an integer 0-255, a decimal string, one of urgent, high, medium, low, or null',
      ],
      [
        h.body({ pr: { number: 1 }, priority: 256 }),
        'body/priority must be an integer 0-255, a decimal string, one of urgent, high, medium, low, or null',
      ],
      [h.body({ pr: { number: 1 }, priority: '300' }), 'body/priority must be between 0 and 255'],
      [[1, 2], 'body must be object'],
      ['null', 'body must be object'],
    ];
    for (const [body, message] of cases) {
      const error = errorOf(await h.post('/v1/submitPullRequest', body));
      expect(error, JSON.stringify(body)).toEqual({
        status: 400,
        code: 'VALIDATION_FAILED',
        message: `Invalid request: ${message}`,
      });
    }
  });

  it('answers 400 INVALID_JSON for malformed, empty and prototype-poisoning JSON', async () => {
    h = await createApiHarness();
    expect(errorOf(await h.post('/v1/getQueue', '{"repo": '))).toMatchObject({ status: 400, code: 'INVALID_JSON' });
    expect(errorOf(await h.post('/v1/getQueue', '{"repo": '))).toMatchObject({
      message: expect.stringMatching(/^The request body is not valid JSON: .+/),
    });
    expect(errorOf(await h.post('/v1/getQueue', ''))).toEqual({
      status: 400,
      code: 'INVALID_JSON',
      message: 'The request body is not valid JSON: the body is empty',
    });
    expect(errorOf(await h.post('/v1/getQueue', '{"__proto__": {"admin": true}}')).message).toBe(
      'The request body is not valid JSON: a "__proto__" key is not allowed',
    );
    expect(errorOf(await h.post('/v1/getQueue', '{"a": [{"constructor": {"prototype": {}}}]}')).message).toBe(
      'The request body is not valid JSON: a "constructor.prototype" key is not allowed',
    );
    // The same keys spelled with JSON escapes.
    expect(errorOf(await h.post('/v1/getQueue', '{"\\u005f_proto__": {"admin": true}}')).message).toBe(
      'The request body is not valid JSON: a "__proto__" key is not allowed',
    );
    expect(errorOf(await h.post('/v1/getQueue', '{"a": {"constructo\\u0072": {"prototype": {}}}}')).message).toBe(
      'The request body is not valid JSON: a "constructor.prototype" key is not allowed',
    );
  });

  it('answers 4xx, not 5xx, for very deeply nested JSON', async () => {
    h = await createApiHarness();
    const depth = 200_000;
    expect(errorOf(await h.post('/v1/getQueue', '['.repeat(depth) + ']'.repeat(depth))).status).toBe(400);
    const deepExtra = `{"repo":{"host":"github.com","owner":"acme","name":"web"},"targetBranch":"main","x":${'{"a":'.repeat(depth)}1${'}'.repeat(depth)}}`;
    // A deeply nested field the body does not have is refused by name, without walking into it.
    expect(errorOf(await h.post('/v1/getQueue', deepExtra))).toEqual({
      status: 400,
      code: 'VALIDATION_FAILED',
      message: 'Invalid request: body/x is not a field of body; its fields are repo, targetBranch',
    });
  });

  it('accepts application/json with a charset and refuses other media types with 415', async () => {
    h = await createApiHarness();
    await h.post('/v1/createQueue', h.body());
    expect(
      (await h.post('/v1/getQueue', h.body(), { 'content-type': 'application/json; charset=utf-8' })).statusCode,
    ).toBe(200);
    expect(
      errorOf(await h.post('/v1/getQueue', 'repo=acme', { 'content-type': 'application/x-www-form-urlencoded' })),
    ).toEqual({ status: 415, code: 'UNSUPPORTED_MEDIA_TYPE', message: 'Send the request body as application/json' });
  });
});

describe('routing', () => {
  it('answers 404 ROUTE_NOT_FOUND for an unknown endpoint and 405 for a known one with the wrong method', async () => {
    h = await createApiHarness();
    expect(errorOf(await h.post('/v1/mergeEverything', {}))).toEqual({
      status: 404,
      code: 'ROUTE_NOT_FOUND',
      message: 'No endpoint POST /v1/mergeEverything; see GET /v1/openapi.json for the endpoints',
    });
    expect(errorOf(await h.get('/v1/getQueue'))).toEqual({
      status: 405,
      code: 'METHOD_NOT_ALLOWED',
      message: 'GET /v1/getQueue is not served; use POST',
    });
  });
});

describe('unexpected failures', () => {
  it('answers 500 INTERNAL without details, and logs the error once with one line per request', async () => {
    const t = await createTestService();
    const { token } = await t.createOrg('acme');
    const lines: Record<string, unknown>[] = [];
    const sink = new Writable({
      write(chunk, _enc, done) {
        lines.push(JSON.parse(String(chunk)));
        done();
      },
    });
    const failing = new Proxy(t.service, {
      get(target, name) {
        if (name === 'getQueue')
          return async () => {
            throw new Error('disk on fire');
          };
        const value = Reflect.get(target, name);
        return typeof value === 'function' ? value.bind(target) : value;
      },
    }) as MergeQueueService;
    const app = await buildHttpApp({ service: failing, logger: pino(sink), enumCase: 'upper' });
    try {
      const res = await app.inject({
        method: 'POST',
        url: '/v1/getQueue',
        headers: { 'x-api-token': token },
        payload: { repo: { host: 'github.com', owner: 'acme', name: 'web' }, targetBranch: 'main' },
      });
      expect(res.statusCode).toBe(500);
      expect(json(res)).toEqual({
        error: {
          code: 'INTERNAL',
          message: 'Internal error; the request was not applied. Details are in the server log',
        },
      });
      const errors = lines.filter((l) => l.level === 50);
      expect(errors).toHaveLength(1);
      expect(JSON.stringify(errors[0])).toContain('disk on fire');
      const requests = lines.filter((l) => l.msg === 'request');
      expect(requests).toEqual([expect.objectContaining({ method: 'POST', url: '/v1/getQueue', status: 500 })]);
      expect(JSON.stringify(lines)).not.toContain(token);
    } finally {
      await app.close();
      await t.close();
    }
  });
});
