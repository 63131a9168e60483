/** `greenline serve`: runs the server until SIGINT or SIGTERM. */
import { Command } from 'commander';
import { CONFIG_KEYS, settingOf } from '../config/schema.js';
import { configFrom, settingFlags, withSettingOptions, withStoreOptions } from './store-options.js';

/** Every server setting that has a flag (config-schema.ts); --data-dir and --database-url are the store options. */
const SERVE_SETTINGS = CONFIG_KEYS.filter(
  (k) => settingOf(k).flag !== undefined && k !== 'dataDir' && k !== 'databaseUrl',
);

function bootstrapBanner(token: string): string {
  return [
    '',
    '==================== greenline bootstrap API token ====================',
    'Organization: default',
    `Token: ${token}`,
    'This token is shown ONCE. Store it now; send it in the x-api-token header.',
    'Create more with: greenline token create --org default --name <label>',
    '=======================================================================',
    '',
  ].join('\n');
}

export function serveCommand(): Command {
  return withSettingOptions(withStoreOptions(new Command('serve')), SERVE_SETTINGS)
    .description(
      'run the merge queue server (on a start where the database holds no active API token: creates one for org "default", created when missing, and prints it once)',
    )
    .addHelpText(
      'after',
      `
Examples:
  $ greenline serve
  $ greenline serve --port 9000 --data-dir /var/lib/greenline
  $ greenline serve --database-url postgres://greenline@db.internal/greenline
  $ greenline serve --database-url postgres://greenline@db.internal/greenline --lease-ttl 10   (one of several instances)
  $ GREENLINE_ENUM_CASE=lower greenline serve`,
    )
    .action(async (flags: Record<string, unknown> & { config?: string }) => {
      const config = configFrom({
        ...settingFlags(flags, ['dataDir', 'databaseUrl', ...SERVE_SETTINGS]),
        ...(flags.config ? { config: flags.config } : {}),
      });
      // Loaded here, not at the top: the admin commands start without loading the server.
      const { createLogger, createServer } = await import('../server/server.js');
      const logger = createLogger(config);
      const server = createServer(config, logger);
      const { bootstrapToken } = await server.start();
      if (bootstrapToken) process.stdout.write(bootstrapBanner(bootstrapToken));
      process.stdout.write(`greenline listening on ${server.url}\n`);
      await new Promise<void>((resolve) => {
        const shutdown = (signal: string) => {
          logger.info({ signal }, 'stopping');
          server
            .stop()
            .catch((err: unknown) => logger.error({ err }, 'stop failed'))
            .finally(resolve);
        };
        process.once('SIGINT', () => shutdown('SIGINT'));
        process.once('SIGTERM', () => shutdown('SIGTERM'));
      });
      process.stdout.write('greenline stopped\n');
    });
}
