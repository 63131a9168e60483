/**
 * The one place that writes the v1 wire error format `{ "error": { "code", "message" } }`. Every
 * error is read as a catalogue code: the service's ServiceErrors and the API's RequestErrors as they
 * are, Fastify's request errors as their request codes, an unreachable forge as FORGE_UNREACHABLE,
 * anything else as INTERNAL; the v1 table (v1/error-status.ts) gives the status and the wire code. 5xx
 * are logged with their stack. An oversize body is drained (drain-body.ts) before its 413 goes out.
 */
import type { FastifyError, FastifyReply, FastifyRequest } from 'fastify';
import { ServiceError } from '../lib/errors.js';
import { ForgeUnreachableError } from '../forge/port.js';
import { drainBody } from './drain-body.js';
import { V1_ERRORS } from './v1/error-status.js';
import { RequestError } from './request-error.js';
import { validationMessage, type SchemaError } from './validation-message.js';

function toCatalogued(error: FastifyError): ServiceError | RequestError {
  if (error instanceof ServiceError || error instanceof RequestError) return error;
  if (error instanceof ForgeUnreachableError) return new RequestError('FORGE_UNREACHABLE', error.message);
  if (error.validation) {
    return new ServiceError(
      'VALIDATION_FAILED',
      validationMessage(error.validation as SchemaError[], error.validationContext ?? 'request'),
    );
  }
  switch (error.code) {
    case 'FST_ERR_CTP_BODY_TOO_LARGE':
      return new RequestError('PAYLOAD_TOO_LARGE');
    case 'FST_ERR_CTP_INVALID_MEDIA_TYPE':
      return new RequestError('UNSUPPORTED_MEDIA_TYPE');
  }
  // Other requests Fastify cannot read: bad Content-Length, malformed URL, …
  if (error.statusCode !== undefined && error.statusCode >= 400 && error.statusCode < 500) {
    return new RequestError('BAD_REQUEST', error.message);
  }
  return new RequestError('INTERNAL');
}

export function errorHandler(error: FastifyError, request: FastifyRequest, reply: FastifyReply): void {
  const catalogued = toCatalogued(error);
  const [status, code] = V1_ERRORS[catalogued.code];
  if (status >= 500) request.log.error({ err: error }, 'request failed');
  const body = { error: { code, message: catalogued.message } };
  const send = () => void reply.code(status).type('application/json; charset=utf-8').send(body);
  // An oversize body is still arriving: take the rest (bounded) so that the client reads the 413.
  if (error.code === 'FST_ERR_CTP_BODY_TOO_LARGE') void drainBody(request.raw).then(send);
  else send();
}
