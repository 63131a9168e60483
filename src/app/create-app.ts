/**
 * The application's composition root: the per-queue executor, CI outcome, effect runner, forge
 * poller, forge observations and the MergeQueueService, wired over one store and one set of adapters. `serve` and the
 * tests build the application through this one function, with different adapters.
 */
import { randomUUID } from 'node:crypto';
import type { Kysely } from 'kysely';
import type { Logger } from 'pino';
import type { ForgePort, RepoBinding } from '../forge/port.js';
import type { CiPort, CiStatusSink } from '../ci/port.js';
import type { Database, NotifySubscriptionRow, WebhookSubscriptionRow } from '../store/database.js';
import type { Adapters } from './adapters.js';
import { CiOutcome, failedCheckUrl } from './executor/ci-outcome.js';
import type { Clock } from '../lib/clock.js';
import { Signal } from '../lib/signal.js';
import { listenForEffects, type EffectNotifications } from './cluster/effect-notifications.js';
import { EffectRunner } from './executor/effect-runner.js';
import { ForgeObservations } from './observing/forge-observations.js';
import { ForgePoller } from './observing/forge-poller.js';
import { mergeQueueService } from './service/merge-queue-service.js';
import type { MergeQueueService } from './service-port.js';
import { TokenCache } from './admin/tokens.js';
import { Credentials } from './admin/credentials.js';
import { CiIdentity } from './admin/ci-identity.js';
import type { OidcSettings } from './admin/oidc-verifier.js';
import { ApiDirectory } from './read-models/api-directory.js';
import { QueueExecutor } from './executor/queue-executor.js';
import { type DeliverySubscription, DeliveryWorker, type Outbox } from '../delivery/worker.js';
import { webhookOutbox } from '../webhooks/outbox.js';
import { notificationOutbox } from '../notify/outbox.js';
import { reasonMessage } from '../engine/pr-reason.js';
import type { UrlPolicy } from '../delivery/url-policy.js';
import { WebhookAdmin } from '../webhooks/admin.js';
import { NotifyAdmin } from '../notify/admin.js';
import { QueueLeases } from './cluster/queue-leases.js';
import { takeOverQueues } from './executor/queue-takeover.js';
import { RetentionSweeper } from './cluster/retention.js';
import { TryBuilds } from './try-builds.js';

export interface AppDeps {
  db: Kysely<Database>;
  clock: Clock;
  forges: Partial<Record<RepoBinding['forge'], ForgePort>>;
  /** Builds the CI adapter around the sink where it must report statuses. */
  createCi: (onStatus: CiStatusSink) => CiPort;
  /**
   * Builds the CI try builds run on (app/try-builds.ts), around its own sink: runner slots apart from
   * the queue's. Absent: the server runs no try builds.
   */
  createTryCi?: (onStatus: CiStatusSink) => CiPort;
  pollIntervalMs: number;
  /** Forges whose changes arrive by webhook: the poller reads their queues as a safety net, with backoff. */
  webhookForges?: readonly RepoBinding['forge'][];
  /** How long finished work records are kept (default RETENTION_MS, 30 days). */
  retentionMs?: number;
  /** Length of a queue lease (default 15 s): another instance takes a dead one's queues within it. */
  leaseTtlMs?: number;
  /** This instance's id in queue leases (default: a random UUID). */
  instanceId?: string;
  newId?: () => string;
  logger?: Logger;
  /** Where webhooks and chat notifications may be sent (default: any host but link-local and cloud metadata addresses). */
  webhookPolicy?: UrlPolicy;
  /** The server's public address, for the dashboard links of chat notifications; null = none. */
  publicUrl?: string | null;
  /** The OIDC issuer whose ID tokens are accepted as CI identity (admin/ci-identity.ts); absent or null = none. */
  ciIdentity?: OidcSettings | null;
}

export interface App {
  service: MergeQueueService;
  executor: QueueExecutor;
  runner: EffectRunner;
  poller: ForgePoller;
  leases: QueueLeases;
  ciOutcome: CiOutcome;
  adapters: Adapters;
  /** Applies what forges report by webhook (forge-webhooks.ts) to the queues. */
  forgeObservations: ForgeObservations;
  /** Delivers webhook messages (webhooks/outbox.ts). */
  webhooks: DeliveryWorker<WebhookSubscriptionRow>;
  /** Delivers chat notifications (notify/outbox.ts). */
  notifier: DeliveryWorker<NotifySubscriptionRow>;
  /** Deletes finished work records past their retention. */
  retention: RetentionSweeper;
  /** Try builds; null when the server runs no CI for them. */
  tries: TryBuilds | null;
  /** Starts the queue leases, the effect runner, the poller, the webhook delivery worker and the retention sweep. */
  start(): void;
  /** Stops them and waits for work in flight. */
  stop(): Promise<void>;
}

