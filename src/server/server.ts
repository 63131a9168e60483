/**
 * The greenline server: store, application (executor, effect runner, poller, service), adapters
 * (git forge, command CI — never the fakes) and the HTTP API. `start()` brings them up in that order
 * (removing first what a killed predecessor on the data dir left: CI processes, work trees);
 * `stop()` releases them in reverse.
 */
import type { FastifyInstance } from 'fastify';
import path, { isAbsolute } from 'node:path';
import { pino, type Logger } from 'pino';
import { createCommandCi, type CommandCi } from '../ci/command/index.js';
import { type ConfiguredForge, type ForgeContext, ForgeSettingsError } from '../forge/definition.js';
import { FORGES, forgeContext } from '../forges.js';
import { checkSigningKey, type SigningKey } from '../git/signing.js';
import type { ForgeWebhookRoute } from '../api/forge-webhook.js';
import { buildHttpApp } from '../api/build-app.js';
import { createApp, type App } from '../app/create-app.js';
import { TRY_CONTEXT } from '../app/try-builds.js';
import { oidcSettingsOf } from '../app/admin/oidc-verifier.js';
import { ForgeWebhooks } from '../app/observing/forge-webhooks.js';
import { bootstrap } from '../app/admin/org-admin.js';
import { ConfigError, type GreenlineConfig } from '../config/config.js';
import { systemClock } from '../lib/clock.js';
import { DAY_MS } from '../lib/time.js';
import { OperatorMetrics } from '../metrics/operator-metrics.js';
import { createOperatorMetricsServer, type OperatorMetricsServer } from '../metrics/operator-server.js';
import { redact } from '../lib/redact.js';
import { openStore, type Db } from '../store/connect.js';
import { UrlPolicy } from '../delivery/url-policy.js';

export interface Server {
  /**
   * Opens everything and listens; returns the bootstrap token when the database held no active API
   * token (see bootstrap), else null (and logs how to create one).
   */
  start(): Promise<{ bootstrapToken: string | null }>;
  stop(): Promise<void>;
  /** The address the server listens on (valid after start). */
  readonly url: string;
  /** The operator metrics endpoint's URL (valid after start); null when it is off. */
  readonly operatorMetricsUrl: string | null;
}

/**
 * How the logs are written: `logFormat`, where `auto` means pretty lines when they go to a terminal
 * (stderr, where the logs are written, is a TTY), JSON lines otherwise (a file, a pipe, a log collector).
 */
export function logFormatFor(stderrIsTTY: boolean, format: GreenlineConfig['logFormat']): 'pretty' | 'json' {
  if (format !== 'auto') return format;
  return stderrIsTTY ? 'pretty' : 'json';
}

/** The server's logger, on stderr (stdout carries the bootstrap token and the address). */
export function createLogger(
  config: Pick<GreenlineConfig, 'logLevel' | 'logFormat'>,
  stderrIsTTY = process.stderr.isTTY === true,
): Logger {
  const level = config.logLevel;
  return logFormatFor(stderrIsTTY, config.logFormat) === 'pretty'
    ? pino({ level, transport: { target: 'pino-pretty', options: { destination: 2, colorize: stderrIsTTY } } })
    : pino({ level }, pino.destination(2));
}

/** The log line of a start that created no token: how to create one, on this server's store. */
export function tokenHint(orgs: readonly string[], config: Pick<GreenlineConfig, 'dataDir' | 'databaseUrl'>): string {
  const org = orgs.length === 1 ? orgs[0]! : '<org>';
  const store =
    config.databaseUrl === null ? `--data-dir ${config.dataDir}` : `--database-url ${redact(config.databaseUrl)}`;
  return (
    `API tokens exist, so no bootstrap token is printed; create another with: greenline token create --org ${org} --name <label> ${store}` +
    (orgs.length === 1 ? '' : ` (organizations: ${orgs.join(', ')})`)
  );
}

/** A forge's adapter as the configuration sets it up (null: not set up); settings that cannot work are a ConfigError. */
export function createForge(
  forge: (typeof FORGES)[number],
  config: Readonly<GreenlineConfig>,
  context: ForgeContext,
): ConfiguredForge | null {
  try {
    return forge.create(config, context);
  } catch (err) {
    throw err instanceof ForgeSettingsError ? new ConfigError(err.message) : err;
  }
}

/**
 * `config` comes from `loadConfig`, which makes its paths absolute: git and the CI runner's commands
 * run in other directories, where a relative data dir would name another place.
 */
