import { Type } from '@sinclair/typebox';
import type { SSEReplyInterface } from '@fastify/sse';
import type { AuthContext, AuthService, QueueKey, ReadModelService } from '../../../app/service-port.js';
import { authOf } from '../../auth.js';
import { queueActivityOut } from '../queue-activity-wire.js';
import type { Route } from '../../route-deps.js';
import { ErrorBody } from '../schemas/common.js';
import { StreamQuery } from '../schemas/queue-activity.js';

/** How long a client waits before it reconnects (the `retry` field of the first event). */
const RETRY_MS = 3_000;
/** Changes closer together than this are sent as one event. */
const COALESCE_MS = 150;

/**
 * Extension: GET /v1/streamQueueEvents — server-sent events of one queue. The first event is the
 * queue's activity (as getQueueActivity answers it); another follows each committed change. Send the
 * token in x-api-token, as for every endpoint: a browser reads the stream with fetch(), not
 * EventSource, so the token never appears in a URL.
 */
export const streamQueueEvents: Route<AuthService & ReadModelService> = (app, { service, enumCase }) => {
  const open = new Set<SSEReplyInterface>();
  // Open streams would hold the server's close forever: end them first.
  app.addHook('preClose', (done) => {
    for (const sse of open) sse.close();
    done();
  });

  // `sse: 'manual'` (@fastify/sse): no Accept negotiation, and an error before the first event is an
  // ordinary JSON error answer. The plugin writes the keep-alive comments (registered in build-app.ts).
  app.get(
    '/streamQueueEvents',
    {
      sse: 'manual',
      config: { scopes: ['read'] },
      schema: {
        summary: "Stream a queue's activity as server-sent events (extension)",
        description:
          'text/event-stream of `activity` events, each a getQueueActivity answer: one at once, then one per change. ' +
          "Not part of Trunk's API.",
        tags: ['Extensions'],
        querystring: StreamQuery,
        response: {
          200: { description: 'Server-sent events', content: { 'text/event-stream': { schema: Type.String() } } },
          default: ErrorBody,
        },
      },
    },
    async (request, reply) => {
      const ctx: AuthContext = authOf(request);
      const { repo, repoHost, targetBranch } = request.query;
      const [owner, name] = repo.split('/') as [string, string];
      const key: QueueKey = { repo: { host: repoHost, owner, name }, targetBranch };
      // The first event is read before the stream opens: an unknown queue is an ordinary 404.
      const first = await service.getQueueActivity(ctx, key);
      const token = String(request.headers['x-api-token'] ?? '').trim();
      const answerCase = enumCase(request.headers);
      const sse = reply.sse;

      let pending: NodeJS.Timeout | null = null;
      let sending: Promise<void> = Promise.resolve();
      const send = async () => {
        pending = null;
        if (!sse.isConnected) return;
        try {
          // A token revoked while the stream is open ends it.
          if (!(await service.authenticate(token))) return sse.close();
          const activity = queueActivityOut(await service.getQueueActivity(ctx, key), answerCase);
          if (sse.isConnected) await sse.send({ event: 'activity', data: activity });
        } catch (err) {
          request.log.warn({ err }, 'queue stream ended');
          sse.close();
        }
      };
      const unwatch = await service.watchQueue(ctx, key, () => {
        if (sse.isConnected && !pending)
          pending = setTimeout(() => {
            sending = sending.then(send);
          }, COALESCE_MS);
      });
      const ended = () => {
        unwatch();
        if (pending) clearTimeout(pending);
        open.delete(sse);
      };
      // The client may have gone while the first activity was read: then no close event will come.
      if (!sse.isConnected) return ended();
      sse.onClose(ended);

      sse.keepAlive();
      open.add(sse);
      reply.header('content-type', 'text/event-stream; charset=utf-8').header('cache-control', 'no-store');
      await sse.send({ event: 'activity', data: queueActivityOut(first, answerCase), retry: RETRY_MS });
    },
  );
};
