/**
 * A forge's webhook deliveries (already verified by the HTTP layer), translated by the forge's adapter
 * into observations (GitHub: forge/github/observations.ts; Gitea and Forgejo:
 * forge/gitea/webhook-events.ts) and applied to the repository's queues (forge-observations.ts).
 * One worker per forge: each stores and processes its own forge's deliveries.
 *
 * GitHub gives a receiver 10 s to answer and does not redeliver by itself (Gitea and Forgejo give
 * 5 s by default), so a delivery is answered at once and processed durably: `receive` stores it
 * (forge_deliveries, with its payload and forge) and answers `accepted`; this worker processes the
 * stored deliveries in the background, as the outbox workers do (lib/outbox-worker.ts): a due
 * delivery is claimed with a lease, processed, and marked done; a failure is tried again on the delivery outboxes' schedule (delivery/retry-schedule.ts: 5 s, 5 min,
 * 30 min … then given up and logged). Each delivery id is processed once (a redelivery is
 * `duplicate`; ids are kept 14 days: retention.ts). A delivery that names no repository connected
 * with this forge, or tells nothing greenline acts on, is `ignored` and not stored.
 *
 * Deliveries for repositories not connected with that forge are ignored (a repository is found by its
 * name in any letter case). Deliveries about the forge's access to repositories (GitHub: the App's
 * installations), which name no repository, go to the forge adapter itself at once (observeAccess:
 * it only forgets what it kept) and are answered `accepted`.
 */
import type { Kysely } from 'kysely';
import type { Logger } from 'pino';
import { nextAttemptAt } from '../../delivery/retry-schedule.js';
import type { ForgeDelivery } from '../../forge/observations.js';
import { MINUTE_MS } from '../../lib/time.js';
import { OutboxWorker } from '../../lib/outbox-worker.js';
import { ForgeRateLimitedError, type RepoBinding } from '../../forge/port.js';
import type { Database, RepoRow } from '../../store/database.js';
import {
  claimDelivery,
  completeDelivery,
  failDeliveryAttempt,
  nextDeliveryDueAt,
  selectDueDeliveryIds,
  type StoredDelivery,
  storeDelivery,
} from '../../store/forge-deliveries.js';
import { listQueuesOfRepos } from '../../store/queues.js';
import { findRepo } from '../../store/repos.js';
import type { Clock } from '../../lib/clock.js';
import type { ForgeObservations } from './forge-observations.js';

export interface WebhookDelivery {
  /** The delivery's id (GitHub: X-GitHub-Delivery; Gitea: X-Gitea-Delivery). */
  id: string;
  /** The event's name (GitHub: X-GitHub-Event; Gitea: X-Gitea-Event). */
  event: string;
  payload: unknown;
}

/** The answer to a delivery: stored to be processed, seen before, or nothing greenline acts on. */
export type DeliveryResult = 'accepted' | 'duplicate' | 'ignored';

/** What processing a stored delivery did (forge_deliveries.result). */
export type ProcessingResult = 'processed' | 'ignored';

/** How long a delivery being processed is held before another worker may take it (rate-limit waits included). */
const LEASE_MS = 10 * MINUTE_MS;

export interface ForgeWebhooksDeps {
  db: Kysely<Database>;
  clock: Clock;
  observations: Pick<ForgeObservations, 'apply'>;
  /** The forge the deliveries come from: only repositories connected with it are concerned, only its deliveries processed. */
  forge: RepoBinding['forge'];
  /** The forge adapter's translation of a delivery; null when it names no repository. */
  translate(event: string, payload: unknown): ForgeDelivery | null | Promise<ForgeDelivery | null>;
  /**
   * The forge adapter's reading of a delivery about its own access to repositories (GitHub: the App's
   * installations), which names no repository: true when the delivery was one (it is processed then).
   */
  observeAccess?(event: string, payload: unknown): boolean;
  logger?: Logger;
  /** Longest sleep between looks at the stored deliveries (another instance may store some); default 5 s. */
  idlePollMs?: number;
}

