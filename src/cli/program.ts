/** The `greenline` command line: every command, with --help and examples on each. */
import { Command } from 'commander';
import { createRequire } from 'node:module';
import { demoCommand } from './demo.js';
import { healthCommand } from './health.js';
import { metricsCommand } from './metrics.js';
import { prCommand } from './pr.js';
import { queueCommand } from './queue.js';
import { repoCommand } from './repo.js';
import { serveCommand } from './serve.js';
import { simulateCommand } from './simulate.js';
import { targetsCommand } from './targets.js';
import { testRunCommand } from './test-run.js';
import { tokenCommand } from './token.js';
import { auditCommand } from './audit.js';
import { webhookCommand } from './webhook.js';
import { notifyCommand } from './notify.js';
import { hookCommand } from './hook.js';
import type { ForgeCommandContext } from '../forge/definition.js';
import { FORGES } from '../forges.js';
import { configFrom } from './store-options.js';
import { UsageError } from './usage-error.js';

/** package.json sits two levels up from both src/cli/ and dist/cli/. */
const { version } = createRequire(import.meta.url)('../../package.json') as { version: string };

/** What a forge's own commands are given: the server's configuration as admin commands read it, and stdout. */
export function forgeCommandContext(out: (text: string) => void): ForgeCommandContext {
  return {
    config: ({ config, ...flags }) => configFrom({ ...flags, ...(config === undefined ? {} : { config }) }),
    usage: (message) => new UsageError(message),
    out,
  };
}

export function buildProgram(): Command {
  const program = new Command('greenline')
    .description("greenline: a self-hosted merge queue that speaks Trunk Merge Queue's v1 API")
    .version(version)
    .showHelpAfterError('(add --help for usage)')
    .addCommand(serveCommand())
    .addCommand(tokenCommand())
    .addCommand(repoCommand())
    .addCommand(webhookCommand())
    .addCommand(notifyCommand())
    .addCommand(auditCommand())
    .addCommand(simulateCommand())
    .addCommand(queueCommand())
    .addCommand(prCommand())
    .addCommand(targetsCommand())
    .addCommand(testRunCommand())
    .addCommand(metricsCommand())
    .addCommand(healthCommand())
    .addCommand(hookCommand())
    .addCommand(demoCommand())
    .addHelpText(
      'after',
      `
Examples:
  $ greenline serve --data-dir ./.greenline
  $ greenline token create --org acme --name ci
  $ greenline repo connect github.com/acme/web --org acme --forge git --remote /srv/git/web.git --ci-command "npm test"

Configuration: defaults <- greenline.yaml <- GREENLINE_* environment <- flags.`,
    );
  const forgeCli = forgeCommandContext((text) => process.stdout.write(text));
  for (const forge of FORGES) if (forge.command) program.addCommand(forge.command(forgeCli));
  return program;
}
