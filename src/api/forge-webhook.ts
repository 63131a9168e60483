/**
 * What the forges' webhook endpoints (github-webhook.ts, gitea-webhook.ts) share: outside /v1 (no
 * x-api-token; the signature is the authentication), the body read raw so that the signature is
 * verified on exactly the bytes the forge signed before anything is parsed, both of the forges'
 * content types (application/json, and form-encoded `payload=…`), and the answer. A verified delivery
 * is stored and answered at once (forges fail a delivery not answered within a few seconds):
 * `200 {"delivery", "event", "result"}` with `result` `accepted` (processed in the background,
 * app/observing/forge-webhooks.ts), `duplicate` (seen before) or `ignored` (nothing greenline acts on, then
 * with a `detail` saying why).
 */
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { DeliveryResult, WebhookDelivery } from '../app/observing/forge-webhooks.js';
import { ServiceError } from '../lib/errors.js';
import { RequestError } from './request-error.js';

/** A header's value (the first, when repeated); undefined when absent or empty. */
export const headerOf = (request: FastifyRequest, name: string): string | undefined => {
  const v = request.headers[name];
  return (Array.isArray(v) ? v[0] : v) || undefined;
};

/** The JSON text of a body: itself, or its `payload` field when the forge posts it form-encoded. */
export function jsonTextOf(request: FastifyRequest, text: string): string {
  const type = headerOf(request, 'content-type') ?? '';
  return type.startsWith('application/x-www-form-urlencoded') ? (new URLSearchParams(text).get('payload') ?? '') : text;
}

export interface ForgeWebhookRoute {
  /** The endpoint, e.g. `/webhooks/github`. */
  path: string;
  /** The forge as its deliveries' senders know it, for the answers: GitHub, Gitea or Forgejo. */
  forgeName: string;
  /** The events greenline reads from this forge (X-…-Event): another is answered `ignored`, saying so. */
  events: readonly string[];
  /**
   * Verifies the delivery's signature over the raw body and reads its id, event and JSON text (the
   * body itself, or the `payload` of a form); throws a RequestError (401 WEBHOOK_SIGNATURE_INVALID)
   * when it is unsigned or tampered with, a ServiceError when a header the forge always sends is missing.
   */
  read(request: FastifyRequest, raw: Buffer): Promise<{ id: string; event: string; json: string }>;
  receive(delivery: WebhookDelivery): Promise<DeliveryResult>;
}

export async function registerForgeWebhook(app: FastifyInstance, route: ForgeWebhookRoute): Promise<void> {
  await app.register(async (scope) => {
    scope.removeAllContentTypeParsers();
    scope.addContentTypeParser('*', { parseAs: 'buffer' }, (_request, body, done) => done(null, body));
    scope.post(route.path, async (request, reply) => {
      const raw = Buffer.isBuffer(request.body) ? request.body : Buffer.alloc(0);
      const { id, event, json } = await route.read(request, raw);
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
          : route.events.includes(event)
            ? `nothing in this ${event} event concerns greenline: it names no repository connected with this forge, or tells nothing a queue acts on`
            : `greenline does not read ${event} events of ${route.forgeName}; it reads ${route.events.join(', ')}: the webhook may leave the others out`;
      return reply.code(200).send({ delivery: id, event, result, ...(detail ? { detail } : {}) });
    });
  });
}

/** A missing header the forge always sends: the delivery is not one of the forge's. */
export const missingHeaders = (forgeName: string, headers: string): ServiceError =>
  new ServiceError('VALIDATION_FAILED', `a ${forgeName} delivery needs the ${headers} headers`);
