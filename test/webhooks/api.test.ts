/** The webhook endpoints under /v1: subscribe, list, remove, rotate, enable, deliveries, redeliver; errors. */
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { createApiHarness, errorOf, json, type ApiHarness } from '../api/api-harness.js';
import { Receiver } from './receiver.js';

let h: ApiHarness;
let other: string;
beforeAll(async () => {
  h = await createApiHarness();
  other = (await h.t.createOrg('beta')).token;
});
afterAll(() => h.close());

const create = async (body: unknown) => h.post('/v1/createWebhook', body);
const ids: string[] = [];
afterEach(async () => {
  for (const id of ids.splice(0)) await h.post('/v1/deleteWebhook', { id });
});

describe('POST /v1/createWebhook and listWebhooks', () => {
  it('subscribes a URL and shows the secret only in the answer', async () => {
    const res = await create({
      url: 'http://127.0.0.1:9/hooks',
      events: ['pull_request.merged', 'pull_request_batch.merged'],
    });
    expect(res.statusCode).toBe(200);
    const created = json(res);
    ids.push(created.id);
    expect(created).toEqual({
      id: expect.any(String),
      url: 'http://127.0.0.1:9/hooks',
      events: ['pull_request.merged', 'pull_request_batch.merged'],
      enabled: true,
      disabledReason: null,
      createdAt: expect.stringMatching(/Z$/),
      secret: expect.stringMatching(/^whsec_[A-Za-z0-9+/]{32}$/),
    });
    const list = json(await h.post('/v1/listWebhooks', {}));
    expect(list.webhooks).toEqual([{ ...created, secret: undefined }].map(({ secret: _s, ...w }) => w));
    expect(JSON.stringify(list)).not.toContain(created.secret);
    // Another organization sees none of them.
    expect(json(await h.post('/v1/listWebhooks', {}, { 'x-api-token': other })).webhooks).toEqual([]);
  });

  it.each([
    [{ url: 'not a url' }, 'WEBHOOK_URL_REJECTED', /"not a url" is not a valid URL/],
    [{ url: 'ftp://example.com/x' }, 'WEBHOOK_URL_REJECTED', /must use http or https, not ftp/],
    [
      { url: 'http://169.254.169.254/latest/meta-data' },
      'WEBHOOK_URL_REJECTED',
      /169\.254\.169\.254 is a link-local or cloud metadata address/,
    ],
    [{ url: 'http://169.254.10.1/' }, 'WEBHOOK_URL_REJECTED', /link-local/],
    [{ url: 'http://[fe80::1]/' }, 'WEBHOOK_URL_REJECTED', /fe80::1 is a link-local/],
    [{ url: 'http://[fd00:ec2::254]/' }, 'WEBHOOK_URL_REJECTED', /cloud metadata/],
    [{ url: 'http://[::ffff:169.254.169.254]/' }, 'WEBHOOK_URL_REJECTED', /link-local or cloud metadata/],
    [
      { url: 'http://Metadata.Google.Internal./computeMetadata' },
      'WEBHOOK_URL_REJECTED',
      /metadata\.google\.internal is a cloud metadata endpoint/,
    ],
    [{ url: 'http://2852039166/' }, 'WEBHOOK_URL_REJECTED', /169\.254\.169\.254/],
    [{ url: 'http://127.0.0.1/', events: ['pull_request.exploded'] }, 'VALIDATION_FAILED', /body\/events\/0/],
    [{ url: 'http://127.0.0.1/', events: [] }, 'VALIDATION_FAILED', /body\/events/],
    [{}, 'VALIDATION_FAILED', /url/],
  ])('refuses %j with 400 naming the problem', async (body, code, message) => {
    const err = errorOf(await create(body));
    expect(err).toMatchObject({ status: 400, code });
    expect(err.message).toMatch(message);
  });
});

