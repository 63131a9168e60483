/** Schemas of the chat notification extension endpoints (docs/notifications.md). */
import { Type } from '@sinclair/typebox';
import { NOTIFY_EVENTS, NOTIFY_KINDS } from '../../../notify/events.js';
import { DateTime, Name, Nullable, RequestObject } from './common.js';

const NotifyEvent = Type.Union(
  NOTIFY_EVENTS.map((t) => Type.Literal(t)),
  { 'x-expected': `one of ${NOTIFY_EVENTS.join(', ')}` },
);

const Kind = Type.Union(
  NOTIFY_KINDS.map((k) => Type.Literal(k)),
  { 'x-expected': `one of ${NOTIFY_KINDS.join(', ')}` },
);

const ChannelId = Name({ description: 'The channel id (see listNotificationChannels)' });

export const CreateChannelRequest = RequestObject({
  kind: Kind,
  url: Type.String({
    minLength: 1,
    maxLength: 2048,
    description: 'The Slack incoming-webhook, Teams workflow or chat webhook URL: absolute http:// or https://',
  }),
  repo: Type.Optional(
    Type.String({
      minLength: 1,
      maxLength: 300,
      description: "Only this repository's queue, HOST/OWNER/NAME (with branch)",
    }),
  ),
  branch: Type.Optional(
    Type.String({ minLength: 1, maxLength: 255, description: 'Only the queue of this branch (with repo)' }),
  ),
  events: Type.Optional(
    Type.Array(NotifyEvent, {
      minItems: 1,
      uniqueItems: true,
      description: 'Events to send; absent = failed, cancelled and the queue state changes',
    }),
  ),
});

export const ChannelRequest = RequestObject({ id: ChannelId });

export const ListChannelsRequest = RequestObject({});

export const Channel = Type.Object({
  id: Type.String(),
  kind: Type.String(),
  url: Type.String(),
  queue: Nullable(
    Type.Object(
      { repo: Type.String(), branch: Type.String() },
      { description: 'The one queue it covers; null = every queue of the organization' },
    ),
  ),
  events: Type.Array(Type.String()),
  enabled: Type.Boolean({ description: 'false once the channel failed continuously for 3 days' }),
  disabledReason: Nullable(Type.String()),
  failingSince: Nullable(DateTime('When its current run of failed attempts began; null after a success')),
  lastMessage: Nullable(
    Type.Object({
      event: Type.String(),
      status: Type.Union([Type.Literal('pending'), Type.Literal('delivered'), Type.Literal('failed')]),
      attempts: Type.Integer(),
      lastError: Nullable(Type.String({ description: 'Why the latest attempt failed; null on success' })),
      createdAt: DateTime('When the message was queued'),
    }),
  ),
  createdAt: DateTime('When the channel was added'),
});

export const ListChannelsResponse = Type.Object({ channels: Type.Array(Channel) });

export const TestChannelResponse = Type.Object({
  ok: Type.Boolean(),
  statusCode: Nullable(Type.Integer({ description: "The chat's HTTP status; null when it did not answer" })),
  error: Nullable(Type.String({ description: 'Why the test message failed; null when it was accepted' })),
});
