/**
 * Errors of the v2 API: Trunk's v2 codes in the same `{ "error": { "code", "message" } }` envelope.
 * Routes throw V2Error for what only v2 says; what the service refuses (ServiceError) and what the
 * request gets wrong (RequestError) is answered under the v2 code and status of V2_ERRORS, keeping
 * its message.
 */
import type { FastifyError, FastifyReply, FastifyRequest } from 'fastify';
import { ServiceError, type ServiceErrorCode } from '../../lib/errors.js';
import { ForgeUnreachableError } from '../../forge/port.js';
import { RequestError, type RequestErrorCode } from '../request-error.js';
import { validationMessage, type SchemaError } from '../validation-message.js';

export type V2Code =
  | 'AUTHENTICATION_REQUIRED'
  | 'INVALID_TOKEN'
  | 'INSUFFICIENT_PERMISSIONS'
  | 'INTERNAL_ERROR'
  | 'VALIDATION_FAILED'
  | 'NOT_FOUND'
  | 'INVALID_CURSOR'
  | 'MERGE_QUEUE_NOT_FOUND'
  | 'PR_ALREADY_ENQUEUED'
  | 'PR_NOT_ENQUEUEABLE'
  | 'UPSTREAM_ERROR'
  | 'VERIFICATION_RUN_NOT_FOUND'
  | 'PR_NOT_FOUND'
  | 'REPOSITORY_NOT_FOUND'
  | 'QUEUE_ALREADY_EXISTS'
  | 'QUEUE_HAS_ACTIVE_ENTRIES'
  | 'MODE_CHANGE_IN_PROGRESS'
  | 'PR_NOT_IN_ACTIVE_STATE'
  | 'PR_TESTS_NOT_RESTARTABLE'
  | 'ALLOWED_BOT_SUBMITTERS_FROZEN'
  | 'PROVIDER_URL_NOT_FOUND'
  | 'RATE_LIMIT_EXCEEDED';

export class V2Error extends Error {
  constructor(
    readonly status: number,
    readonly code: V2Code,
    message: string,
  ) {
    super(message);
    this.name = 'V2Error';
  }
}

/**
 * The v2 status and code of every catalogue code: the service's (src/lib/errors.ts) and the request's
 * (../request-error.ts). The message is the catalogue's. Codes marked "not on v2" belong to
 * operations v2 does not have (webhooks, notifications, logs, v1 auth); they get the answer that
 * means the same.
 */
