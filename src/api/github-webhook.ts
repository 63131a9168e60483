/**
 * `POST /webhooks/github`: GitHub's webhook deliveries (outside /v1: no x-api-token; the signature is
 * the authentication). The body is read raw, and `X-Hub-Signature-256` is verified on exactly those
 * bytes before anything is parsed; an unsigned or tampered delivery is 401 and nothing is processed.
 * Both of GitHub's content types are accepted: application/json and form-encoded `payload=…`.
 * A verified delivery is stored and answered at once (GitHub fails a delivery not answered within
 * 10 s): `200 {"delivery", "event", "result"}` with `result` `accepted` (processed in the background,
 * app/forge/forge-webhooks.ts), `duplicate` (seen before) or `ignored` (nothing greenline acts on).
 */
import { verify } from '@octokit/webhooks-methods';
import type { FastifyInstance } from 'fastify';
import type { DeliveryResult, WebhookDelivery } from '../app/forge/forge-webhooks.js';
import { ServiceError } from '../errors.js';
import { RequestError } from './request-error.js';

export interface GitHubWebhookReceiver {
  /** The webhook secret set on the GitHub App (or repository webhook). */
  secret: string;
  receive(delivery: WebhookDelivery): Promise<DeliveryResult>;
}

const header = (v: string | string[] | undefined): string | undefined => (Array.isArray(v) ? v[0] : v);

export async function registerGitHubWebhook(app: FastifyInstance, receiver: GitHubWebhookReceiver): Promise<void> {
  await app.register(async (scope) => {
    scope.removeAllContentTypeParsers();
    scope.addContentTypeParser('*', { parseAs: 'buffer' }, (_request, body, done) => done(null, body));
    scope.post('/webhooks/github', async (request, reply) => {
      const raw = Buffer.isBuffer(request.body) ? request.body : Buffer.alloc(0);
      const signature = header(request.headers['x-hub-signature-256']);
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
      const event = header(request.headers['x-github-event']);
      const id = header(request.headers['x-github-delivery']);
      if (!event || !id)
        throw new ServiceError(
          'VALIDATION_FAILED',
          'a GitHub delivery needs the X-GitHub-Event and X-GitHub-Delivery headers',
        );
      const type = header(request.headers['content-type']) ?? '';
      let payload: unknown;
      try {
        const json = type.startsWith('application/x-www-form-urlencoded')
          ? (new URLSearchParams(text).get('payload') ?? '')
          : text;
        payload = JSON.parse(json);
      } catch (err) {
        throw new RequestError('INVALID_JSON', (err as Error).message);
      }
      if (typeof payload !== 'object' || payload === null || Array.isArray(payload)) {
        throw new RequestError('INVALID_JSON', 'a webhook payload is a JSON object');
      }
      const result = await receiver.receive({ id, event, payload });
      return reply.code(200).send({ delivery: id, event, result });
    });
  });
}
