/** The v2 ids a command needs, found from the queue address the client commands take. */
import type { GreenlineClient, QueueRequest } from '../client/index.js';
import { UsageError } from './usage-error.js';

const providerUrl = (q: QueueRequest) => `https://${q.repo.host}/${q.repo.owner}/${q.repo.name}`;

/** The v2 id of the queue at `address`. */
export async function queueIdOf(client: GreenlineClient, address: QueueRequest): Promise<string> {
  const repo = await client.repositoryAt(providerUrl(address));
  const [queue] = (await client.mergeQueues({ repositoryId: repo.id, targetBranch: address.targetBranch })).data;
  if (!queue)
    throw new UsageError(
      `No queue for branch "${address.targetBranch}" in ${address.repo.owner}/${address.repo.name}; create it with greenline queue create`,
    );
  return queue.id;
}

/** The v2 id of pull request `number` of the repository at `address`. */
export async function pullRequestIdOf(client: GreenlineClient, address: QueueRequest, number: number): Promise<string> {
  const repo = await client.repositoryAt(providerUrl(address));
  const [pr] = (await client.pullRequestsByNumber(repo.id, [number])).data;
  if (!pr) throw new UsageError(`Pull request #${number} is not known in ${address.repo.owner}/${address.repo.name}`);
  return pr.id;
}
