// @ts-check
// A queue's live activity: its server-sent events (GET /v1/streamQueueEvents), followed with a
// reconnection after a break.
import { ApiError, stream } from './api.js';
import { failed } from './app.js';

/** @typedef {import('../src/client/index.js').QueueActivity} QueueActivity */
/** @typedef {import('../src/client/index.js').QueueRequest} QueueKey */
/** @typedef {{ text: string, cls: 'on' | 'waiting' | 'off' }} Connection */

/**
 * Follows a queue's events: `onActivity` gets each getQueueActivity answer, `onConnection` how the
 * connection stands (connecting, live, reconnecting after 3 s, or not live and why). Returns the
 * function that stops it.
 * @param {QueueKey} key
 * @param {(activity: QueueActivity) => void} onActivity
 * @param {(connection: Connection) => void} onConnection
 */
export function follow(key, onActivity, onConnection) {
  const controller = new AbortController();
  let stopped = false;
  (async () => {
    while (!stopped) {
      try {
        onConnection({ text: 'Connecting…', cls: 'waiting' });
        await stream(
          {
            repo: `${key.repo.owner}/${key.repo.name}`,
            repoHost: key.repo.host,
            targetBranch: key.targetBranch,
          },
          /** @param {string} name @param {QueueActivity} data */
          (name, data) => {
            if (name !== 'activity') return;
            onConnection({ text: 'Live', cls: 'on' });
            onActivity(data);
          },
          controller.signal,
        );
      } catch (err) {
        if (stopped) return;
        if (failed(err)) return;
        if (err instanceof ApiError && err.status === 404) {
          onConnection({ text: `Not live: ${err.message}`, cls: 'off' });
          return;
        }
      }
      if (stopped) return;
      onConnection({ text: 'Reconnecting…', cls: 'waiting' });
      await new Promise((resolve) => setTimeout(resolve, 3000));
    }
  })();
  return () => {
    stopped = true;
    controller.abort();
  };
}
