/**
 * The error catalogue: every error the service reports, with its HTTP status and a message template.
 * The wire format is `{ "error": { "code": "...", "message": "..." } }`. docs/errors.md lists the same
 * codes; test/api/errors-doc.test.ts checks both directions.
 */
export const ERRORS = {
  VALIDATION_FAILED: { status: 400, message: 'Invalid request: {detail}' },
  INVALID_JSON: { status: 400, message: 'The request body is not valid JSON: {detail}' },
  UNSUPPORTED_MEDIA_TYPE: { status: 415, message: 'Send the request body as application/json' },
  BAD_REQUEST: { status: 400, message: 'Malformed HTTP request: {detail}' },
  WEBHOOK_SIGNATURE_INVALID: { status: 401, message: 'The webhook signature {detail}' },
  UNAUTHORIZED: { status: 401, message: 'Missing or invalid API token: send a valid token in the x-api-token header' },
  FORK_UPLOAD_UNSUPPORTED: {
    status: 401,
    message:
      'A workflow run id (x-forked-workflow-run-id) authenticates only setImpactedTargets, for repositories connected with the github forge; send an organization API token in the x-api-token header',
  },
  FORK_RUN_NOT_VERIFIED: {
    status: 401,
    message: 'The workflow run in x-forked-workflow-run-id does not vouch for this upload: {detail}',
  },
  NOT_FOUND: { status: 404, message: '{detail}' },
  REPO_NOT_FOUND: { status: 404, message: 'Repository {detail} is not connected to this organization' },
  QUEUE_NOT_FOUND: { status: 404, message: 'No merge queue exists for branch "{detail}" in this repository' },
  PR_NOT_FOUND: { status: 404, message: '{detail}' },
  PR_NOT_SUBMITTED: { status: 404, message: 'Pull request {detail} has never been submitted to this queue' },
  TEST_RUN_NOT_FOUND: { status: 404, message: 'No test run {detail} in this queue' },
  LOG_NOT_FOUND: { status: 404, message: 'Test run {detail} has no log: only runs of the built-in CI runner keep one' },
  WEBHOOK_NOT_FOUND: {
    status: 404,
    message: 'No webhook subscription has id {detail}; see listWebhooks (or `greenline webhook list`)',
  },
  WEBHOOK_DELIVERY_NOT_FOUND: {
    status: 404,
    message: 'No webhook delivery has id {detail}; see listWebhookDeliveries (or `greenline webhook deliveries`)',
  },
  WEBHOOK_URL_REJECTED: { status: 400, message: 'Webhook URL refused: {detail}' },
  NOTIFICATION_CHANNEL_NOT_FOUND: {
    status: 404,
    message: 'No notification channel has id {detail}; see listNotificationChannels (or `greenline notify list`)',
  },
  ROUTE_NOT_FOUND: { status: 404, message: 'No endpoint {detail}; see GET /v1/openapi.json for the endpoints' },
  METHOD_NOT_ALLOWED: { status: 405, message: '{detail}' },
  QUEUE_EXISTS: { status: 409, message: 'A merge queue already exists for branch "{detail}" in this repository' },
  QUEUE_NOT_EMPTY: {
    status: 400,
    message:
      'The queue still holds {detail}; cancel them or let them merge (set state DRAINING and wait) before deleting it',
  },
  PR_NOT_IN_QUEUE: { status: 400, message: '{detail}' },
  RESTART_NOT_ALLOWED: { status: 400, message: '{detail}' },
  PR_ALREADY_MERGED: { status: 400, message: '{detail}' },
  INVALID_OPERATION: { status: 400, message: '{detail}' },
  PAYLOAD_TOO_LARGE: {
    status: 413,
    message: 'The request body is larger than the 20 MiB limit; for large impacted-target lists send "ALL"',
  },
  RATE_LIMITED: { status: 429, message: 'Too many requests; retry after {detail} seconds' },
  FORGE_UNREACHABLE: {
    status: 502,
    message: "The repository's forge cannot be reached, so the request was not applied: {detail}",
  },
  INTERNAL: { status: 500, message: 'Internal error; the request was not applied. Details are in the server log' },
} as const satisfies Record<string, { status: number; message: string }>;

export type ErrorCode = keyof typeof ERRORS;

/** The one error type of the service: carries its catalogue code, HTTP status and message. */
export class HttpError extends Error {
  readonly status: number;
  constructor(
    readonly code: ErrorCode,
    detail = '',
  ) {
    super(ERRORS[code].message.replace('{detail}', detail));
    this.status = ERRORS[code].status;
    this.name = 'HttpError';
  }

  toJSON(): { error: { code: ErrorCode; message: string } } {
    return { error: { code: this.code, message: this.message } };
  }
}