export class ForgeWebhooks extends OutboxWorker {
  constructor(private readonly deps: ForgeWebhooksDeps) {
    super({
      nextDueAt: () => nextDeliveryDueAt(deps.db, deps.forge),
      clock: deps.clock,
      ...(deps.idlePollMs !== undefined ? { idlePollMs: deps.idlePollMs } : {}),
      onError: (err) => deps.logger?.error({ err }, 'webhook deliveries could not be read'),
    });
  }

  /** Stores a delivery to be processed and answers at once; a repeated delivery id is 'duplicate'. */
  readonly receive = async (delivery: WebhookDelivery): Promise<DeliveryResult> => {
    const { db, clock } = this.deps;
    if (this.deps.observeAccess?.(delivery.event, delivery.payload ?? {})) return 'accepted';
    if (!(await this.concerning(delivery.event, delivery.payload))) return 'ignored';
    const stored = await storeDelivery(
      db,
      this.deps.forge,
      { id: delivery.id, event: delivery.event, payload: JSON.stringify(delivery.payload ?? {}) },
      clock.now(),
    );
    if (!stored) return 'duplicate';
    this.wake();
    return 'accepted';
  };

  /** Processes the deliveries due now, and those that come meanwhile (what tests call after a delivery). */
  async drain(): Promise<void> {
    while ((await this.round()) > 0);
  }

  protected async lookAtOutbox(): Promise<void> {
    while (this.loop.running && (await this.round()) > 0);
  }

  /** Claims the due deliveries and processes them in the order they came; returns how many. */
  private async round(): Promise<number> {
    const { db, clock } = this.deps;
    const now = clock.now();
    let done = 0;
    for (const id of await selectDueDeliveryIds(db, this.deps.forge, now, 20)) {
      const claimed = await claimDelivery(db, id, now, now + LEASE_MS);
      if (!claimed) continue;
      await this.process(claimed);
      done++;
    }
    return done;
  }

  private async process(delivery: StoredDelivery): Promise<void> {
    const { db, clock, logger } = this.deps;
    const attempts = delivery.attempts + 1;
    try {
      const result = await this.handle(delivery.event, JSON.parse(delivery.payload) as unknown);
      await completeDelivery(db, delivery.id, result, attempts);
    } catch (err) {
      const message = err instanceof Error ? err.message : String(err);
      if (err instanceof ForgeRateLimitedError) {
        // The forge's rate limit is no failure of the delivery: it waits until then, its attempt not counted.
        logger?.info(
          { delivery: delivery.id, event: delivery.event, retryAt: new Date(err.retryAt).toISOString() },
          "webhook delivery postponed until the forge's rate limit resets",
        );
        await failDeliveryAttempt(db, delivery.id, delivery.attempts, message, err.retryAt);
        return;
      }
      const retryAt = nextAttemptAt(attempts, clock.now());
      logger?.warn(
        { delivery: delivery.id, event: delivery.event, attempts, err: message },
        retryAt === null ? 'webhook delivery could not be processed; giving up' : 'webhook delivery failed; will retry',
      );
      await failDeliveryAttempt(db, delivery.id, attempts, message, retryAt);
    }
  }

  /** The connected repository a delivery is about and what it tells of it; null when nothing concerns greenline. */
  private async concerning(event: string, payload: unknown): Promise<{ repo: RepoRow; seen: ForgeDelivery } | null> {
    const seen = await this.deps.translate(event, payload ?? {});
    if (!seen || seen.observations.length === 0) return null;
    const { host, owner, name } = seen.repo;
    const repo = await findRepo(this.deps.db, host, owner, name);
    return repo?.forge === this.deps.forge ? { repo, seen } : null;
  }

  private async handle(event: string, payload: unknown): Promise<ProcessingResult> {
    const target = await this.concerning(event, payload);
    if (!target) return 'ignored';
    const queues = await listQueuesOfRepos(this.deps.db, [target.repo.id]);
    let processed = false;
    for (const o of target.seen.observations) {
      if (await this.deps.observations.apply(target.repo, queues, o)) processed = true;
    }
    return processed ? 'processed' : 'ignored';
  }
}
