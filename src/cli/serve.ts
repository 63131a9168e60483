/** `greenline serve`: runs the server until SIGINT or SIGTERM. */
import { Command, Option } from 'commander';
import { configFrom, withStoreOptions } from './store-options.js';

interface ServeFlags {
  port?: string;
  host?: string;
  dataDir?: string;
  databaseUrl?: string;
  config?: string;
  enumCase?: string;
  logLevel?: string;
  logFormat?: string;
  pollInterval?: string;
  retentionDays?: string;
  ciMaxParallel?: string;
  leaseTtl?: string;
}

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
  return withStoreOptions(new Command('serve'))
    .description('run the merge queue server (on a start where the database holds no active API token: creates one for org "default", created when missing, and prints it once)')
    .option('--port <port>', 'TCP port to listen on (default 8080; 0 = any free port)')
    .option('--host <host>', 'address to listen on (default 127.0.0.1)')
    .addOption(new Option('--enum-case <case>', 'spelling of states on the wire').choices(['upper', 'lower']))
    .addOption(new Option('--log-level <level>', 'log level').choices(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']))
    .addOption(new Option('--log-format <format>', 'logs on stderr: pretty lines, JSON lines, or auto (pretty on a terminal, JSON otherwise; the default)').choices(['auto', 'pretty', 'json']))
    .option('--poll-interval <seconds>', 'how often to read target branches and queued PRs from the forge (default 15)')
    .option('--ci-max-parallel <n>', 'how many built-in CI commands run at once (default 2)')
    .option('--lease-ttl <seconds>', 'length of a queue lease: when an instance dies, another takes its queues over within it (default 15)')
    .option('--retention-days <days>', 'days finished work records (effects, webhook deliveries, queue events) are kept (default 30)')
    .addHelpText('after', `
Examples:
  $ greenline serve
  $ greenline serve --port 9000 --data-dir /var/lib/greenline
  $ greenline serve --database-url postgres://greenline@db.internal/greenline
  $ greenline serve --database-url postgres://greenline@db.internal/greenline --lease-ttl 10   (one of several instances)
  $ GREENLINE_ENUM_CASE=lower greenline serve`)
    .action(async (flags: ServeFlags) => {
      const config = configFrom({
        port: flags.port, host: flags.host, dataDir: flags.dataDir, databaseUrl: flags.databaseUrl,
        enumCase: flags.enumCase, logLevel: flags.logLevel, logFormat: flags.logFormat, pollIntervalSeconds: flags.pollInterval,
        ciMaxParallel: flags.ciMaxParallel, leaseTtlSeconds: flags.leaseTtl, retentionDays: flags.retentionDays, ...(flags.config ? { config: flags.config } : {}),
      });
      // Loaded here, not at the top: the admin commands start without loading the server.
      const { createLogger, createServer } = await import('../server.js');
      const logger = createLogger(config);
      const server = createServer(config, logger);
      const { bootstrapToken } = await server.start();
      if (bootstrapToken) process.stdout.write(bootstrapBanner(bootstrapToken));
      process.stdout.write(`greenline listening on ${server.url}\n`);
      await new Promise<void>((resolve) => {
        const shutdown = (signal: string) => {
          logger.info({ signal }, 'stopping');
          server.stop().catch((err: unknown) => logger.error({ err }, 'stop failed')).finally(resolve);
        };
        process.once('SIGINT', () => shutdown('SIGINT'));
        process.once('SIGTERM', () => shutdown('SIGTERM'));
      });
      process.stdout.write('greenline stopped\n');
    });
}
