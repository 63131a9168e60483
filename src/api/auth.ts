/**
 * Token authentication of the v1 API (contract §9): every request carries the organization's token
 * in `x-api-token`; the service resolves it to an AuthContext, or the request is refused with 401
 * before its body is read. Then the caller must have one of the scopes the route declares (v1 and
 * v2 alike), or it is refused with 403 INSUFFICIENT_PERMISSIONS.
 */
import type { FastifyRequest, onRequestAsyncHookHandler } from 'fastify';
import { missingScope, hasAnyScope, type Scope } from '../app/scopes.js';
import type { AuthContext, AuthService } from '../app/service-port.js';
import { ServiceError } from '../lib/errors.js';
import { RequestError } from './request-error.js';
import { sourceOf } from './request-source.js';

const contexts = new WeakMap<FastifyRequest, AuthContext>();

const header = (request: FastifyRequest, name: string): string => {
  const value = request.headers[name];
  return (Array.isArray(value) ? value[0] : (value ?? '')).trim();
};

const forkRuns = new WeakMap<FastifyRequest, string>();

declare module 'fastify' {
  interface FastifyContextConfig {
    /** The route takes uploads authenticated by a fork PR's workflow run (contract §2.6, §9). */
    forkUploads?: boolean;
    /**
     * The scopes that allow a call (any one of them): every authenticated route declares them
     * (test/api/route-scopes.test.ts checks). What a body asks for beyond them (a priority,
     * skipping batching) the service checks.
     */
    scopes?: readonly Scope[];
  }
}

/** Refuses a caller who has none of the scopes the request's route declares (a route declaring none allows none). */
export function requireRouteScopes(request: FastifyRequest, ctx: AuthContext): void {
  const anyOf = request.routeOptions.config.scopes ?? [];
  if (!hasAnyScope(ctx, anyOf))
    throw missingScope(ctx, anyOf, `${request.method} ${request.routeOptions.url ?? request.url.split('?')[0]}`);
}

export function requireToken(service: AuthService): onRequestAsyncHookHandler {
  return async (request) => {
    const token = header(request, 'x-api-token');
    if (token === '') {
      // Trunk's merge-action sends an empty token and a workflow run id for PRs from forks (contract
      // §2.6): the upload is let through here and the run is checked with the forge once the body
      // names the repository and the head sha (forkRunOf).
      const runId = header(request, 'x-forked-workflow-run-id');
      if (runId === '') throw new RequestError('UNAUTHORIZED');
      if (!request.routeOptions.config.forkUploads) throw new ServiceError('FORK_UPLOAD_UNSUPPORTED');
      forkRuns.set(request, runId);
      return;
    }
    const context = await service.authenticate(token);
    if (!context) throw new RequestError('UNAUTHORIZED');
    requireRouteScopes(request, context);
    contexts.set(request, { ...context, source: sourceOf(request) });
  };
}

/** The workflow run id an upload without a token is authenticated by, if that is how it came. */
export function forkRunOf(request: FastifyRequest): string | undefined {
  return forkRuns.get(request);
}

/** The caller of an authenticated request. */
export function authOf(request: FastifyRequest): AuthContext {
  const context = contexts.get(request);
  if (!context) throw new RequestError('UNAUTHORIZED');
  return context;
}
