/**
 * A delivery outbox is three tables: subscriptions (where messages go, and whether they still may),
 * messages (the outbox itself) and attempts (every try at sending one). The webhooks and the chat
 * notifications each have their own three, of the same shape; every query of src/delivery/ is given
 * the set it works on, by name.
 */
import type { Database, DeliveryAttemptsTable, DeliveryMessagesTable } from '../store/database.js';

/** The columns of a subscription that delivery reads and writes: where to send, and its run of failures. */
export interface DeliverySubscriptionColumns {
  id: string;
  url: string;
  /** 1 = messages are sent; 0 = disabled (see disabled_reason). */
  enabled: number;
  disabled_reason: string | null;
  /** When the current run of failed attempts began; null after a success. */
  failing_since: number | null;
  updated_at: number;
}

/** The names of the tables of `Database` whose rows have the shape T. */
type TablesShaped<T> = { [K in keyof Database]: Database[K] extends T ? K : never }[keyof Database];

/** The tables of one outbox. */
export interface OutboxTables {
  readonly subscriptions: TablesShaped<DeliverySubscriptionColumns>;
  readonly messages: TablesShaped<DeliveryMessagesTable>;
  readonly attempts: TablesShaped<DeliveryAttemptsTable>;
}
