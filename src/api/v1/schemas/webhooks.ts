/** Schemas of the webhook extension endpoints (docs/webhooks.md). */
import { Type } from '@sinclair/typebox';
import { FILTERABLE_EVENT_TYPES } from '../../../webhooks/events.js';
import { DateTime, Name, Nullable, RequestObject } from './common.js';

const EventType = Type.Union(
  FILTERABLE_EVENT_TYPES.map((t) => Type.Literal(t)),
  {
    'x-expected': `one of ${FILTERABLE_EVENT_TYPES.join(', ')}`,
  },
);

const WebhookId = Name({ description: 'The subscription id (see listWebhooks)' });

export const CreateWebhookRequest = RequestObject({
  url: Type.String({
    minLength: 1,
    maxLength: 2048,
    description: 'Where to POST events: an absolute http:// or https:// URL',
  }),
  events: Type.Optional(
    Type.Array(EventType, {
      minItems: 1,
      uniqueItems: true,
      description: "Event types to send; absent = every one of Trunk's event types (queue.* only when named)",
    }),
  ),
});

export const WebhookRequest = RequestObject({ id: WebhookId });

export const Webhook = Type.Object({
  id: Type.String(),
  url: Type.String(),
  events: Nullable(Type.Array(Type.String(), { description: 'Event types sent; null = every event type' })),
  enabled: Type.Boolean({ description: 'false once the endpoint failed continuously for 5 days' }),
  disabledReason: Nullable(Type.String()),
  createdAt: DateTime('When the subscription was made'),
});

export const CreateWebhookResponse = Type.Object({
  ...Webhook.properties,
  secret: Type.String({
    description: 'The signing secret (whsec_…): shown only in this answer and by rotateWebhookSecret',
  }),
});

/** listWebhooks takes an empty object. */
export const ListWebhooksRequest = RequestObject({});

export const ListWebhooksResponse = Type.Object({ webhooks: Type.Array(Webhook) });

export const SecretResponse = Type.Object({
  id: Type.String(),
  secret: Type.String({ description: 'The new signing secret, shown only this once; the old one stops at once' }),
});

export const ListDeliveriesRequest = RequestObject({
  id: WebhookId,
  limit: Type.Optional(
    Type.Integer({ minimum: 1, maximum: 500, description: 'At most this many, newest first (default 50)' }),
  ),
});

const Attempt = Type.Object({
  at: DateTime('When the attempt was made'),
  durationMs: Type.Integer(),
  statusCode: Nullable(Type.Integer({ description: "The receiver's HTTP status; null when it did not answer" })),
  error: Nullable(Type.String({ description: 'Why the attempt failed; null on success' })),
  success: Type.Boolean(),
  manual: Type.Boolean({ description: 'A redelivery asked for through redeliverWebhook or the CLI' }),
});

export const Delivery = Type.Object({
  id: Type.String({ description: 'The message id, sent as webhook-id (and svix-id) on every attempt' }),
  eventType: Type.String(),
  status: Type.Union([Type.Literal('pending'), Type.Literal('delivered'), Type.Literal('failed')]),
  attempts: Type.Integer(),
  nextAttemptAt: Nullable(DateTime('When the next attempt is due (pending only)')),
  waiting: Nullable(
    Type.String({
      description:
        'Why a pending delivery has not gone out yet and when it will, in words (held behind an earlier event, the endpoint did not take it, the receiver refused it); null when not pending',
    }),
  ),
  lastStatusCode: Nullable(Type.Integer()),
  lastError: Nullable(Type.String()),
  createdAt: DateTime('When the event was queued for delivery'),
  deliveredAt: Nullable(DateTime('When a 2xx answer was received')),
  payload: Type.Unknown({ description: 'The JSON body sent' }),
  attemptLog: Type.Array(Attempt),
});

export const ListDeliveriesResponse = Type.Object({ deliveries: Type.Array(Delivery) });

export const RedeliverRequest = RequestObject({
  deliveryId: Name({ description: 'The delivery (message) id, as sent in webhook-id' }),
});