export function createServer(config: Readonly<GreenlineConfig>, logger: Logger = createLogger(config)): Server {
  if (!isAbsolute(config.dataDir)) {
    throw new Error(
      `dataDir must be an absolute path, got "${config.dataDir}": build the configuration with loadConfig, which resolves relative paths`,
    );
  }
  let db: Db | null = null;
  let app: App | null = null;
  let deliveries: ForgeWebhooks[] = [];
  let ci: CommandCi | null = null;
  let tryCi: CommandCi | null = null;
  let http: FastifyInstance | null = null;
  let operator: OperatorMetricsServer | null = null;
  let url = '';
  let operatorMetricsUrl: string | null = null;

  async function stop(): Promise<void> {
    await operator?.stop();
    await http?.close();
    for (const worker of deliveries) await worker.stop();
    await app?.stop();
    await ci?.stop();
    await tryCi?.stop();
    await db?.destroy();
    operator = null;
    http = null;
    app = null;
    deliveries = [];
    ci = null;
    tryCi = null;
    db = null;
  }

  return {
    get url() {
      return url;
    },
    get operatorMetricsUrl() {
      return operatorMetricsUrl;
    },
    async start() {
      try {
        // A key git cannot sign with is refused before anything is opened.
        const signingKey: SigningKey | null = config.gitSigningKey
          ? { format: config.gitSigningFormat, key: config.gitSigningKey }
          : null;
        const unsigned = signingKey ? await checkSigningKey(signingKey) : null;
        if (unsigned) throw new ConfigError(unsigned);
        db = await openStore(
          { databaseUrl: config.databaseUrl, dataDir: config.dataDir },
          { forMs: config.databaseStartupWaitSeconds * 1000, onWait: (sentence) => logger.warn(sentence) },
        );
        const boot = await bootstrap(db, systemClock.now());
        if (boot.token === null) logger.info(tokenHint(boot.orgs, config));
        const metrics = config.operatorMetricsPort === null ? null : new OperatorMetrics();
        const contextOf = forgeContext(
          config.dataDir,
          config.forgeRequestTimeoutSeconds * 1000,
          logger,
          metrics ? (answer) => metrics.observeGitHub(answer) : undefined,
          signingKey,
        );
        const forges = FORGES.flatMap((definition) => {
          const forge = createForge(definition, config, contextOf(definition.name));
          if (!forge) return [];
          const secret = definition.webhook?.secretOf(config) ?? null;
          if (definition.webhook && !secret) logger.warn(definition.webhook.withoutSecret);
          return [{ definition, forge, webhook: definition.webhook && secret ? definition.webhook : null, secret }];
        });
        app = createApp({
          db,
          clock: systemClock,
          forges: Object.fromEntries(forges.map(({ definition, forge }) => [definition.name, forge.port])),
          pollIntervalMs: config.pollIntervalSeconds * 1000,
          // With its webhook, a forge tells of changes: polling is the safety net.
          webhookForges: forges.filter((f) => f.webhook).map((f) => f.definition.name),
          retentionMs: config.retentionDays * DAY_MS,
          logger,
          webhookPolicy: new UrlPolicy(config.webhookAllowedHosts),
          publicUrl: config.publicUrl,
          ciIdentity: oidcSettingsOf(config),
          leaseTtlMs: config.leaseTtlSeconds * 1000,
          createCi: (onStatus) => {
            const command = createCommandCi({
              dataDir: config.dataDir,
              maxParallel: config.ciMaxParallel,
              onStatus,
              logger: logger.child({ part: 'ci' }),
            });
            ci = command;
            return command;
          },
          // Try builds run on a runner of their own (its own slots, work trees and records), so that
          // they never take the queue's.
          createTryCi: (onStatus) => {
            tryCi = createCommandCi({
              dataDir: path.join(config.dataDir, 'tries'),
              maxParallel: config.ciMaxParallel,
              onStatus,
              statusContext: TRY_CONTEXT,
              logger: logger.child({ part: 'try-ci' }),
            });
            return tryCi;
          },
        });
        // What a killed predecessor on this data dir left (CI processes, work trees) goes before new runs start.
        for (const runner of [ci, tryCi])
          await runner
            ?.cleanUp()
            .catch((err: unknown) =>
              logger.warn({ err }, 'leftovers of an earlier CI process not removed; the next takeover tries again'),
            );
        // Each forge's webhook deliveries are stored when they arrive and processed by its own worker.
        const routes: ForgeWebhookRoute[] = [];
        for (const { definition, forge, webhook, secret } of forges) {
          if (!webhook || !secret) continue;
          const worker = new ForgeWebhooks({
            db,
            clock: systemClock,
            observations: app.forgeObservations,
            forge: definition.name,
            translate: forge.translate ?? webhook.translate,
            ...(forge.observeAccess ? { observeAccess: forge.observeAccess } : {}),
            logger: logger.child({ part: `${definition.name}-deliveries` }),
          });
          deliveries.push(worker);
          routes.push({ webhook, secret, receive: worker.receive });
        }
        http = await buildHttpApp({
          service: app.service,
          logger,
          enumCase: config.enumCase,
          v2Limits: { perSecond: config.v2RateLimit, metricsPerSecond: config.v2MetricsRateLimit },
          ...(metrics ? { onRequestDone: (timing) => metrics.observeRequest(timing) } : {}),
          forgeWebhooks: routes,
        });
        app.start();
        for (const worker of deliveries) worker.start();
        const address = await http.listen({ port: config.port, host: config.host });
        url = address;
        if (metrics) {
          operator = createOperatorMetricsServer(metrics, {
            host: config.operatorMetricsHost,
            port: config.operatorMetricsPort!,
          });
          operatorMetricsUrl = await operator.start();
        }
        return { bootstrapToken: boot.token };
      } catch (err) {
        await stop().catch(() => undefined);
        throw err;
      }
    },
    stop,
  };
}
