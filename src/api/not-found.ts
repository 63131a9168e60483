import type { FastifyRequest } from 'fastify';
import { RequestError } from './request-error.js';
import type { ApiApp } from './route-deps.js';

/**
 * Unknown routes: 405 when the path exists for another method (e.g. GET on a POST endpoint), 404
 * otherwise. Both go through the error handler like every other error.
 */
export function notFoundHandler(app: ApiApp) {
  return async (request: FastifyRequest): Promise<never> => {
    const path = request.url.split('?')[0];
    const allowed = ['GET', 'POST'].find((method) => method !== request.method && app.hasRoute({ method, url: path }));
    if (allowed)
      throw new RequestError('METHOD_NOT_ALLOWED', `${request.method} ${path} is not served; use ${allowed}`);
    throw new RequestError('ROUTE_NOT_FOUND', `${request.method} ${path}`);
  };
}
