/**
 * The store's tables as Kysely types. Portable across SQLite and PostgreSQL: text, integer/bigint
 * (times are milliseconds since the epoch), booleans as integer 0/1, JSON as text.
 */
import type { Generated, Insertable, Selectable } from 'kysely';

/** An auto-increment id: generated on insert, a number when read. */
type AutoId = Generated<number>;

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
}

export interface ReposTable {
  id: string;
  org_id: string;
  host: string;
  owner: string;
  name: string;
  forge: 'git' | 'github';
  remote: string | null;
  pr_ref_pattern: string;
  ci_command: string | null;
  test_branch_prefix: string;
  /** JSON string[]: the checks a test run needs when the queue has no override; null = none known. */
  required_statuses: string | null;
  created_at: number;
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
}

export type OrgRow = Selectable<OrgsTable>;
export type ApiTokenRow = Selectable<ApiTokensTable>;
export type RepoRow = Selectable<ReposTable>;
export type QueueRow = Selectable<QueuesTable>;
export type EntryRow = Selectable<EntriesTable>;
export type TestRunRow = Selectable<TestRunsTable>;
export type CiStatusRow = Selectable<CiStatusesTable>;
export type EffectRow = Selectable<EffectsTable>;
export type QueueEventRow = Selectable<QueueEventsTable>;
export type TransitionRow = Selectable<TransitionsTable>;
export type QueueLeaseRow = Selectable<QueueLeasesTable>;
export type NewTransition = Insertable<TransitionsTable>;
