/**
 * `POST /webhooks/gitlab`'s reading of a delivery: with a signing token, the Standard Webhooks
 * signature (made by the independent `standardwebhooks` package) must match the body and be recent;
 * with a secret token, `X-Gitlab-Token` must be it. Unsigned, tampered, stale or wrong deliveries are
 * refused, saying what to check; a good one is read with GitLab's delivery id and event.
 */
import { describe, expect, it } from 'vitest';
import type { WebhookRequest } from '../../../src/forge/definition.js';
import { gitlabWebhookOn } from '../../../src/forge/gitlab/webhook.js';
import { delivery } from './fake-gitlab-deliveries.js';

const SIGNING = `whsec_${Buffer.alloc(32, 9).toString('base64')}`;
const OTHER = `whsec_${Buffer.alloc(32, 8).toString('base64')}`;
const NOW = Date.now();
const webhook = gitlabWebhookOn(() => NOW);

const requestOf = (headers: Record<string, string>, body: string): WebhookRequest => ({
  header: (name) => headers[name.toLowerCase()] || undefined,
  body: Buffer.from(body),
});

describe('the gitlab webhook', () => {
  it('reads a delivery signed with its signing token: id from Idempotency-Key, event from X-Gitlab-Event', async () => {
    const d = delivery('https://gitlab.example.com', { url: '', signingToken: SIGNING }, 'Push Hook', { a: 1 });
    expect(await webhook.read(requestOf(d.headers, d.body), SIGNING)).toEqual({
      ok: true,
      id: d.headers['idempotency-key'],
      event: 'Push Hook',
      json: d.body,
    });
  });

  it('refuses an unsigned, tampered, foreign or stale delivery when it has a signing token', async () => {
    const d = delivery('https://gitlab.example.com', { url: '', signingToken: SIGNING }, 'Push Hook', { a: 1 });
    const refusal = async (headers: Record<string, string>, body = d.body) => {
      const r = await webhook.read(requestOf(headers, body), SIGNING);
      return r.ok ? 'read' : r.refused === 'signature' ? r.message : r.refused;
    };
    const { 'webhook-signature': _s, ...unsigned } = d.headers;
    expect(await refusal(unsigned)).toMatch(/^is missing: the webhook-id, webhook-timestamp and webhook-signature/);
    expect(await refusal(d.headers, d.body.replace('1', '2'))).toMatch(/^does not match the body/);
    const foreign = delivery('https://gitlab.example.com', { url: '', signingToken: OTHER }, 'Push Hook', { a: 1 });
    expect(await refusal(foreign.headers, foreign.body)).toMatch(/^does not match the body/);
    const stale = { ...d.headers, 'webhook-timestamp': String(Math.floor(NOW / 1000) - 600) };
    expect(await refusal(stale)).toMatch(/more than five minutes/);
    // A secret token alone does not stand in for the signature.
    const tokenOnly = delivery('https://gitlab.example.com', { url: '', token: SIGNING }, 'Push Hook', { a: 1 });
    expect(await refusal(tokenOnly.headers, tokenOnly.body)).toMatch(/^is missing/);
  });

  it('compares X-Gitlab-Token with a secret token, and needs the event and a delivery id', async () => {
    const d = delivery('https://gitlab.example.com', { url: '', token: 'tok' }, 'Note Hook', { a: 1 });
    expect(await webhook.read(requestOf(d.headers, d.body), 'tok')).toMatchObject({ ok: true, event: 'Note Hook' });
    expect(await webhook.read(requestOf(d.headers, d.body), 'tok2')).toMatchObject({
      ok: false,
      message: expect.stringMatching(/^does not match: the X-Gitlab-Token/),
    });
    const { 'x-gitlab-token': _t, ...without } = d.headers;
    expect(await webhook.read(requestOf(without, d.body), 'tok')).toMatchObject({
      ok: false,
      message: expect.stringMatching(/^is missing: the X-Gitlab-Token header/),
    });
    const { 'idempotency-key': _i, ...older } = d.headers;
    expect(await webhook.read(requestOf(older, d.body), 'tok')).toMatchObject({
      ok: true,
      id: d.headers['x-gitlab-event-uuid'],
    });
    const { 'x-gitlab-event': _e, ...noEvent } = d.headers;
    expect(await webhook.read(requestOf(noEvent, d.body), 'tok')).toMatchObject({ ok: false, refused: 'headers' });
  });
});