describe('subscriptions of another organization', () => {
  it('look like they do not exist (404) to every endpoint', async () => {
    const { id } = json(await create({ url: 'http://127.0.0.1:9/' }));
    ids.push(id);
    for (const path of [
      '/v1/deleteWebhook',
      '/v1/rotateWebhookSecret',
      '/v1/enableWebhook',
      '/v1/listWebhookDeliveries',
    ]) {
      const err = errorOf(await h.post(path, { id }, { 'x-api-token': other }));
      expect(err, path).toMatchObject({ status: 404, code: 'WEBHOOK_NOT_FOUND' });
    }
    expect(json(await h.post('/v1/listWebhooks', {})).webhooks.map((w: { id: string }) => w.id)).toEqual([id]);
  });

  it('an unknown id is 404; without a token 401', async () => {
    expect(errorOf(await h.post('/v1/deleteWebhook', { id: 'nope' }))).toMatchObject({
      status: 404,
      code: 'WEBHOOK_NOT_FOUND',
    });
    expect(errorOf(await h.post('/v1/redeliverWebhook', { deliveryId: 'msg_nope' }))).toMatchObject({
      status: 404,
      code: 'WEBHOOK_DELIVERY_NOT_FOUND',
    });
    expect(errorOf(await h.post('/v1/listWebhooks', {}, { 'x-api-token': undefined }))).toMatchObject({ status: 401 });
  });
});

describe('rotate, delete, deliveries, redeliver', () => {
  it('rotates the secret, lists deliveries with attempts, redelivers, and deletes', async () => {
    const receiver = await new Receiver().start();
    receiver.now = () => h.t.clock.now();
    try {
      const { id, secret } = json(await create({ url: receiver.url, events: ['pull_request.submitted'] }));
      const rotated = json(await h.post('/v1/rotateWebhookSecret', { id }));
      expect(rotated).toEqual({ id, secret: expect.stringMatching(/^whsec_/) });
      expect(rotated.secret).not.toBe(secret);
      receiver.secret = rotated.secret;

      await h.queueWithPrs(1);
      expect((await h.post('/v1/submitPullRequest', h.body({ pr: { number: 1 } }))).statusCode).toBe(200);
      await h.t.runEffects();
      await h.t.app.webhooks.drain();
      expect(receiver.rejected).toEqual([]);
      expect(receiver.delivered().map((r) => r.body.type)).toEqual(['pull_request.submitted']);

      const { deliveries } = json(await h.post('/v1/listWebhookDeliveries', { id }));
      expect(deliveries).toEqual([
        {
          id: receiver.delivered()[0]!.id,
          eventType: 'pull_request.submitted',
          status: 'delivered',
          attempts: 1,
          nextAttemptAt: null,
          waiting: null,
          lastStatusCode: 204,
          lastError: null,
          createdAt: expect.any(String),
          deliveredAt: expect.any(String),
          payload: receiver.delivered()[0]!.body,
          attemptLog: [
            {
              at: expect.any(String),
              durationMs: expect.any(Number),
              statusCode: 204,
              error: null,
              success: true,
              manual: false,
            },
          ],
        },
      ]);
      expect(
        errorOf(await h.post('/v1/redeliverWebhook', { deliveryId: deliveries[0].id }, { 'x-api-token': other })),
      ).toMatchObject({ status: 404, code: 'WEBHOOK_DELIVERY_NOT_FOUND' });
      expect((await h.post('/v1/redeliverWebhook', { deliveryId: deliveries[0].id })).statusCode).toBe(200);
      await h.t.app.webhooks.drain();
      expect(receiver.delivered().map((r) => r.id)).toEqual([deliveries[0].id, deliveries[0].id]);
      expect(receiver.delivered()[1]!.raw).toBe(receiver.delivered()[0]!.raw);
      const after = json(await h.post('/v1/listWebhookDeliveries', { id, limit: 10 })).deliveries[0];
      expect(after.attemptLog.map((a: { manual: boolean }) => a.manual)).toEqual([false, true]);

      expect((await h.post('/v1/deleteWebhook', { id })).statusCode).toBe(200);
      expect(errorOf(await h.post('/v1/listWebhookDeliveries', { id }))).toMatchObject({
        status: 404,
        code: 'WEBHOOK_NOT_FOUND',
      });
    } finally {
      await receiver.close();
    }
  });
});
