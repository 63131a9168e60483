/**
 * The webhook event types (contract §8) and the body sent for each: a flat JSON object with `type`
 * at the top, as Trunk sends it (no `{type, data}` envelope).
 */
import { trunkReason } from '../engine/trunk-names.js';
import type { QueueEventPayload } from '../engine/types.js';
import type { RepoSite } from '../forge/links.js';
import { prWebUrlOrGitHubForm } from '../forges.js';

export const PR_EVENT_TYPES = [
  'pull_request.submitted',
  'pull_request.queued',
  'pull_request.testing',
  'pull_request.pending_failure',
  'pull_request.failed',
  'pull_request.canceled',
  'pull_request.merged',
] as const;

export const BATCH_EVENT_TYPES = [
  'pull_request_batch.submitted',
  'pull_request_batch.queued',
  'pull_request_batch.testing',
  'pull_request_batch.pending_failure',
  'pull_request_batch.failed',
  'pull_request_batch.canceled',
  'pull_request_batch.merged',
] as const;

/** Trunk's event types: what a subscription without a filter gets. */
export const EVENT_TYPES: readonly QueueEventPayload['type'][] = [...PR_EVENT_TYPES, ...BATCH_EVENT_TYPES];

/**
 * greenline's own event types (extensions), sent only to subscriptions whose filter names them, so a
 * subscription to every event sees Trunk's event types and no others: the queue's state changes, and
 * CI asked to run a test run again (`ciRetries`, a cancellation).
 */
export const QUEUE_EVENT_TYPES = [
  'queue.paused',
  'queue.resumed',
  'queue.frozen',
  'queue.unfrozen',
  'queue.status_quarantined',
  'queue.status_quarantine_lifted',
] as const;
export const TEST_RUN_EVENT_TYPES = ['test_run.started', 'test_run.retry_requested'] as const;
export const EXTENSION_EVENT_TYPES: readonly QueueEventPayload['type'][] = [
  ...QUEUE_EVENT_TYPES,
  ...TEST_RUN_EVENT_TYPES,
];

/** Every type a subscription's filter may name. */
export const FILTERABLE_EVENT_TYPES: readonly QueueEventPayload['type'][] = [...EVENT_TYPES, ...EXTENSION_EVENT_TYPES];

export const isBatchEvent = (type: string): boolean => type.startsWith('pull_request_batch.');
export const isQueueEvent = (type: string): boolean => type.startsWith('queue.');
export const isTestRunEvent = (type: string): boolean => type.startsWith('test_run.');

/** Where the event happened, and for PR events the PR's author (the engine's event does not carry them). */
export interface EventContext {
  repo: RepoSite;
  targetBranch: string;
  author: string;
}

/** The name of each action's reason field. */
const REASON_FIELD: Record<string, string> = {
  submitted: 'submitted_reason',
  queued: 'queued_reason',
  pending_failure: 'failure_reason',
  failed: 'failure_reason',
  canceled: 'cancellation_reason',
  merged: 'merged_reason',
};

/** Actions that carry the test branch, `batched` (PR events) and `is_bisection`. */
const WITH_TEST_BRANCH = new Set(['testing', 'pending_failure', 'failed', 'canceled', 'merged']);
const WITH_BISECTION = new Set(['testing', 'failed', 'canceled']);

/**
 * The reason as published, in Trunk's names (engine/trunk-names.ts): a cancellation through the API is
 * the user's (`USER_REQUESTED`, the contract's cancellation vocabulary has no API reason);
 * TEST_RUN_STARTED is not published.
 */
function publishedReason(action: string, reason: string | null): string | null {
  if (reason === null || reason === 'TEST_RUN_STARTED') return null;
  if (action === 'canceled' && reason === 'API_REQUESTED') return 'USER_REQUESTED';
  return trunkReason(reason);
}

/**
 * The JSON body of one event, fields as in contract §8.1 (PR events) and §8.2 (batch events); a queue
 * event (greenline's) carries the freeze's reason and `frozen_until` (queue.frozen: when it ends;
 * queue.unfrozen: when it ended); queue.status_quarantined / queue.status_quarantine_lifted carry the
 * `required_status`, whether it was `automatic`, and the `reason` in words.
 */
