/**
 * The caller of each authenticated v2 request: the plugin's auth hook (plugin.ts) records it, the
 * routes read it.
 */
import type { FastifyRequest } from 'fastify';
import type { AuthContext } from '../../app/service-port.js';
import { V2Error } from './errors.js';

const callers = new WeakMap<FastifyRequest, AuthContext>();

/** Records the caller the request's token names. */
export function setCaller(request: FastifyRequest, ctx: AuthContext): void {
  callers.set(request, ctx);
}

/** The caller of an authenticated v2 request. */
export function callerOf(request: FastifyRequest): AuthContext {
  const ctx = callers.get(request);
  if (!ctx) throw new V2Error(401, 'AUTHENTICATION_REQUIRED', 'Send an API token as Authorization: Bearer <token>');
  return ctx;
}
