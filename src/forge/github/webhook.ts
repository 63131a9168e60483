/**
 * `POST /webhooks/github`: GitHub's webhook deliveries. `X-Hub-Signature-256` is verified on exactly
 * the bytes received (a form-encoded body included) before anything is parsed; an unsigned or
 * tampered delivery is refused (401) and nothing is processed. The route itself, its raw body and
 * its answer are api/forge-webhook.ts's.
 */
import { verify } from '@octokit/webhooks-methods';
import { type ForgeWebhook, jsonTextOf } from '../definition.js';
import { GITHUB_WEBHOOK_EVENTS, readGitHubDelivery } from './observations.js';
import type { GITHUB_SETTINGS } from './settings.js';

export const githubWebhook: ForgeWebhook<typeof GITHUB_SETTINGS> = {
  path: '/webhooks/github',
  sender: 'GitHub',
  events: GITHUB_WEBHOOK_EVENTS,
  secretOf: (s) => s.githubWebhookSecret,
  withoutSecret:
    'the github forge is configured without githubWebhookSecret: CI results of GitHub checks, comments and labels are not received',
  translate: readGitHubDelivery,
  async read(request, secret) {
    const signature = request.header('x-hub-signature-256');
    if (!signature)
      return { ok: false, refused: 'signature', message: 'is missing: the X-Hub-Signature-256 header is required' };
    const text = request.body.toString('utf8');
    let valid = false;
    try {
      valid = await verify(secret, text, signature);
    } catch {
      valid = false;
    }
    if (!valid)
      return {
        ok: false,
        refused: 'signature',
        message: 'does not match the body: check that the webhook secret is the one greenline is configured with',
      };
    const event = request.header('x-github-event');
    const id = request.header('x-github-delivery');
    if (!event || !id) return { ok: false, refused: 'headers', headers: 'X-GitHub-Event and X-GitHub-Delivery' };
    return { ok: true, id, event, json: jsonTextOf(request, text) };
  },
};