export const V2_ERRORS = {
  VALIDATION_FAILED: [400, 'VALIDATION_FAILED'],
  FORK_UPLOAD_UNSUPPORTED: [400, 'VALIDATION_FAILED'],
  FORK_RUN_NOT_VERIFIED: [400, 'VALIDATION_FAILED'],
  OIDC_TOKEN_REFUSED: [401, 'INVALID_TOKEN'],
  OIDC_KEYS_UNAVAILABLE: [502, 'UPSTREAM_ERROR'],
  NOT_FOUND: [404, 'NOT_FOUND'],
  REPO_NOT_FOUND: [404, 'REPOSITORY_NOT_FOUND'],
  QUEUE_NOT_FOUND: [404, 'MERGE_QUEUE_NOT_FOUND'],
  // The forge has no such PR: it cannot be enqueued (Trunk's 422 of submit).
  PR_NOT_FOUND: [422, 'PR_NOT_ENQUEUEABLE'],
  PR_NOT_SUBMITTED: [404, 'PR_NOT_FOUND'],
  TEST_RUN_NOT_FOUND: [404, 'VERIFICATION_RUN_NOT_FOUND'],
  LOG_NOT_FOUND: [404, 'NOT_FOUND'], // not on v2
  WEBHOOK_NOT_FOUND: [404, 'NOT_FOUND'], // not on v2
  WEBHOOK_DELIVERY_NOT_FOUND: [404, 'NOT_FOUND'], // not on v2
  WEBHOOK_URL_REJECTED: [400, 'VALIDATION_FAILED'], // not on v2
  WEBHOOK_DISABLED: [400, 'VALIDATION_FAILED'], // not on v2
  NOTIFICATION_CHANNEL_NOT_FOUND: [404, 'NOT_FOUND'], // not on v2
  QUEUE_EXISTS: [409, 'QUEUE_ALREADY_EXISTS'],
  TARGET_BRANCH_NOT_FOUND: [400, 'VALIDATION_FAILED'],
  QUEUE_NOT_EMPTY: [409, 'QUEUE_HAS_ACTIVE_ENTRIES'],
  PR_NOT_IN_QUEUE: [409, 'PR_NOT_IN_ACTIVE_STATE'],
  RESTART_NOT_ALLOWED: [422, 'PR_TESTS_NOT_RESTARTABLE'],
  PR_ALREADY_MERGED: [422, 'PR_NOT_ENQUEUEABLE'],
  COMMIT_TITLE_REFUSED: [422, 'PR_NOT_ENQUEUEABLE'],
  SWITCHING_MODES: [409, 'MODE_CHANGE_IN_PROGRESS'],
  // Its merge is in flight: no longer a live entry that can be dequeued.
  PR_BEING_MERGED: [409, 'PR_NOT_IN_ACTIVE_STATE'],
  INVALID_CONFIG: [400, 'VALIDATION_FAILED'],
  INVALID_EVENT: [400, 'VALIDATION_FAILED'],
  TRY_IN_PROGRESS: [400, 'VALIDATION_FAILED'], // not on v2
  TRY_UNAVAILABLE: [400, 'VALIDATION_FAILED'], // not on v2
  INVALID_JSON: [400, 'VALIDATION_FAILED'],
  UNSUPPORTED_MEDIA_TYPE: [400, 'VALIDATION_FAILED'],
  BAD_REQUEST: [400, 'VALIDATION_FAILED'],
  PAYLOAD_TOO_LARGE: [400, 'VALIDATION_FAILED'],
  UNAUTHORIZED: [401, 'INVALID_TOKEN'], // not on v2 (Authorization: Bearer, plugin.ts)
  TOKEN_EXPIRED: [401, 'INVALID_TOKEN'],
  INSUFFICIENT_PERMISSIONS: [403, 'INSUFFICIENT_PERMISSIONS'],
  WEBHOOK_SIGNATURE_INVALID: [401, 'INVALID_TOKEN'], // not on v2
  ROUTE_NOT_FOUND: [404, 'NOT_FOUND'], // not on v2 (its own not-found handler, plugin.ts)
  METHOD_NOT_ALLOWED: [404, 'NOT_FOUND'], // not on v2
  RATE_LIMITED: [429, 'RATE_LIMIT_EXCEEDED'],
  FORGE_UNREACHABLE: [502, 'UPSTREAM_ERROR'],
  INTERNAL: [500, 'INTERNAL_ERROR'],
} as const satisfies Record<ServiceErrorCode | RequestErrorCode, readonly [number, V2Code]>;

function toV2Error(error: FastifyError | ServiceError | RequestError | V2Error): V2Error {
  if (error instanceof V2Error) return error;
  if (error instanceof ServiceError || error instanceof RequestError) {
    const [status, code] = V2_ERRORS[error.code];
    return new V2Error(status, code, error.message);
  }
  if (error instanceof ForgeUnreachableError) return new V2Error(502, 'UPSTREAM_ERROR', error.message);
  if (error.validation) {
    const context = error.validationContext ?? 'request';
    return new V2Error(400, 'VALIDATION_FAILED', validationMessage(error.validation as SchemaError[], context));
  }
  if (error.statusCode === 429) return new V2Error(429, 'RATE_LIMIT_EXCEEDED', error.message);
  if (error.statusCode !== undefined && error.statusCode >= 400 && error.statusCode < 500)
    return new V2Error(400, 'VALIDATION_FAILED', error.message);
  return toV2Error(new RequestError('INTERNAL'));
}

export function v2ErrorHandler(error: FastifyError, request: FastifyRequest, reply: FastifyReply): void {
  const e = toV2Error(error);
  if (e.status >= 500) request.log.error({ err: error }, 'request failed');
  void reply
    .code(e.status)
    .type('application/json; charset=utf-8')
    .send({ error: { code: e.code, message: e.message } });
}

export const queueNotFound = (id: string) =>
  new V2Error(404, 'MERGE_QUEUE_NOT_FOUND', `No merge queue has id ${JSON.stringify(id)}; see GET /v2/merge-queues`);
export const prNotFound = (id: string) =>
  new V2Error(
    404,
    'PR_NOT_FOUND',
    `No pull request has id ${JSON.stringify(id)}; resolve ids with GET /v2/pull-requests`,
  );
export const repoNotFound = (id: string) =>
  new V2Error(404, 'REPOSITORY_NOT_FOUND', `No repository has id ${JSON.stringify(id)}; see GET /v2/repositories`);
export const invalid = (message: string) => new V2Error(400, 'VALIDATION_FAILED', message);
