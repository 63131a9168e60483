/**
 * The application's composition root: the per-queue executor, CI outcome, effect runner, forge
 * poller and the MergeQueueService, wired over one store and one set of adapters. `serve` and the
 * tests build the application through this one function, with different adapters.
 */
import { randomUUID } from 'node:crypto';
import type { Kysely } from 'kysely';
import type { Logger } from 'pino';
import type { CiPort, CiStatusSink, ForgePort, RepoBinding } from '../ports.js';
import type { Database } from '../store/database.js';
import type { Adapters } from './adapters.js';
import { CiOutcome } from './ci-outcome.js';
import type { Clock } from './clock.js';
import { EffectRunner } from './effect-runner.js';
import { ForgePoller } from './forge-poller.js';
import { GreenlineService } from './merge-queue-service.js';
import { QueueExecutor } from './queue-executor.js';
import { WebhookDeliveryWorker } from '../webhooks/delivery-worker.js';
import type { UrlPolicy } from '../webhooks/url-policy.js';

export interface AppDeps {
  db: Kysely<Database>;
  clock: Clock;
  forges: Partial<Record<RepoBinding['forge'], ForgePort>>;
  /** Builds the CI adapter around the sink where it must report statuses. */
  createCi: (onStatus: CiStatusSink) => CiPort;
  pollIntervalMs: number;
  newId?: () => string;
  logger?: Logger;
  /** Where webhooks may be sent (default: any host but link-local and cloud metadata addresses). */
  webhookPolicy?: UrlPolicy;
}

export interface App {
  service: GreenlineService;
  executor: QueueExecutor;
  runner: EffectRunner;
  poller: ForgePoller;
  ciOutcome: CiOutcome;
  adapters: Adapters;
  /** Delivers webhook messages. */
  webhooks: WebhookDeliveryWorker;
  /** Starts the effect runner, the poller and the webhook delivery worker. */
  start(): void;
  /** Stops them and waits for work in flight. */
  stop(): Promise<void>;
}

export function createApp(deps: AppDeps): App {
  const { db, clock, logger } = deps;
  const newId = deps.newId ?? randomUUID;
  const executor = new QueueExecutor({ db, newId, ...(logger ? { logger } : {}) });
  const ciOutcome = new CiOutcome({ db, executor, clock, ...(logger ? { logger } : {}) });
  const adapters: Adapters = { forges: deps.forges, ci: deps.createCi(ciOutcome.sink) };
  const policy = deps.webhookPolicy;
  const webhooks = new WebhookDeliveryWorker({ db, clock, ...(policy ? { policy } : {}), ...(logger ? { logger: logger.child({ part: 'webhooks' }) } : {}) });
  const runner = new EffectRunner({
    db, executor, adapters, ciOutcome, clock, onWebhookMessages: () => webhooks.wake(), ...(logger ? { logger } : {}),
  });
  executor.onEffects = () => runner.wake();
  const poller = new ForgePoller({ db, adapters, executor, clock, intervalMs: deps.pollIntervalMs, ...(logger ? { logger } : {}) });
  const service = new GreenlineService({
    db, executor, adapters, ciOutcome, clock, newId, onWebhookWork: () => webhooks.wake(),
    ...(policy ? { webhookPolicy: policy } : {}), ...(logger ? { logger } : {}),
  });
  return {
    service, executor, runner, poller, ciOutcome, adapters, webhooks,
    start() {
      runner.start();
      poller.start();
      webhooks.start();
    },
    async stop() {
      await poller.stop();
      await runner.stop();
      await webhooks.stop();
    },
  };
}
