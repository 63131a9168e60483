/**
 * The store's tables as Kysely types. Portable across SQLite and PostgreSQL: text, integer/bigint
 * (times are milliseconds since the epoch), booleans as integer 0/1, JSON as text.
 */
import type { RepoBinding } from '../forge/port.js';
import type { ColumnType, Generated, Insertable, Selectable } from 'kysely';

/** An auto-increment id: generated on insert, a number when read. */
type AutoId = Generated<number>;

/** The forge a repository is connected with (RepoBinding['forge']). */
export type RepoForge = RepoBinding['forge'];

export interface OrgsTable {
  id: string;
  name: string;
  created_at: number;
}

export interface ApiTokensTable {
  id: string;
  org_id: string;
  name: string;
  /** SHA-256 hex of the token; the token itself is never stored. */
  token_hash: string;
  created_at: number;
  revoked_at: number | null;
  /** JSON list of the token's scopes (app/scopes.ts); null: every scope. */
  scopes: string | null;
  /** JSON list of the repositories (`host/owner/name`) the token is limited to; null: all of its org's. */
  repos: string | null;
  /** When the token stops being valid (ms); null: never. */
  expires_at: number | null;
  /** When the token was last used (ms, to the minute); null: never. */
  last_used_at: number | null;
}

export interface ReposTable {
  id: string;
  org_id: string;
  host: string;
  owner: string;
  name: string;
  forge: RepoForge;
  remote: string | null;
  pr_ref_pattern: string;
  ci_command: string | null;
  test_branch_prefix: string;
  /** JSON string[]: the checks a test run needs when the queue has no override; null = none known. */
  required_statuses: string | null;
  created_at: number;
  /** GitHub App installation given at connect time (github forge); null or absent = looked up. */
  github_installation_id: ColumnType<number | null, number | null | undefined, number | null>;
  /** Where a PR is shown on its forge, `{n}` = PR number (migration 010); null = the forge's own form (src/forge/links.ts). */
  pr_url_template: ColumnType<string | null, string | null | undefined, string | null>;
}

export interface QueuesTable {
  id: string;
  repo_id: string;
  target_branch: string;
  state: string;
  /** JSON QueueConfig. */
  config: string;
  target_sha: string | null;
  /** JSON of the engine's bookkeeping (QueueSnapshot.internal). */
  internal: string;
  /** Incremented by every write: lets a cached snapshot know it is still current. */
  version: number;
  created_at: number;
  updated_at: number;
  /**
   * 'terraform' once a config write came from Terraform or OpenTofu (migration 007); null: not managed.
   * Both columns may be left out when inserting a queue (null then).
   */
  managed_by: ColumnType<'terraform' | null, 'terraform' | null | undefined, 'terraform' | null>;
  /** When a config write from outside Terraform first followed the last Terraform write; null: no drift. */
  drift_since: ColumnType<number | null, number | null | undefined, number | null>;
}

export interface EntriesTable {
  queue_id: string;
  pr_number: number;
  id: string;
  trip: number;
  state: string;
  head_sha: string;
  submitted_at: number;
  state_changed_at: number;
  /** The PR's head branch when the forge reported one (migration 006). */
  head_branch: string | null;
  /** The PR's title and author (migration 012). */
  title: string;
  author: string;
  /** JSON Entry (the whole entry, timeline included); the columns above are copies for queries. */
  data: string;
}

export interface TestRunsTable {
  id: string;
  queue_id: string;
  status: string;
  test_sha: string | null;
  created_at: number;
  /** JSON TestRun. */
  data: string;
  /** JSON string[] resolved when CI starts; null until then. */
  required_statuses: string | null;
  required_statuses_source: string | null;
  /** Instance id whose built-in CI runs the run's command; null for external CI or before CI starts. */
  ci_instance: Generated<string | null>;
}

export interface CiStatusesTable {
  run_id: string;
  context: string;
  state: string;
  url: string | null;
  description: string | null;
  updated_at: number;
}

export interface ImpactedTargetsTable {
  repo_id: string;
  pr_number: number;
  head_sha: string;
  /** JSON string[] or the JSON string "ALL". */
  targets: string;
  updated_at: number;
}

export type EffectStatus = 'pending' | 'done' | 'failed';

export interface EffectsTable {
  id: AutoId;
  queue_id: string;
  key: string;
  kind: string;
  /** JSON Effect. */
  payload: string;
  status: EffectStatus;
  attempts: number;
  /** Due time; a claimed row is pushed forward by its lease so that a crashed runner's work comes back. */
  run_at: number;
  last_error: string | null;
  created_at: number;
  updated_at: number;
  /** Instance id of the runner that claimed the row while it is being executed; null otherwise. */
  claimed_by: Generated<string | null>;
  /** The chain the effect keeps its place in (store/effects.ts: `run:<id>`, `events`); null for none. */
  order_key: string | null;
}

