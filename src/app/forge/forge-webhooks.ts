/**
 * A forge's webhook deliveries (already verified by the HTTP layer), translated by the forge's adapter
 * into observations (GitHub: adapters/forge/github/observations.ts) and applied to the repository's
 * queues (forge-observations.ts). Each delivery id is processed once (github_deliveries, kept 14 days:
 * retention.ts); a delivery whose processing failed is forgotten again so that the forge's redelivery
 * gets another chance. Deliveries for repositories not connected with that forge are ignored (a
 * repository is found by its name in any letter case). Deliveries about the forge's access to
 * repositories (GitHub: the App's installations) go to the forge adapter itself (observeAccess).
 */
import type { Kysely } from 'kysely';
import type { ForgeDelivery } from '../../forge-observations.js';
import type { RepoBinding } from '../../ports.js';
import type { Database } from '../../store/database.js';
import { claimDelivery, releaseDelivery } from '../../store/github-deliveries.js';
import { listQueuesOfRepos } from '../../store/queues.js';
import { findRepo } from '../../store/repos.js';
import type { Clock } from '../../lib/clock.js';
import type { ForgeObservations } from './forge-observations.js';

export interface WebhookDelivery {
  /** The delivery's id (GitHub: X-GitHub-Delivery). */
  id: string;
  /** The event's name (GitHub: X-GitHub-Event). */
  event: string;
  payload: unknown;
}

export type DeliveryResult = 'processed' | 'duplicate' | 'ignored';

export interface ForgeWebhooksDeps {
  db: Kysely<Database>;
  clock: Clock;
  observations: ForgeObservations;
  /** The forge the deliveries come from: only repositories connected with it are concerned. */
  forge: RepoBinding['forge'];
  /** The forge adapter's translation of a delivery; null when it names no repository. */
  translate(event: string, payload: unknown): ForgeDelivery | null;
  /**
   * The forge adapter's reading of a delivery about its own access to repositories (GitHub: the App's
   * installations), which names no repository: true when the delivery was one (it is processed then).
   */
  observeAccess?(event: string, payload: unknown): boolean;
}

export class ForgeWebhooks {
  constructor(private readonly deps: ForgeWebhooksDeps) {}

  /** Processes a delivery once; a repeated delivery id is 'duplicate' and changes nothing. */
  readonly receive = async (delivery: WebhookDelivery): Promise<DeliveryResult> => {
    const { db, clock } = this.deps;
    if (!(await claimDelivery(db, delivery.id, delivery.event, clock.now()))) return 'duplicate';
    try {
      return await this.handle(delivery);
    } catch (err) {
      await releaseDelivery(db, delivery.id).catch(() => undefined);
      throw err;
    }
  };

  private async handle(delivery: WebhookDelivery): Promise<DeliveryResult> {
    if (this.deps.observeAccess?.(delivery.event, delivery.payload ?? {})) return 'processed';
    const seen = this.deps.translate(delivery.event, delivery.payload ?? {});
    if (!seen || seen.observations.length === 0) return 'ignored';
    const { host, owner, name } = seen.repo;
    const repo = await findRepo(this.deps.db, host, owner, name);
    if (repo?.forge !== this.deps.forge) return 'ignored';
    const queues = await listQueuesOfRepos(this.deps.db, [repo.id]);
    let processed = false;
    for (const o of seen.observations) {
      if (await this.deps.observations.apply(repo, queues, o)) processed = true;
    }
    return processed ? 'processed' : 'ignored';
  }
}
