/**
 * `POST /webhooks/gitea`: Gitea's and Forgejo's webhook deliveries (forge-webhook.ts: raw body,
 * answer). Both forges sign the payload JSON with HMAC-SHA256 keyed by the webhook's secret and send
 * the lowercase hex in `X-Gitea-Signature` (Forgejo also in `X-Forgejo-Signature`; both also as
 * `X-Hub-Signature-256: sha256=…`); a form-encoded delivery is signed over its `payload` JSON, not the
 * form. The signature is verified before anything is parsed; an unsigned (a webhook without a secret
 * sends an empty signature) or tampered delivery is 401 and nothing is processed. The event and the
 * delivery id are Forgejo's `X-Forgejo-Event`/`X-Forgejo-Delivery`, else Gitea's `X-Gitea-…`.
 */
import { createHmac, timingSafeEqual } from 'node:crypto';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { DeliveryResult, WebhookDelivery } from '../app/observing/forge-webhooks.js';
import { headerOf, jsonTextOf, missingHeaders, registerForgeWebhook } from './forge-webhook.js';
import { RequestError } from './request-error.js';

export interface GiteaWebhookReceiver {
  /** The secret set on the repository's (or organization's) webhook in Gitea or Forgejo. */
  secret: string;
  receive(delivery: WebhookDelivery): Promise<DeliveryResult>;
  /** The events the forge adapter reads (GITEA_WEBHOOK_EVENTS). */
  events: readonly string[];
}

/** The signature as hex: Forgejo's header, Gitea's, or the GitHub-style one both send; null when none has one. */
function signatureOf(request: FastifyRequest): string | null {
  const hub = headerOf(request, 'x-hub-signature-256');
  return (
    headerOf(request, 'x-forgejo-signature') ??
    headerOf(request, 'x-gitea-signature') ??
    (hub?.startsWith('sha256=') && hub.length > 'sha256='.length ? hub.slice('sha256='.length) : null)
  );
}

export async function registerGiteaWebhook(app: FastifyInstance, receiver: GiteaWebhookReceiver): Promise<void> {
  const key = Buffer.from(receiver.secret, 'utf8');
  await registerForgeWebhook(app, {
    path: '/webhooks/gitea',
    forgeName: 'Gitea',
    events: receiver.events,
    receive: receiver.receive,
    async read(request, raw) {
      const signature = signatureOf(request);
      if (!signature)
        throw new RequestError(
          'WEBHOOK_SIGNATURE_INVALID',
          "is missing: the X-Gitea-Signature (or X-Forgejo-Signature) header is required; set the webhook's secret in Gitea to the giteaWebhookSecret greenline is configured with",
        );
      const json = jsonTextOf(request, raw.toString('utf8'));
      const expected = createHmac('sha256', key).update(json, 'utf8').digest();
      const given = /^[0-9a-f]{64}$/i.test(signature) ? Buffer.from(signature, 'hex') : Buffer.alloc(0);
      if (given.length !== expected.length || !timingSafeEqual(given, expected))
        throw new RequestError(
          'WEBHOOK_SIGNATURE_INVALID',
          "does not match the body: check that the webhook's secret in Gitea is the giteaWebhookSecret greenline is configured with",
        );
      const event = headerOf(request, 'x-forgejo-event') ?? headerOf(request, 'x-gitea-event');
      const id = headerOf(request, 'x-forgejo-delivery') ?? headerOf(request, 'x-gitea-delivery');
      if (!event || !id) throw missingHeaders('Gitea', 'X-Gitea-Event and X-Gitea-Delivery (or X-Forgejo-…)');
      return { id, event, json };
    },
  });
}
