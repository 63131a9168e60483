import type { Route } from '../../route-deps.js';
import { Health } from '../schemas/extensions.js';

/** Extension: GET /healthz — liveness for load balancers and orchestrators; no token needed. */
export const healthz: Route = (app) => {
  app.get(
    '/healthz',
    {
      schema: { summary: 'Liveness check (extension)', tags: ['Extensions'], security: [], response: { 200: Health } },
    },
    async () => ({ status: 'ok' as const }),
  );
};