export function eventBody(event: QueueEventPayload, ctx: EventContext): Record<string, unknown> {
  const action = event.type.slice(event.type.indexOf('.') + 1);
  if (isQueueEvent(event.type)) {
    return {
      type: event.type,
      action,
      status: action,
      repository: { host: ctx.repo.host, owner: ctx.repo.owner, name: ctx.repo.name },
      target_branch: ctx.targetBranch,
      timestamp: new Date(event.at).toISOString(),
      reason: event.freeze?.reason ?? event.quarantine?.reason ?? null,
      frozen_until: event.freeze?.until != null ? new Date(event.freeze.until).toISOString() : null,
      ...(event.quarantine ? { required_status: event.quarantine.status, automatic: event.quarantine.automatic } : {}),
    };
  }
  if (isTestRunEvent(event.type)) return testRunEventBody(event, ctx, action);
  const batch = isBatchEvent(event.type);
  const body: Record<string, unknown> = { type: event.type, action, status: action };
  if (isQueueEvent(event.type)) {
    body.repository = { host: ctx.repo.host, owner: ctx.repo.owner, name: ctx.repo.name };
    body.target_branch = ctx.targetBranch;
    body.timestamp = new Date(event.at).toISOString();
    return body;
  }
  if (batch) {
    body.pr_numbers = event.prNumbers;
    body.pr_numbers_in_batch = event.prNumbersInBatch;
  } else {
    const pr = event.prNumbers[0];
    body.author = ctx.author;
    body.http_details_url = prWebUrlOrGitHubForm(ctx.repo, pr!);
    body.pr_number = pr;
  }
  body.repository = { host: ctx.repo.host, owner: ctx.repo.owner, name: ctx.repo.name };
  body.target_branch = ctx.targetBranch;
  body.timestamp = new Date(event.at).toISOString();
  if (batch) {
    body.test_branch = event.testBranch;
    body.test_branch_sha = event.testBranchSha;
  } else if (WITH_TEST_BRANCH.has(action)) {
    if (event.testBranch !== null) body.test_branch = event.testBranch;
    if (event.testBranchSha !== null) body.test_branch_sha = event.testBranchSha;
    body.batched = event.batched;
  }
  if (WITH_BISECTION.has(action)) body.is_bisection = event.isBisection;
  const field = REASON_FIELD[action];
  const reason = publishedReason(action, event.reason);
  if (field && reason !== null) body[field] = reason;
  return body;
}

/**
 * The test run events (extensions): the test run, its test commit and PRs.
 * - `test_run.started`: its test commit is built and CI starts; with what it tests against and what
 *   changed, when the forge can compare commits: `base_sha` (what the run's own PRs were merged onto),
 *   `changed_files` (the paths changed from there to the test commit) and each tested PR's own
 *   `changed_files` in `pull_requests`; null otherwise.
 * - `test_run.retry_requested`: why CI is asked to run again (`retry_reason`:
 *   TEST_RUN_REQUIRED_STATUS_FAILED or TEST_RUN_CANCELLED_BY_CI). External CI that reports through
 *   reportStatus runs its checks on `test_branch_sha` again and reports anew.
 */
function testRunEventBody(event: QueueEventPayload, ctx: EventContext, action: string): Record<string, unknown> {
  const changes = event.changes;
  const what =
    event.type === 'test_run.started'
      ? {
          base_sha: changes?.baseSha ?? null,
          changed_files: changes?.files ?? null,
          pull_requests: changes?.prs.map((p) => ({ pr_number: p.number, changed_files: p.files })) ?? null,
        }
      : { retry_reason: trunkReason(event.reason) };
  return {
    type: event.type,
    action,
    status: action,
    repository: { host: ctx.repo.host, owner: ctx.repo.owner, name: ctx.repo.name },
    target_branch: ctx.targetBranch,
    timestamp: new Date(event.at).toISOString(),
    test_run_id: event.runId,
    test_branch: event.testBranch,
    test_branch_sha: event.testBranchSha,
    pr_numbers: event.prNumbers,
    is_bisection: event.isBisection,
    ...what,
  };
}
