/**
 * The one place that writes the wire error format `{ "error": { "code", "message" } }`. Every error
 * is mapped to a catalogue code (src/errors.ts): the service's HttpErrors as they are, Fastify's
 * request errors to their 4xx codes, an unreachable forge to 502 FORGE_UNREACHABLE, anything else to
 * 500 INTERNAL; 5xx are logged with their stack. An oversize body is drained (drain-body.ts) before
 * its 413 goes out.
 */
import type { FastifyError, FastifyReply, FastifyRequest } from 'fastify';
import { HttpError } from '../errors.js';
import { ForgeUnreachableError } from '../ports.js';
import { drainBody } from './drain-body.js';
import { validationMessage, type SchemaError } from './validation-message.js';

function toHttpError(error: FastifyError): HttpError {
  if (error instanceof HttpError) return error;
  if (error instanceof ForgeUnreachableError) return new HttpError('FORGE_UNREACHABLE', error.message);
  if (error.validation) {
    return new HttpError(
      'VALIDATION_FAILED',
      validationMessage(error.validation as SchemaError[], error.validationContext ?? 'request'),
    );
  }
  switch (error.code) {
    case 'FST_ERR_CTP_BODY_TOO_LARGE':
      return new HttpError('PAYLOAD_TOO_LARGE');
    case 'FST_ERR_CTP_INVALID_MEDIA_TYPE':
      return new HttpError('UNSUPPORTED_MEDIA_TYPE');
  }
  // Other requests Fastify cannot read: bad Content-Length, malformed URL, …
  if (error.statusCode !== undefined && error.statusCode >= 400 && error.statusCode < 500) {
    return new HttpError('BAD_REQUEST', error.message);
  }
  return new HttpError('INTERNAL');
}

export function errorHandler(error: FastifyError, request: FastifyRequest, reply: FastifyReply): void {
  const httpError = toHttpError(error);
  if (httpError.status >= 500) request.log.error({ err: error }, 'request failed');
  const send = () => void reply.code(httpError.status).type('application/json; charset=utf-8').send(httpError.toJSON());
  // An oversize body is still arriving: take the rest (bounded) so that the client reads the 413.
  if (error.code === 'FST_ERR_CTP_BODY_TOO_LARGE') void drainBody(request.raw).then(send);
  else send();
}
