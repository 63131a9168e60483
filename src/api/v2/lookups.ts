/** Resolving a v2 request's ids within the caller's organization; unknown (or another org's) is 404. */
import type { FastifyRequest } from 'fastify';
import {
  entryView,
  type PullRequestHandle,
  type QueueHandle,
  type RepositoryView,
} from '../../app/read-models/api-directory.js';
import type { MergeQueueService, WrittenEntry } from '../../app/service-port.js';
import { prNotFound, queueNotFound, repoNotFound } from './errors.js';
import { callerOf } from './caller.js';
import type { PullRequestFacts } from './wire.js';

export async function queueOf(service: MergeQueueService, request: FastifyRequest, id: string): Promise<QueueHandle> {
  const handle = await service.directory.queue(callerOf(request), id);
  if (!handle) throw queueNotFound(id);
  return handle;
}

export async function repoOf(service: MergeQueueService, request: FastifyRequest, id: string): Promise<RepositoryView> {
  const repo = await service.directory.repo(callerOf(request), id);
  if (!repo) throw repoNotFound(id);
  return repo;
}

export async function pullRequestOf(
  service: MergeQueueService,
  request: FastifyRequest,
  id: string,
): Promise<PullRequestHandle> {
  const handle = await service.directory.pullRequest(callerOf(request), id);
  if (!handle) throw prNotFound(id);
  return handle;
}

/**
 * What the wire says of a pull request: its most recent entry as the lookup read it or, never
 * submitted, the forge's view (undefined when the forge does not know it either).
 */
export async function factsOf(
  service: MergeQueueService,
  pr: PullRequestHandle,
): Promise<PullRequestFacts | undefined> {
  if (pr.latest) return { ...pr, entry: entryView(pr.repo, pr.latest) };
  const forge = await service.directory.forgePullRequest(pr.repo, pr.number);
  return forge ? { ...pr, forge } : undefined;
}

/**
 * What the wire says of a pull request after a write: the entry the write answered (the most recent
 * one, being just written) or, when it answered none, the pull request as it is now.
 */
export async function factsAfter(
  service: MergeQueueService,
  request: FastifyRequest,
  pr: PullRequestHandle,
  written?: WrittenEntry,
): Promise<PullRequestFacts | undefined> {
  return written
    ? { ...pr, entry: entryView(pr.repo, written) }
    : factsOf(service, await pullRequestOf(service, request, pr.id));
}
