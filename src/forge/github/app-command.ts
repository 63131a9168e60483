/**
 * `greenline github app create`: a GitHub App for greenline in one step (app-manifest.ts, app-flow.ts).
 * The App is kept in the data directory, where `serve` reads it, or printed with --print.
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { Command } from 'commander';
import type { ForgeCommandContext } from '../definition.js';
import {
  APP_EVENTS,
  APP_KEY_FILE,
  APP_PERMISSIONS,
  APP_SETTINGS_FILE,
  type CreatedApp,
  gitHubSite,
  installUrl,
  printedApp,
  storeApp,
} from './app-manifest.js';
import { runAppFlow } from './app-flow.js';

interface CreateFlags {
  org?: string;
  url?: string;
  name?: string;
  githubUrl: string;
  port: string;
  print?: boolean;
  config?: string;
  dataDir?: string;
}

/** What the command is given: the CLI's, and the fetch GitHub is reached through (a double in tests). */
export type AppCommandDeps = ForgeCommandContext & { fetch?: typeof fetch };

const PERMISSIONS = Object.entries(APP_PERMISSIONS)
  .map(([k, v]) => `${k}: ${v}`)
  .join(', ');

function parsePort(text: string, usage: (message: string) => Error): number {
  const port = Number(text);
  if (!/^\d+$/.test(text) || port > 65_535)
    throw usage(`--port must be a port number from 0 (any free one) to 65535, got "${text}"`);
  return port;
}

/** The `github` command: what greenline does on GitHub that is not a queue's. */
export function githubCommand(deps: AppCommandDeps): Command {
  const github = new Command('github').description('set greenline up on GitHub');
  const app = github.command('app').description("greenline's GitHub App");
  app
    .command('create')
    .description(
      "register a GitHub App for greenline through GitHub's App manifest flow, and keep its id, private key and webhook secret where `serve` reads them",
    )
    .option('--org <org>', 'the organization that owns the App (default: your own account)')
    .option('--url <url>', "greenline's address as GitHub reaches it (default: the publicUrl setting)")
    .option('--name <name>', 'the App\'s name on GitHub, unique there (default: "greenline <org>")')
    .option('--github-url <url>', 'the web address of GitHub or of your GitHub Enterprise Server', 'https://github.com')
    .option('--port <port>', 'local port your browser comes back to (0: any free one)', '0')
    .option('--print', 'print the settings and the private key for a secret store instead of keeping them')
    .option('--data-dir <dir>', "the server's data directory, as `serve` is given it (default: the dataDir setting)")
    .option('--config <file>', 'configuration file (default: greenline.yaml in the current directory, if present)')
    .addHelpText(
      'after',
      `
The command serves a page on 127.0.0.1 and prints its address: open it in a browser signed in to
GitHub (as an owner of --org), press the button, confirm the App's name on GitHub. GitHub sends the
browser back with a code, which the command exchanges for the App within the hour GitHub allows.

The App gets the permissions
  ${PERMISSIONS};
the events ${APP_EVENTS.join(', ')};
its webhook at <url>/webhooks/github with a secret GitHub generates.

It is kept in the data directory as ${APP_SETTINGS_FILE} and ${APP_KEY_FILE} (readable by you alone),
which \`greenline serve\` reads with the same --data-dir; settings given in greenline.yaml, the
environment or flags win over them. With --print nothing is written: the settings are printed as
environment variables, with the private key, for your secret store. Then install the App on the
repositories the queue manages (the command prints where). See docs/github.md.

Examples:
  $ greenline github app create --org acme --url https://greenline.example.com
  $ greenline github app create --org acme --url https://greenline.example.com --github-url https://github.example.com
  $ greenline github app create --org acme --url https://greenline.example.com --print`,
    )
    .action(async (flags: CreateFlags) => {
      const cfg = deps.config({
        ...(flags.dataDir === undefined ? {} : { dataDir: flags.dataDir }),
        ...(flags.config === undefined ? {} : { config: flags.config }),
      });
      const url = flags.url ?? cfg.publicUrl;
      if (url === null || url === undefined)
        throw deps.usage(
          "--url is required (greenline's address as GitHub reaches it, such as https://greenline.example.com), or set publicUrl",
        );
      if (!/^https?:\/\/[^/]/.test(url))
        throw deps.usage(`--url must be an http(s) address such as https://greenline.example.com, got "${url}"`);
      const port = parsePort(flags.port, deps.usage);
      const site = gitHubSite(flags.githubUrl);
      if (!flags.print) {
        const there = [APP_SETTINGS_FILE, APP_KEY_FILE].map((f) => join(cfg.dataDir, f)).filter((p) => existsSync(p));
        if (there.length > 0)
          throw deps.usage(
            `${there.join(' and ')} already ${there.length > 1 ? 'exist' : 'exists'}: an App is kept there. Remove ${there.length > 1 ? 'them' : 'it'} to register another, or pass --print.`,
          );
      }
      const org = flags.org ?? null;
      const created = await runAppFlow({
        site,
        org,
        name: flags.name ?? (org === null ? 'greenline' : `greenline ${org}`),
        url,
        port,
        fetch: deps.fetch ?? fetch,
        requestTimeoutMs: cfg.forgeRequestTimeoutSeconds * 1000,
        onReady: (page) =>
          deps.out(`Open ${page} in a browser signed in to ${site.web}, and register the App from there.\n`),
      });
      deps.out(kept(created, flags.print ? null : storeApp(cfg.dataDir, created)));
    });
  return github;
}

/** What the command says once the App is registered: where it is, and how to install it. */
function kept(app: CreatedApp, settingsFile: string | null): string {
  const where =
    settingsFile === null
      ? `Keep these in your secret store:\n${printedApp(app)}`
      : `Kept in ${settingsFile} and its key beside it: \`greenline serve\` with the same data directory authenticates as the App${app.webhookSecret === null ? '' : ' and serves /webhooks/github'}.\n`;
  return `Registered the GitHub App ${app.slug} (id ${app.id}${app.owner ? `, owned by ${app.owner}` : ''}).\n${where}Install it on the repositories the queue manages: ${installUrl(app)}\nThen connect each: greenline repo connect <host>/<owner>/<repo> --org <org> --forge github\n`;
}
