/** `greenline health`: is the server up? (GET /healthz, no token needed.) Exit 0 when it answers ok. */
import { Command } from 'commander';
import { withClient, withClientOptions, type ClientFlags } from './client-options.js';
import { printJson, printLine } from './output.js';

export function healthCommand(): Command {
  return withClientOptions(new Command('health'))
    .description('check that a greenline server answers (for scripts and readiness checks)')
    .addHelpText(
      'after',
      `
Examples:
  $ greenline health --url http://127.0.0.1:8080
  $ until greenline health >/dev/null 2>&1; do sleep 1; done`,
    )
    .action((flags: ClientFlags) =>
      withClient(
        flags,
        async ({ client }) => {
          const health = await client.healthz();
          if (flags.json) printJson(health);
          else printLine(`greenline at ${client.url} is ${health.status}.`);
        },
        { needsToken: false },
      ),
    );
}
