// @ts-check
// Addresses of the dashboard's pages (hash routes), e.g. #/queue/github.com/acme/web/main; app.js
// reads them back (its route table); and how the pages label a queue and an id.

/** @typedef {import('../src/client/index.js').QueueRequest} QueueKey A queue's address: `{ repo: { host, owner, name }, targetBranch }`. */

/** @param {QueueKey} key The four segments of a queue's address. */
const queuePath = (key) =>
  [key.repo.host, key.repo.owner, key.repo.name, key.targetBranch].map(encodeURIComponent).join('/');

/** @param {QueueKey} key */
export const queueHref = (key) => `#/queue/${queuePath(key)}`;
/** @param {QueueKey} key @param {number} n */
export const prHref = (key, n) => `#/pr/${queuePath(key)}/${n}`;
/** @param {QueueKey} key */
export const settingsHref = (key) => `#/settings/${queuePath(key)}`;
/** @param {QueueKey} key */
export const historyHref = (key) => `#/history/${queuePath(key)}`;

/** @param {QueueKey} key "acme/web → main", how the dashboard names a queue. */
export const queueLabel = (key) => `${key.repo.owner}/${key.repo.name} → ${key.targetBranch}`;

/** A commit sha or run id as the pages show it: its first 8 characters ('–' for none). */
export const short = (/** @type {string | null | undefined} */ id) => (id ? id.slice(0, 8) : '–');