export interface QueueEventsTable {
  id: AutoId;
  queue_id: string;
  key: string;
  type: string;
  /** JSON QueueEventPayload. */
  payload: string;
  created_at: number;
}

export interface TransitionsTable {
  id: AutoId;
  queue_id: string;
  pr_number: number;
  from_state: string | null;
  to_state: string;
  reason: string;
  run_id: string | null;
  at: number;
}

export interface WebhookSubscriptionsTable {
  id: string;
  org_id: string;
  url: string;
  /** `whsec_<base64>`: signs every delivery, so it is kept in clear. */
  secret: string;
  /** JSON string[] of event types; null = every event. */
  events: string | null;
  /** 1 = deliveries are made; 0 = disabled (see disabled_reason). */
  enabled: number;
  disabled_reason: string | null;
  /** When the current run of failed attempts began; null after a success. */
  failing_since: number | null;
  created_at: number;
  updated_at: number;
}

export type DeliveryStatus = 'pending' | 'delivered' | 'failed';

/** A message of a delivery outbox (webhook_messages, notify_messages; src/delivery/). */
export interface DeliveryMessagesTable {
  /** Orders the messages of one order_key. */
  id: AutoId;
  /** The `webhook-id` header: the same on every attempt and redelivery. */
  message_id: string;
  subscription_id: string;
  queue_id: string;
  /** queue_events.id of the event. */
  event_id: number;
  event_type: string;
  /** Messages with the same key are delivered one after the other, in id order. */
  order_key: string;
  /** The exact JSON body sent. */
  body: string;
  status: DeliveryStatus;
  /** Attempts made since the message was queued (or redelivered). */
  attempts: number;
  /** 1 when the next attempt is a redelivery asked for by a person. */
  manual: number;
  /** When the next attempt is due (pending), pushed forward by a lease while an attempt is in flight. */
  next_attempt_at: number;
  /** Instance id of the worker whose attempt is in flight; null otherwise. */
  claimed_by: Generated<string | null>;
  last_status_code: number | null;
  last_error: string | null;
  delivered_at: number | null;
  created_at: number;
  updated_at: number;
}

export interface DeliveryAttemptsTable {
  id: AutoId;
  message_id: string;
  attempted_at: number;
  duration_ms: number;
  status_code: number | null;
  error: string | null;
  success: number;
  /** 1 for a redelivery asked for by a person. */
  manual: number;
}

export type NotifyKind = 'slack' | 'teams' | 'chat';

/** A chat channel of an organization (docs/notifications.md). */
export interface NotifySubscriptionsTable {
  id: string;
  org_id: string;
  kind: NotifyKind;
  /** The incoming-webhook / workflow / chat webhook URL. */
  url: string;
  /** One queue (repo_id + target_branch), or every queue of the org (both null). */
  repo_id: string | null;
  target_branch: string | null;
  /** JSON string[] of notification events (merged, failed, …). */
  events: string;
  enabled: number;
  disabled_reason: string | null;
  failing_since: number | null;
  created_at: number;
  updated_at: number;
}

/** Which instance drives a queue, until when (see store/queue-leases.ts). */
export interface QueueLeasesTable {
  queue_id: string;
  holder: string;
  expires_at: number;
  acquired_at: number;
}

export interface Database {
  orgs: OrgsTable;
  api_tokens: ApiTokensTable;
  repos: ReposTable;
  queues: QueuesTable;
  entries: EntriesTable;
  test_runs: TestRunsTable;
  ci_statuses: CiStatusesTable;
  impacted_targets: ImpactedTargetsTable;
  effects: EffectsTable;
  queue_events: QueueEventsTable;
  transitions: TransitionsTable;
  queue_leases: QueueLeasesTable;
  webhook_subscriptions: WebhookSubscriptionsTable;
  notify_subscriptions: NotifySubscriptionsTable;
  /** The chat messages' outbox: the same delivery tables as the webhooks' (src/delivery/tables.ts). */
  notify_messages: DeliveryMessagesTable;
  notify_attempts: DeliveryAttemptsTable;
  webhook_messages: DeliveryMessagesTable;
  webhook_attempts: DeliveryAttemptsTable;
  forge_deliveries: ForgeDeliveriesTable;
  early_ci_statuses: EarlyCiStatusesTable;
  ci_reruns_waiting: CiRerunsWaitingTable;
  queue_short_ids: QueueShortIdsTable;
  pull_request_ids: PullRequestIdsTable;
  audit_events: AuditEventsTable;
  try_builds: TryBuildsTable;
}

