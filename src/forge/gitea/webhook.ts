/**
 * `POST /webhooks/gitea`: Gitea's and Forgejo's webhook deliveries. Both forges sign the payload JSON
 * with HMAC-SHA256 keyed by the webhook's secret and send the lowercase hex in `X-Gitea-Signature`
 * (Forgejo also in `X-Forgejo-Signature`; both also as `X-Hub-Signature-256: sha256=…`); a
 * form-encoded delivery is signed over its `payload` JSON, not the form. The signature is verified
 * before anything is parsed; an unsigned (a webhook without a secret sends an empty signature) or
 * tampered delivery is refused (401) and nothing is processed. The event and the delivery id are
 * Forgejo's `X-Forgejo-Event`/`X-Forgejo-Delivery`, else Gitea's `X-Gitea-…`. The route itself, its
 * raw body and its answer are api/forge-webhook.ts's.
 */
import { createHmac, timingSafeEqual } from 'node:crypto';
import { type ForgeWebhook, jsonTextOf, type WebhookRequest } from '../definition.js';
import type { GITEA_SETTINGS } from './settings.js';
import { GITEA_WEBHOOK_EVENTS, readGiteaDelivery } from './webhook-events.js';

/** The signature as hex: Forgejo's header, Gitea's, or the GitHub-style one both send; null when none has one. */
function signatureOf(request: WebhookRequest): string | null {
  const hub = request.header('x-hub-signature-256');
  return (
    request.header('x-forgejo-signature') ??
    request.header('x-gitea-signature') ??
    (hub?.startsWith('sha256=') && hub.length > 'sha256='.length ? hub.slice('sha256='.length) : null)
  );
}

export const giteaWebhook: ForgeWebhook<typeof GITEA_SETTINGS> = {
  path: '/webhooks/gitea',
  sender: 'Gitea',
  events: GITEA_WEBHOOK_EVENTS,
  secretOf: (s) => s.giteaWebhookSecret,
  withoutSecret:
    'the gitea forge is configured without giteaWebhookSecret: changes on Gitea are read by polling alone, and comment commands are not received',
  translate: readGiteaDelivery,
  async read(request, secret) {
    const signature = signatureOf(request);
    if (!signature)
      return {
        ok: false,
        refused: 'signature',
        message:
          "is missing: the X-Gitea-Signature (or X-Forgejo-Signature) header is required; set the webhook's secret in Gitea to the giteaWebhookSecret greenline is configured with",
      };
    const json = jsonTextOf(request, request.body.toString('utf8'));
    const expected = createHmac('sha256', Buffer.from(secret, 'utf8')).update(json, 'utf8').digest();
    const given = /^[0-9a-f]{64}$/i.test(signature) ? Buffer.from(signature, 'hex') : Buffer.alloc(0);
    if (given.length !== expected.length || !timingSafeEqual(given, expected))
      return {
        ok: false,
        refused: 'signature',
        message:
          "does not match the body: check that the webhook's secret in Gitea is the giteaWebhookSecret greenline is configured with",
      };
    const event = request.header('x-forgejo-event') ?? request.header('x-gitea-event');
    const id = request.header('x-forgejo-delivery') ?? request.header('x-gitea-delivery');
    if (!event || !id)
      return { ok: false, refused: 'headers', headers: 'X-Gitea-Event and X-Gitea-Delivery (or X-Forgejo-…)' };
    return { ok: true, id, event, json };
  },
};