export function createApp(deps: AppDeps): App {
  const { db, clock, logger } = deps;
  const newId = deps.newId ?? randomUUID;
  const instanceId = deps.instanceId ?? randomUUID();
  // The effect runner is built from the executor and the queue leases, yet both must wake it: the
  // executor when it commits effects, the leases once the queues they took are recovered. A real
  // cycle, so each is given this signal when built, and the runner listens to it once it exists.
  const effectsDue = new Signal();
  // Likewise the poller, built from the executor, hears of every change of a queue from it.
  const queueChanged: ((queueId: string) => void)[] = [];
  const executor = new QueueExecutor({
    db,
    newId,
    onEffects: () => effectsDue.emit(),
    onChange: (queueId) => {
      for (const listener of queueChanged) listener(queueId);
    },
    ...(logger ? { logger } : {}),
  });
  const ciOutcome = new CiOutcome({ db, executor, clock, ...(logger ? { logger } : {}) });
  const adapters: Adapters = { forges: deps.forges, ci: deps.createCi(ciOutcome.sink) };
  const createTryCi = deps.createTryCi;
  const tries = createTryCi
    ? new TryBuilds({
        db,
        clock,
        newId,
        executor,
        forges: deps.forges,
        createCi: createTryCi,
        pollIntervalMs: deps.pollIntervalMs,
        ...(logger ? { logger: logger.child({ part: 'tries' }) } : {}),
      })
    : null;
  const policy = deps.webhookPolicy;
  /** The worker of one delivery outbox; its log lines carry `part`. */
  const deliveryWorker = <S extends DeliverySubscription>(outbox: Outbox<S>, part: string) =>
    new DeliveryWorker(outbox, {
      db,
      clock,
      instanceId,
      ...(policy ? { policy } : {}),
      ...(logger ? { logger: logger.child({ part }) } : {}),
    });
  const webhooks = deliveryWorker(webhookOutbox, 'webhooks');
  const notifier = deliveryWorker(notificationOutbox, 'notifications');
  const leases = new QueueLeases({
    db,
    clock,
    instanceId,
    ...(deps.leaseTtlMs !== undefined ? { ttlMs: deps.leaseTtlMs } : {}),
    ...(logger ? { logger } : {}),
    onAcquired: async (queueIds, formerHolders) => {
      await takeOverQueues(
        { db, clock, ciOutcome, adapters, instanceId, ...(logger ? { logger } : {}) },
        queueIds,
        formerHolders,
      );
      await tries?.queuesTaken(queueIds);
      // After the leases count the queues as held (once this resolves), so that their work is driven here.
      setImmediate(() => {
        effectsDue.emit();
        webhooks.wake();
        notifier.wake();
        poller.taken();
      });
    },
  });
  const runner = new EffectRunner({
    db,
    executor,
    adapters,
    ciOutcome,
    clock,
    leases,
    onWebhookMessages: () => webhooks.wake(),
    onNotifications: () => notifier.wake(),
    notices: {
      words: { sentence: reasonMessage, failedCheckUrl },
      publicUrl: deps.publicUrl ?? null,
    },
    ...(logger ? { logger } : {}),
  });
  effectsDue.listen(() => runner.wake());
  const poller = new ForgePoller({
    db,
    ciOutcome,
    adapters,
    executor,
    clock,
    leases,
    intervalMs: deps.pollIntervalMs,
    ...(deps.webhookForges ? { webhookForges: deps.webhookForges } : {}),
    ...(logger ? { logger } : {}),
  });
  queueChanged.push((queueId) => poller.wake(queueId));
  const retention = new RetentionSweeper({
    db,
    clock,
    ...(deps.retentionMs !== undefined ? { retentionMs: deps.retentionMs } : {}),
    ...(logger ? { logger } : {}),
  });
  let notifications: EffectNotifications | null = null;
  const service = mergeQueueService({
    db,
    executor,
    adapters,
    ciOutcome,
    clock,
    newId,
    ...(logger ? { logger } : {}),
    auth: new Credentials(
      new TokenCache(db, clock),
      deps.ciIdentity ? new CiIdentity(db, deps.ciIdentity, clock) : null,
    ),
    directory: new ApiDirectory({ db, clock, adapters }),
    webhooks: new WebhookAdmin({
      db,
      clock,
      ...(policy ? { policy } : {}),
      onWork: () => webhooks.wake(),
    }),
    notifications: new NotifyAdmin({ db, clock, ...(policy ? { policy } : {}) }),
    tries,
    readQueues: async (repo, refs) => {
      await tries?.prsMoved(repo.id);
      return poller.refsMoved(repo, refs);
    },
  });
  const forgeObservations = new ForgeObservations({
    db,
    executor,
    service,
    tries,
    ciOutcome,
    adapters,
    clock,
    ...(logger ? { logger: logger.child({ part: 'forge-observations' }) } : {}),
  });
  return {
    service,
    executor,
    runner,
    poller,
    leases,
    ciOutcome,
    adapters,
    forgeObservations,
    webhooks,
    notifier,
    retention,
    tries,
    start() {
      leases.start();
      runner.start();
      poller.start();
      notifications = listenForEffects(
        db,
        (queueId) => {
          if (leases.holds(queueId)) runner.wake();
        },
        logger,
      );
      webhooks.start();
      notifier.start();
      retention.start();
      tries?.start();
    },
    async stop() {
      await notifications?.stop();
      notifications = null;
      await tries?.stop();
      await poller.stop();
      await runner.stop();
      await webhooks.stop();
      await notifier.stop();
      await retention.stop();
      await leases.stop();
    },
  };
}
