/**
 * The domain's error catalogue: every refusal of the service, as a code and a message template. No
 * HTTP here: each wire picks its own status and code for these (v1: src/api/v1/error-status.ts, v2:
 * src/api/v2/errors.ts). What only a request over HTTP can get wrong (a body that is not JSON, an
 * unknown route, a missing token…) is the API's own (src/api/request-error.ts).
 *
 * The codes of the engine's refusals say why it refused (SWITCHING_MODES, PR_BEING_MERGED,
 * INVALID_CONFIG, …) so that a wire maps each without guessing; v1 answers several of them under
 * one code (INVALID_OPERATION), as it always did.
 */
export const SERVICE_ERRORS = {
  /** The caller's token lacks the scope a call needs, or is limited to other repositories (app/scopes.ts). */
  INSUFFICIENT_PERMISSIONS: '{detail}',
  /** A token past its expiry (`greenline token create --expires-in`). */
  TOKEN_EXPIRED: '{detail}',
  /** A value the service checks is out of range or malformed; the detail names the field. */
  VALIDATION_FAILED: 'Invalid request: {detail}',
  /** An upload vouched for by a workflow run, for a repository whose forge cannot check runs. */
  FORK_UPLOAD_UNSUPPORTED:
    'A workflow run id (x-forked-workflow-run-id) authenticates only setImpactedTargets, for repositories connected with the github forge; send an organization API token in the x-api-token header',
  FORK_RUN_NOT_VERIFIED: 'The workflow run in x-forked-workflow-run-id does not vouch for this upload: {detail}',
  /** An OIDC ID token of a CI provider presented as credential (app/admin/ci-identity.ts), and why it is refused. */
  OIDC_TOKEN_REFUSED: 'The OIDC ID token is refused: {detail}',
  /** The issuer's key set could not be read, so an ID token could be neither accepted nor refused. */
  OIDC_KEYS_UNAVAILABLE:
    "The OIDC ID token cannot be checked now: the issuer's key set could not be read from {detail}; retry later",
  /** The queue or repository disappeared while the request was handled; also a dashboard file. */
  NOT_FOUND: '{detail}',
  REPO_NOT_FOUND: 'Repository {detail} is not connected to this organization',
  QUEUE_NOT_FOUND: 'No merge queue exists for branch "{detail}" in this repository',
  PR_NOT_FOUND: '{detail}',
  PR_NOT_SUBMITTED: 'Pull request {detail} has never been submitted to this queue',
  TEST_RUN_NOT_FOUND: 'No test run {detail} in this queue',
  LOG_NOT_FOUND: 'Test run {detail} has no log: only runs of the built-in CI runner keep one',
  WEBHOOK_NOT_FOUND: 'No webhook subscription has id {detail}; see listWebhooks (or `greenline webhook list`)',
  WEBHOOK_DELIVERY_NOT_FOUND:
    'No webhook delivery has id {detail}; see listWebhookDeliveries (or `greenline webhook deliveries`)',
  WEBHOOK_URL_REJECTED: 'Webhook URL refused: {detail}',
  /** Redelivery to a subscription that is disabled. */
  WEBHOOK_DISABLED: '{detail}',
  NOTIFICATION_CHANNEL_NOT_FOUND:
    'No notification channel has id {detail}; see listNotificationChannels (or `greenline notify list`)',
  QUEUE_EXISTS: 'A merge queue already exists for branch "{detail}" in this repository',
  /** createQueue for a branch the forge says it does not have. */
  TARGET_BRANCH_NOT_FOUND: 'No branch {detail}: create it first, or check the name',
  QUEUE_NOT_EMPTY:
    'The queue still holds {detail}; cancel them or let them merge (set state DRAINING and wait) before deleting it',
  // The engine's refusals (src/engine/types.ts Rejection), with the engine's message as detail.
  PR_NOT_IN_QUEUE: '{detail}',
  RESTART_NOT_ALLOWED: '{detail}',
  PR_ALREADY_MERGED: '{detail}',
  /** A submission whose commit title the queue's titlePattern refuses (engine/commit-message.ts). */
  COMMIT_TITLE_REFUSED: 'Not queued: {detail}',
  /** A state or settings write to a queue that is switching modes (the engine's SWITCHING_MODES). */
  SWITCHING_MODES: '{detail}',
  /** Cancel of a PR whose merge is in flight. */
  PR_BEING_MERGED: '{detail}',
  /** Settings the engine's validation refuses (src/engine/config-validation.ts). */
  INVALID_CONFIG: '{detail}',
  /** A try build asked of a PR whose try is not over yet (app/try-builds.ts). */
  TRY_IN_PROGRESS: '{detail}',
  /** A try build asked where none can run (a repository without a CI command). */
  TRY_UNAVAILABLE: '{detail}',
  /** An event the engine cannot apply as given (a malformed submission, an unknown or finished run). */
  INVALID_EVENT: '{detail}',
} as const satisfies Record<string, string>;

export type ServiceErrorCode = keyof typeof SERVICE_ERRORS;

/** A catalogue message with its `{detail}` filled in. */
export function fillMessage(template: string, detail: string): string {
  return template.replace('{detail}', detail);
}

/** The one error type of the service: a refusal with its catalogue code and message. */
export class ServiceError extends Error {
  constructor(
    readonly code: ServiceErrorCode,
    detail = '',
  ) {
    super(fillMessage(SERVICE_ERRORS[code], detail));
    this.name = 'ServiceError';
  }
}
