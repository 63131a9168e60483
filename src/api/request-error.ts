/**
 * What only a request over HTTP can get wrong, and the answers the API writes for errors that are no
 * refusal of the service. These codes are the API's, not the domain's (src/lib/errors.ts):
 *
 *   INVALID_JSON, UNSUPPORTED_MEDIA_TYPE,  the body as bytes: parsed (and checked for prototype
 *   BAD_REQUEST, PAYLOAD_TOO_LARGE         poisoning) before any service call; Fastify's request errors
 *   UNAUTHORIZED                           the x-api-token header, resolved before the service is asked
 *   WEBHOOK_SIGNATURE_INVALID              the HMAC of a forge's webhook delivery over its raw body
 *   ROUTE_NOT_FOUND, METHOD_NOT_ALLOWED    the URL and method, before any route
 *   RATE_LIMITED                           a limit per connection (reserved: v1 enforces none)
 *   FORGE_UNREACHABLE                      the answer to a ForgeUnreachableError (src/forge/port.ts), the
 *                                          adapters' own error, not a refusal
 *   INTERNAL                               the answer to anything else thrown
 *
 * Each wire gives them a status in its table (v1: v1/error-status.ts, v2: v2/errors.ts).
 */
import { fillMessage } from '../lib/errors.js';

export const REQUEST_ERRORS = {
  INVALID_JSON: 'The request body is not valid JSON: {detail}',
  UNSUPPORTED_MEDIA_TYPE: 'Send the request body as application/json',
  BAD_REQUEST: 'Malformed HTTP request: {detail}',
  PAYLOAD_TOO_LARGE: 'The request body is larger than the 20 MiB limit; for large impacted-target lists send "ALL"',
  UNAUTHORIZED: 'Missing or invalid API token: send a valid token in the x-api-token header',
  WEBHOOK_SIGNATURE_INVALID: 'The webhook signature {detail}',
  ROUTE_NOT_FOUND: 'No endpoint {detail}; see GET /v1/openapi.json for the endpoints',
  METHOD_NOT_ALLOWED: '{detail}',
  RATE_LIMITED: 'Too many requests; retry after {detail} seconds',
  FORGE_UNREACHABLE: "The repository's forge cannot be reached, so the request was not applied: {detail}",
  INTERNAL: 'Internal error; the request was not applied. Details are in the server log',
} as const satisfies Record<string, string>;

export type RequestErrorCode = keyof typeof REQUEST_ERRORS;

/** An error of the request itself, thrown by the API layer (parsers, hooks, handlers). */
export class RequestError extends Error {
  constructor(
    readonly code: RequestErrorCode,
    detail = '',
  ) {
    super(fillMessage(REQUEST_ERRORS[code], detail));
    this.name = 'RequestError';
  }
}
