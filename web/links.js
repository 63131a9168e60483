// Addresses of the dashboard's pages (hash routes), e.g. #/queue/github.com/acme/web/main.

const segments = (key) =>
  [key.repo.host, key.repo.owner, key.repo.name, key.targetBranch].map(encodeURIComponent).join('/');

export const queueHref = (key) => `#/queue/${segments(key)}`;
export const prHref = (key, n) => `#/pr/${segments(key)}/${n}`;
export const historyHref = (key) => `#/history/${segments(key)}`;
