/**
 * The v1 wire's answer to every error code: its HTTP status and the code it writes in
 * `{ "error": { "code", "message" } }`, with the message of the code's catalogue (src/lib/errors.ts,
 * request-error.ts). docs/errors.md lists the wire codes with these statuses;
 * test/api/errors-doc.test.ts checks both directions.
 *
 * Most codes go out as themselves. The engine's refusals that v1 has always answered as one
 * `400 INVALID_OPERATION` ("well formed, but cannot apply to the queue as it is now") keep that
 * wire code: Trunk's v1 contract (§5.3, §11.2) gives them no code of their own, and a client that
 * switches on INVALID_OPERATION keeps working. v2 tells them apart (v2/errors.ts).
 */
import type { ServiceErrorCode } from '../../lib/errors.js';
import type { RequestErrorCode } from '../request-error.js';

export const V1_ERRORS = {
  VALIDATION_FAILED: [400, 'VALIDATION_FAILED'],
  INVALID_JSON: [400, 'INVALID_JSON'],
  UNSUPPORTED_MEDIA_TYPE: [415, 'UNSUPPORTED_MEDIA_TYPE'],
  BAD_REQUEST: [400, 'BAD_REQUEST'],
  WEBHOOK_SIGNATURE_INVALID: [401, 'WEBHOOK_SIGNATURE_INVALID'],
  UNAUTHORIZED: [401, 'UNAUTHORIZED'],
  TOKEN_EXPIRED: [401, 'UNAUTHORIZED'],
  INSUFFICIENT_PERMISSIONS: [403, 'INSUFFICIENT_PERMISSIONS'],
  FORK_UPLOAD_UNSUPPORTED: [401, 'FORK_UPLOAD_UNSUPPORTED'],
  FORK_RUN_NOT_VERIFIED: [401, 'FORK_RUN_NOT_VERIFIED'],
  OIDC_TOKEN_REFUSED: [401, 'OIDC_TOKEN_REFUSED'],
  OIDC_KEYS_UNAVAILABLE: [502, 'OIDC_KEYS_UNAVAILABLE'],
  NOT_FOUND: [404, 'NOT_FOUND'],
  REPO_NOT_FOUND: [404, 'REPO_NOT_FOUND'],
  QUEUE_NOT_FOUND: [404, 'QUEUE_NOT_FOUND'],
  PR_NOT_FOUND: [404, 'PR_NOT_FOUND'],
  PR_NOT_SUBMITTED: [404, 'PR_NOT_SUBMITTED'],
  TEST_RUN_NOT_FOUND: [404, 'TEST_RUN_NOT_FOUND'],
  LOG_NOT_FOUND: [404, 'LOG_NOT_FOUND'],
  WEBHOOK_NOT_FOUND: [404, 'WEBHOOK_NOT_FOUND'],
  WEBHOOK_DELIVERY_NOT_FOUND: [404, 'WEBHOOK_DELIVERY_NOT_FOUND'],
  WEBHOOK_URL_REJECTED: [400, 'WEBHOOK_URL_REJECTED'],
  NOTIFICATION_CHANNEL_NOT_FOUND: [404, 'NOTIFICATION_CHANNEL_NOT_FOUND'],
  ROUTE_NOT_FOUND: [404, 'ROUTE_NOT_FOUND'],
  METHOD_NOT_ALLOWED: [405, 'METHOD_NOT_ALLOWED'],
  QUEUE_EXISTS: [409, 'QUEUE_EXISTS'],
  TARGET_BRANCH_NOT_FOUND: [400, 'TARGET_BRANCH_NOT_FOUND'],
  QUEUE_NOT_EMPTY: [400, 'QUEUE_NOT_EMPTY'],
  PR_NOT_IN_QUEUE: [400, 'PR_NOT_IN_QUEUE'],
  RESTART_NOT_ALLOWED: [400, 'RESTART_NOT_ALLOWED'],
  PR_ALREADY_MERGED: [400, 'PR_ALREADY_MERGED'],
  COMMIT_TITLE_REFUSED: [400, 'COMMIT_TITLE_REFUSED'],
  SWITCHING_MODES: [400, 'INVALID_OPERATION'],
  PR_BEING_MERGED: [400, 'INVALID_OPERATION'],
  INVALID_CONFIG: [400, 'INVALID_OPERATION'],
  INVALID_EVENT: [400, 'INVALID_OPERATION'],
  TRY_IN_PROGRESS: [409, 'TRY_IN_PROGRESS'],
  TRY_UNAVAILABLE: [400, 'TRY_UNAVAILABLE'],
  WEBHOOK_DISABLED: [400, 'INVALID_OPERATION'],
  PAYLOAD_TOO_LARGE: [413, 'PAYLOAD_TOO_LARGE'],
  RATE_LIMITED: [429, 'RATE_LIMITED'],
  FORGE_UNREACHABLE: [502, 'FORGE_UNREACHABLE'],
  INTERNAL: [500, 'INTERNAL'],
} as const satisfies Record<ServiceErrorCode | RequestErrorCode, readonly [number, string]>;

/** A code the v1 wire writes (docs/errors.md). */
export type V1ErrorCode = (typeof V1_ERRORS)[keyof typeof V1_ERRORS][1];
