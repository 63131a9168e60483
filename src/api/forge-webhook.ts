/**
 * `POST <path>` of each forge that has a webhook (its definition's `webhook`: github's
 * `/webhooks/github`, gitea's `/webhooks/gitea`): outside /v1 (no x-api-token; the signature is the
 * authentication), the body read raw so that the forge verifies its signature on exactly the bytes
 * it signed before anything is parsed, both of the forges' content types (application/json, and
 * form-encoded `payload=…`), and the answer. An unsigned or tampered delivery is 401
 * WEBHOOK_SIGNATURE_INVALID and nothing is processed. A verified delivery is stored and answered at
 * once (forges fail a delivery not answered within a few seconds): `200 {"delivery", "event",
 * "result"}` with `result` `accepted` (processed in the background, app/observing/forge-webhooks.ts),
 * `duplicate` (seen before) or `ignored` (nothing greenline acts on, then with a `detail` saying why).
 */
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { DeliveryResult, WebhookDelivery } from '../app/observing/forge-webhooks.js';
import type { ForgeWebhook, WebhookRequest } from '../forge/definition.js';
import { ServiceError } from '../lib/errors.js';
import { RequestError } from './request-error.js';

/** A forge's webhook served: its definition, the secret it is verified with, and where deliveries go. */
export interface ForgeWebhookRoute {
  webhook: Pick<ForgeWebhook, 'path' | 'sender' | 'events' | 'read'>;
  /** The secret set on the forge's webhook (its setting). */
  secret: string;
  receive(delivery: WebhookDelivery): Promise<DeliveryResult>;
}

/** The request as a forge's webhook reads it: a header's value (the first, when repeated; undefined when absent or empty). */
const webhookRequest = (request: FastifyRequest, body: Buffer): WebhookRequest => ({
  body,
  header(name) {
    const v = request.headers[name];
    return (Array.isArray(v) ? v[0] : v) || undefined;
  },
});

export async function registerForgeWebhook(app: FastifyInstance, route: ForgeWebhookRoute): Promise<void> {
  const { webhook } = route;
  await app.register(async (scope) => {
    scope.removeAllContentTypeParsers();
    scope.addContentTypeParser('*', { parseAs: 'buffer' }, (_request, body, done) => done(null, body));
    scope.post(webhook.path, async (request, reply) => {
      const raw = Buffer.isBuffer(request.body) ? request.body : Buffer.alloc(0);
      const reading = await webhook.read(webhookRequest(request, raw), route.secret);
      if (!reading.ok) {
        if (reading.refused === 'signature') throw new RequestError('WEBHOOK_SIGNATURE_INVALID', reading.message);
        // A header the forge always sends is missing: the delivery is not one of the forge's.
        throw new ServiceError(
          'VALIDATION_FAILED',
          `a ${webhook.sender} delivery needs the ${reading.headers} headers`,
        );
      }
      const { id, event, json } = reading;
      let payload: unknown;
      try {
        payload = JSON.parse(json);
      } catch (err) {
        throw new RequestError('INVALID_JSON', (err as Error).message);
      }
      if (typeof payload !== 'object' || payload === null || Array.isArray(payload)) {
        throw new RequestError('INVALID_JSON', 'a webhook payload is a JSON object');
      }
      const result = await route.receive({ id, event, payload });
      const detail =
        result !== 'ignored'
          ? null
          : webhook.events.includes(event)
            ? `nothing in this ${event} event concerns greenline: it names no repository connected with this forge, or tells nothing a queue acts on`
            : `greenline does not read ${event} events of ${webhook.sender}; it reads ${webhook.events.join(', ')}: the webhook may leave the others out`;
      return reply.code(200).send({ delivery: id, event, result, ...(detail ? { detail } : {}) });
    });
  });
}