/** Try builds (migration 019): a PR tested by the queue's CI without being queued (app/try-builds.ts). */
export interface TryBuildsTable {
  id: string;
  queue_id: string;
  pr_number: number;
  /** The PR head the try tests. */
  head_sha: string;
  /** 1: built on top of the PRs queued ahead; 0: on the target head alone. */
  on_queue: number;
  /** queued, building, testing, passed, failed, cancelled. */
  state: string;
  /** The target head it was built on, once known. */
  base_sha: string | null;
  /** JSON number[]: the PRs merged into the try commit, in order, the tried PR last. */
  pr_numbers: string;
  test_sha: string | null;
  /** Why it is where it is, in words. */
  detail: string | null;
  /** Who asked for it: an API token's name, or a forge user who commented. */
  requested_by: string;
  created_at: number;
  updated_at: number;
}

export type TryBuildRow = Selectable<TryBuildsTable>;

/** The audit log (migration 016): one row per change; JSON as text. */
export interface AuditEventsTable {
  id: AutoId;
  org_id: string;
  at: number;
  actor_kind: string;
  actor_id: string;
  actor_name: string;
  action: string;
  /** `host/owner/name` of the repository the change concerns, for filtering; null: none. */
  repo: string | null;
  target_branch: string | null;
  target: string;
  changes: string | null;
  source: string | null;
}

export type AuditEventRow = Selectable<AuditEventsTable>;

/** A queue's short id in the v2 API (migration 010). */
export interface QueueShortIdsTable {
  short_id: string;
  queue_id: string;
}

/** A pull request's UUID in the v2 API (migration 010). */
export interface PullRequestIdsTable {
  id: string;
  repo_id: string;
  pr_number: number;
  created_at: number;
}

/** Webhook deliveries of the forges (migration 017; github_deliveries before). */
export interface ForgeDeliveriesTable {
  /** The delivery's id (X-GitHub-Delivery, X-Gitea-Delivery, X-Forgejo-Delivery). */
  id: string;
  /** The forge that sent it: its worker processes it. */
  forge: ColumnType<RepoForge, RepoForge | undefined, RepoForge>;
  event: string;
  received_at: number;
  /** The verified payload (JSON) while it waits to be processed; null once done (migration 013). */
  payload: ColumnType<string | null, string | null | undefined, string | null>;
  /** pending (to be processed, at `next_attempt_at`), done, or failed (given up after its retries). */
  status: ColumnType<
    'pending' | 'done' | 'failed',
    'pending' | 'done' | 'failed' | undefined,
    'pending' | 'done' | 'failed'
  >;
  attempts: ColumnType<number, number | undefined, number>;
  next_attempt_at: ColumnType<number | null, number | null | undefined, number | null>;
  /** What processing it did: processed or ignored. */
  result: ColumnType<string | null, string | null | undefined, string | null>;
  last_error: ColumnType<string | null, string | null | undefined, string | null>;
}

/** A run's CI retry waiting for workflow runs to complete before re-running them (migration 013). */
export interface CiRerunsWaitingTable {
  run_id: string;
  sha: string;
  branch: string;
  /** JSON array of the forge's ids of the workflow runs waited for. */
  workflow_runs: string;
  created_at: number;
}

/** CI statuses of a commit no test run was known to have when they arrived (migration 013). */
export interface EarlyCiStatusesTable {
  repo_id: string;
  sha: string;
  context: string;
  state: string;
  url: string | null;
  description: string | null;
  received_at: number;
}

export type OrgRow = Selectable<OrgsTable>;
export type ApiTokenRow = Selectable<ApiTokensTable>;
/** A token to store; scopes, repositories, expiry and last use may be left out (null). */
export type NewApiToken = Insertable<ApiTokensTable>;
/** A repository row; `github_installation_id` and `pr_url_template` may be left out when writing one (null then). */
export type RepoRow = Omit<Selectable<ReposTable>, 'github_installation_id' | 'pr_url_template'> & {
  github_installation_id?: number | null;
  pr_url_template?: string | null;
};
export type QueueRow = Selectable<QueuesTable>;
export type NewQueue = Insertable<QueuesTable>;
export type EntryRow = Selectable<EntriesTable>;
export type TestRunRow = Selectable<TestRunsTable>;
export type CiStatusRow = Selectable<CiStatusesTable>;
export type EffectRow = Selectable<EffectsTable>;
export type QueueEventRow = Selectable<QueueEventsTable>;
export type TransitionRow = Selectable<TransitionsTable>;
export type QueueLeaseRow = Selectable<QueueLeasesTable>;
export type NewTransition = Insertable<TransitionsTable>;
export type WebhookSubscriptionRow = Selectable<WebhookSubscriptionsTable>;
export type DeliveryMessageRow = Selectable<DeliveryMessagesTable>;
export type DeliveryAttemptRow = Selectable<DeliveryAttemptsTable>;
export type NotifySubscriptionRow = Selectable<NotifySubscriptionsTable>;
