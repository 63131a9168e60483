/** One queue of a running greenline, driven through the v1 API over HTTP. */
import type { ApiReply, GreenlineProcess } from './greenline-process.js';
import type { Json } from '../helpers/json.js';
import { waitUntil } from '../helpers/wait-until.js';

export const TERMINAL = ['MERGED', 'FAILED', 'CANCELLED'];

/**
 * How long a scenario's PRs may take to leave the queue. Alone, each scenario needs seconds (the
 * testing-timeout one a minute); they run side by side on a shared two-core machine, where a round of
 * test branch, CI and merge was seen to take ten times longer.
 */
export const SETTLE_MS = 150_000;
/** A scenario's test: its set-up, settling, and the checks after. */
export const SCENARIO_MS = 240_000;

export class QueueClient {
  readonly repo: { host: string; owner: string; name: string };

  constructor(
    readonly server: GreenlineProcess,
    slug: string,
    readonly targetBranch = 'main',
  ) {
    const [host, owner, name] = slug.split('/') as [string, string, string];
    this.repo = { host, owner, name };
  }

  get key(): { repo: QueueClient['repo']; targetBranch: string } {
    return { repo: this.repo, targetBranch: this.targetBranch };
  }

  /** Calls an endpoint with the queue's key; throws unless the answer is 200. */
  async call(endpoint: string, body: Record<string, unknown> = {}): Promise<Json> {
    const reply = await this.server.api(endpoint, { ...this.key, ...body });
    if (reply.status !== 200) throw new Error(`${endpoint} answered ${reply.status}: ${JSON.stringify(reply.json)}`);
    return reply.json;
  }

  /** Creates the queue, then applies `settings` with updateQueue (createQueue takes only mode and concurrency). */
  async create(
    mode: 'single' | 'parallel',
    concurrency: number,
    settings: Record<string, unknown> = {},
  ): Promise<void> {
    await this.call('createQueue', { mode, concurrency });
    if (Object.keys(settings).length > 0) await this.call('updateQueue', settings);
  }

  submit(prNumber: number): Promise<ApiReply> {
    return this.server.api('submitPullRequest', { ...this.key, pr: { number: prNumber } });
  }

  pr(prNumber: number): Promise<Json> {
    return this.call('getSubmittedPullRequest', { pr: { number: prNumber } });
  }

  details(testRunId: string): Promise<Json> {
    return this.call('getMergeQueueTestingDetails', { testRunId });
  }

  /** Waits until every PR in `prs` is MERGED, FAILED or CANCELLED; returns their entries by number. */
  async settle(prs: number[], timeoutMs: number): Promise<Map<number, Json>> {
    let last = new Map<number, Json>();
    return waitUntil(
      `PRs ${prs.join(', ')} to leave the queue`,
      timeoutMs,
      async () => {
        last = new Map(await Promise.all(prs.map(async (n) => [n, await this.pr(n)] as const)));
        return [...last.values()].every((e) => TERMINAL.includes(e.state)) ? last : undefined;
      },
      () => Object.fromEntries([...last].map(([n, e]) => [n, e.state])),
    );
  }
}
