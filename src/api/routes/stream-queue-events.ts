import { Type } from '@sinclair/typebox';
import type { ServerResponse } from 'node:http';
import type { AuthContext, QueueKey } from '../../app/types.js';
import { authOf } from '../auth.js';
import { queueActivityOut } from '../dashboard-wire.js';
import type { Route } from '../route-deps.js';
import { ErrorBody } from '../schemas/common.js';
import { StreamQuery } from '../schemas/dashboard.js';

/** A comment line at this interval keeps proxies from closing an idle stream. */
const KEEP_ALIVE_MS = 15_000;
/** Changes closer together than this are sent as one event. */
const COALESCE_MS = 150;

/**
 * Extension: GET /v1/streamQueueEvents — server-sent events of one queue. The first event is the
 * queue's activity (as getQueueActivity answers it); another follows each committed change. Send the
 * token in x-api-token, as for every endpoint: a browser reads the stream with fetch(), not
 * EventSource, so the token never appears in a URL.
 */
export const streamQueueEvents: Route = (app, { service, enumCase }) => {
  const open = new Set<ServerResponse>();
  // Open streams would hold the server's close forever: end them first.
  app.addHook('preClose', (done) => {
    for (const res of open) res.end();
    done();
  });

  app.get('/streamQueueEvents', {
    schema: {
      summary: "Stream a queue's activity as server-sent events (extension)",
      description: 'text/event-stream of `activity` events, each a getQueueActivity answer: one at once, then one per change. ' +
        'Not part of Trunk\'s API.',
      tags: ['Extensions'],
      querystring: StreamQuery,
      response: {
        200: { description: 'Server-sent events', content: { 'text/event-stream': { schema: Type.String() } } },
        default: ErrorBody,
      },
    },
  }, async (request, reply) => {
    const ctx: AuthContext = authOf(request);
    const { repo, repoHost, targetBranch } = request.query;
    const [owner, name] = repo.split('/') as [string, string];
    const key: QueueKey = { repo: { host: repoHost, owner, name }, targetBranch };
    // The first event is read before the stream opens: an unknown queue is an ordinary 404.
    const first = await service.getQueueActivity(ctx, key);
    const token = String(request.headers['x-api-token'] ?? '').trim();
    const answerCase = enumCase(request.headers);

    let closed = false;
    let pending: NodeJS.Timeout | null = null;
    let sending: Promise<void> = Promise.resolve();
    const res = reply.raw;
    const stop = () => {
      if (closed) return;
      closed = true;
      unwatch();
      clearInterval(keepAlive);
      if (pending) clearTimeout(pending);
      open.delete(res);
      res.end();
    };
    const send = async () => {
      pending = null;
      if (closed) return;
      try {
        // A token revoked while the stream is open ends it.
        if (!(await service.authenticate(token))) return stop();
        const activity = queueActivityOut(await service.getQueueActivity(ctx, key), answerCase);
        if (!closed) res.write(`event: activity\ndata: ${JSON.stringify(activity)}\n\n`);
      } catch (err) {
        request.log.warn({ err }, 'queue stream ended');
        stop();
      }
    };
    const unwatch = await service.watchQueue(ctx, key, () => {
      if (!closed && !pending) pending = setTimeout(() => { sending = sending.then(send); }, COALESCE_MS);
    });
    const keepAlive = setInterval(() => res.write(': keep-alive\n\n'), KEEP_ALIVE_MS);

    reply.hijack();
    open.add(res);
    res.writeHead(200, {
      'content-type': 'text/event-stream; charset=utf-8',
      'cache-control': 'no-store',
      connection: 'keep-alive',
      'x-accel-buffering': 'no',
    });
    res.write(`retry: 3000\nevent: activity\ndata: ${JSON.stringify(queueActivityOut(first, answerCase))}\n\n`);
    request.raw.on('close', stop);
    res.on('close', stop);
  });
};
