// @ts-check
// Live updates: a queue's server-sent events (streamQueueEvents), followed with reconnection.
/** @typedef {import('../src/client/index.js').QueueActivity} QueueActivity */
/** @typedef {import('../src/client/index.js').QueueRequest} QueueKey */
import { ApiError, failed, stream } from './api.js';
import { html, useEffect, useRef, useState } from './ui.js';

/** The state of the connection, as shown beside a page's title. */
/** @typedef {{ text: string, cls: 'waiting' | 'on' | 'off' }} Connection */

/**
 * Follows a queue's server-sent events, reconnecting 3 s after a break; `onConnection` hears how the
 * connection goes. Returns the function that stops it.
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
          { repo: `${key.repo.owner}/${key.repo.name}`, repoHost: key.repo.host, targetBranch: key.targetBranch },
          (/** @type {string} */ name, /** @type {QueueActivity} */ data) => {
            if (name !== 'activity') return;
            onConnection({ text: 'Live', cls: 'on' });
            onActivity(data);
          },
          controller.signal,
        );
      } catch (err) {
        if (stopped || failed(err)) return;
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

/**
 * A component's live queue: calls the latest `onActivity` with each event of the queue's stream while
 * the component is shown; returns the connection's state.
 * @param {QueueKey} key
 * @param {(activity: QueueActivity) => void} onActivity
 * @returns {Connection}
 */
export function useLive(key, onActivity) {
  const [connection, setConnection] = useState(/** @type {Connection} */ ({ text: 'Connecting…', cls: 'waiting' }));
  const latest = useRef(onActivity);
  latest.current = onActivity;
  const { host, owner, name } = key.repo;
  useEffect(
    () =>
      follow({ repo: { host, owner, name }, targetBranch: key.targetBranch }, (a) => latest.current(a), setConnection),
    [host, owner, name, key.targetBranch],
  );
  return connection;
}

/**
 * The connection's state beside a page's title ("Live", "Reconnecting…").
 * @param {{ connection: Connection }} props
 */
export function LiveIndicator({ connection }) {
  return html`<span class=${`live ${connection.cls}`} role="status">${connection.text}</span>`;
}
