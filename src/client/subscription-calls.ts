/**
 * The calls of the organization's subscriptions to its queue events: webhooks (docs/webhooks.md) and
 * chat notification channels (docs/notifications.md).
 */
import { QueueCalls } from './queue-calls.js';
import type { CallOptions } from './transport.js';
import type {
  CreateNotificationChannelRequest,
  CreateWebhookRequest,
  CreateWebhookResponse,
  EmptyResponse,
  ListNotificationChannelsResponse,
  ListWebhookDeliveriesRequest,
  ListWebhookDeliveriesResponse,
  ListWebhooksResponse,
  NotificationChannel,
  NotificationChannelRequest,
  RedeliverWebhookRequest,
  RotateWebhookSecretResponse,
  TestNotificationChannelResponse,
  WebhookRequest,
} from './types.js';

export class SubscriptionCalls extends QueueCalls {
  /** Subscribes a URL to the organization's queue events; the answer holds the secret, shown only this once. */
  createWebhook(body: CreateWebhookRequest, options?: CallOptions): Promise<CreateWebhookResponse> {
    return this.json('createWebhook', body, options);
  }

  /** The organization's subscriptions, without secrets. */
  listWebhooks(options?: CallOptions): Promise<ListWebhooksResponse> {
    return this.json('listWebhooks', {}, options);
  }

  deleteWebhook(body: WebhookRequest, options?: CallOptions): Promise<EmptyResponse> {
    return this.json('deleteWebhook', body, options);
  }

  /** A new signing secret, shown only this once; the old one stops working at once. */
  rotateWebhookSecret(body: WebhookRequest, options?: CallOptions): Promise<RotateWebhookSecretResponse> {
    return this.json('rotateWebhookSecret', body, options);
  }

  /** Enables a subscription disabled after 5 days of failures. */
  enableWebhook(body: WebhookRequest, options?: CallOptions): Promise<EmptyResponse> {
    return this.json('enableWebhook', body, options);
  }

  /** A subscription's latest deliveries, newest first, with every attempt. */
  listWebhookDeliveries(
    body: ListWebhookDeliveriesRequest,
    options?: CallOptions,
  ): Promise<ListWebhookDeliveriesResponse> {
    return this.json('listWebhookDeliveries', body, options);
  }

  /** Sends a delivery again with the same webhook-id and body. */
  redeliverWebhook(body: RedeliverWebhookRequest, options?: CallOptions): Promise<EmptyResponse> {
    return this.json('redeliverWebhook', body, options);
  }

  /** Sends the organization's queue events, in words, to a Slack, Teams or chat webhook. */
  createNotificationChannel(
    body: CreateNotificationChannelRequest,
    options?: CallOptions,
  ): Promise<NotificationChannel> {
    return this.json('createNotificationChannel', body, options);
  }

  /** The organization's channels, each with how its latest message went. */
  listNotificationChannels(options?: CallOptions): Promise<ListNotificationChannelsResponse> {
    return this.json('listNotificationChannels', {}, options);
  }

  deleteNotificationChannel(body: NotificationChannelRequest, options?: CallOptions): Promise<EmptyResponse> {
    return this.json('deleteNotificationChannel', body, options);
  }

  /** Enables a channel disabled after 3 days of failures. */
  enableNotificationChannel(body: NotificationChannelRequest, options?: CallOptions): Promise<EmptyResponse> {
    return this.json('enableNotificationChannel', body, options);
  }

  /** Sends a test message now; answers whether the chat accepted it. */
  testNotificationChannel(
    body: NotificationChannelRequest,
    options?: CallOptions,
  ): Promise<TestNotificationChannelResponse> {
    return this.json('testNotificationChannel', body, options);
  }
}
