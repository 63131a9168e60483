/**
 * `POST /webhooks/github`: GitHub's webhook deliveries (forge-webhook.ts: raw body, answer).
 * `X-Hub-Signature-256` is verified on exactly the bytes received (a form-encoded body included)
 * before anything is parsed; an unsigned or tampered delivery is 401 and nothing is processed.
 */
import { verify } from '@octokit/webhooks-methods';
import type { FastifyInstance } from 'fastify';
import type { DeliveryResult, WebhookDelivery } from '../app/observing/forge-webhooks.js';
import { headerOf, jsonTextOf, missingHeaders, registerForgeWebhook } from './forge-webhook.js';
import { RequestError } from './request-error.js';

export interface GitHubWebhookReceiver {
  /** The webhook secret set on the GitHub App (or repository webhook). */
  secret: string;
  receive(delivery: WebhookDelivery): Promise<DeliveryResult>;
  /** The events the forge adapter reads (GITHUB_WEBHOOK_EVENTS). */
  events: readonly string[];
}

export async function registerGitHubWebhook(app: FastifyInstance, receiver: GitHubWebhookReceiver): Promise<void> {
  await registerForgeWebhook(app, {
    path: '/webhooks/github',
    forgeName: 'GitHub',
    events: receiver.events,
    receive: receiver.receive,
    async read(request, raw) {
      const signature = headerOf(request, 'x-hub-signature-256');
      if (!signature)
        throw new RequestError('WEBHOOK_SIGNATURE_INVALID', 'is missing: the X-Hub-Signature-256 header is required');
      const text = raw.toString('utf8');
      let valid = false;
      try {
        valid = await verify(receiver.secret, text, signature);
      } catch {
        valid = false;
      }
      if (!valid)
        throw new RequestError(
          'WEBHOOK_SIGNATURE_INVALID',
          'does not match the body: check that the webhook secret is the one greenline is configured with',
        );
      const event = headerOf(request, 'x-github-event');
      const id = headerOf(request, 'x-github-delivery');
      if (!event || !id) throw missingHeaders('GitHub', 'X-GitHub-Event and X-GitHub-Delivery');
      return { id, event, json: jsonTextOf(request, text) };
    },
  });
}
