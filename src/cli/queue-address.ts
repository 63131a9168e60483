/** Addresses on the command line: a queue is --repo HOST/OWNER/NAME + --branch; a PR adds its number. */
import type { QueueRequest, RepoRef } from '../client/index.js';
import type { ClientSettings } from './client-options.js';
import { UsageError } from './usage-error.js';

export function parseRepoSlug(slug: string): RepoRef {
  const parts = slug.split('/');
  if (parts.length < 3 || parts.some((p) => p === '')) {
    throw new UsageError(
      `--repo must be HOST/OWNER/NAME, e.g. github.com/acme/web (a GitLab subgroup's project: HOST/GROUP/SUBGROUP/NAME); got "${slug}"`,
    );
  }
  return { host: parts[0]!, owner: parts.slice(1, -1).join('/'), name: parts[parts.length - 1]! };
}

export function queueAddress(settings: ClientSettings): QueueRequest {
  if (!settings.repo)
    throw new UsageError('Which repository? Pass --repo HOST/OWNER/NAME (or set "repo:" in the client config file)');
  if (!settings.branch)
    throw new UsageError(
      'Which queue? Pass --branch BRANCH, the target branch (or set "branch:" in the client config file)',
    );
  return { repo: parseRepoSlug(settings.repo), targetBranch: settings.branch };
}

export function parsePrNumber(text: string): number {
  if (!/^[1-9][0-9]{0,9}$/.test(text) || Number(text) > 4294967295) {
    throw new UsageError(`A pull request number is a positive integer, got "${text}"`);
  }
  return Number(text);
}

/** `github.com/acme/web main`, for messages. */
export const describeQueue = (q: QueueRequest): string =>
  `${q.repo.host}/${q.repo.owner}/${q.repo.name} ${q.targetBranch}`;

/** ` --repo HOST/OWNER/NAME --branch BRANCH` as far as they are known, to repeat in a suggested command. */
export const queueFlags = (s: Pick<ClientSettings, 'repo' | 'branch'>): string =>
  `${s.repo ? ` --repo ${s.repo}` : ''}${s.branch ? ` --branch ${s.branch}` : ''}`;
