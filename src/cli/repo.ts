/** `greenline repo connect | list | disconnect`: repositories and their forge/CI binding. */
import { Command, Option } from 'commander';
import { absoluteRemote } from '../git/remote-path.js';
import {
  connectRepo,
  type ConnectRepoRequest,
  parseRepoSlug,
  disconnectRepo,
  pendingBinding,
  spellingOf,
  DEFAULT_PR_REF_PATTERN,
  DEFAULT_TEST_BRANCH_PREFIX,
} from '../app/admin/repo-admin.js';
import type { GreenlineConfig } from '../config/config.js';
import { type ConnectFlags, type ForgeContext, ForgeSettingsError } from '../forge/definition.js';
import { FORGE_NAMES, FORGES, forgeContext, forgeNamed, type ForgeName } from '../forges.js';
import { cliCaller } from './cli-caller.js';
import { listRepos } from '../store/repos.js';
import { configFrom, orgsForListing, withStore, withStoreOptions, type StoreFlags } from './store-options.js';
import { UsageError } from './usage-error.js';

interface ConnectOptions extends StoreFlags {
  org: string;
  forge: ForgeName;
  giteaUrl?: string;
  gitlabUrl?: string;
  remote?: string;
  ciCommand?: string;
  prRefPattern?: string;
  prUrlTemplate?: string;
  testBranchPrefix?: string;
  requiredStatus?: string[];
  remoteCheck: boolean;
  installationId?: string;
}

/** The connect flags another forge than `forge` owns, given anyway: named with the forge they are for. */
function foreignFlag(forge: ForgeName, flags: ConnectFlags): string | null {
  for (const other of FORGES) {
    if (other.name === forge) continue;
    for (const flag of other.connect.ownFlags ?? [])
      if (flags[flag] !== undefined)
        return `--${flag.replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`)} is for --forge ${other.name}`;
  }
  return null;
}

/** What the forge's connect check needs from the server's configuration, read once and only when asked. */
function configOnce(flags: ConnectOptions): { settings: () => GreenlineConfig; context: () => Promise<ForgeContext> } {
  let config: GreenlineConfig | undefined;
  const settings = () => {
    config ??= configFrom({
      dataDir: flags.dataDir,
      databaseUrl: flags.databaseUrl,
      ...(flags.config ? { config: flags.config } : {}),
    });
    return config;
  };
  return {
    settings,
    async context() {
      // Loaded here, not at the top: the other admin commands start without loading the server.
      const { createLogger } = await import('../server/server.js');
      const logger = createLogger(settings());
      return {
        ...forgeContext(settings().dataDir, settings().forgeRequestTimeoutSeconds * 1000, logger)(flags.forge),
        logger,
      };
    },
  };
}

/** A forge's refusal of the flags or of the repository, as the command's usage error. */
async function usage<T>(work: () => T | Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (err) {
    throw err instanceof ForgeSettingsError ? new UsageError(err.message) : err;
  }
}

export function repoCommand(): Command {
  const repo = new Command('repo').description('connect repositories to an organization').addHelpText(
    'after',
    `
Examples:
  $ greenline repo connect github.com/acme/web --org acme --forge git --remote /srv/git/web.git --ci-command "npm test"
  $ greenline repo list
  $ greenline repo disconnect github.com/acme/web`,
  );

  withStoreOptions(repo.command('connect'))
    .description('connect HOST/OWNER/NAME to an organization (created if missing)')
    .argument('<repo>', 'repository as HOST/OWNER/NAME, e.g. github.com/acme/web')
    .requiredOption('--org <org>', 'organization the repository belongs to')
    .addOption(new Option('--forge <forge>', 'where the repository lives').choices(FORGE_NAMES).makeOptionMandatory())
    .option(
      '--remote <url>',
      'git remote: a path (a relative one is resolved against the current directory and stored absolute) or any URL git understands (required for --forge git)',
    )
    .option('--ci-command <cmd>', 'built-in CI: command run on a checkout of each test commit (status "greenline/ci")')
    .option('--pr-ref-pattern <pattern>', 'ref of PR heads, {n} = PR number', DEFAULT_PR_REF_PATTERN)
    .option(
      '--pr-url-template <url>',
      "where a PR is shown on its forge, {n} = PR number: the dashboard and chat notifications link it (without it: GitHub's form on GitHub, no link on a git forge)",
    )
    .option('--test-branch-prefix <prefix>', 'prefix of test branch names', DEFAULT_TEST_BRANCH_PREFIX)
    .option(
      '--required-status <name...>',
      'statuses a test commit needs when the queue sets none (default: greenline/ci with --ci-command)',
    )
    .option(
      '--no-remote-check',
      'connect without first checking that the repository can be reached (git: the remote; github and gitea: reading it from the forge, whose spelling of the name is then stored)',
    )
    .option(
      '--installation-id <n>',
      'GitHub App installation of the repository (--forge github; default: looked up by the app)',
    )
    .option(
      '--gitea-url <url>',
      'web address of the Gitea or Forgejo server the repository is on (--forge gitea; default: giteaUrl when it is on HOST, else https://HOST)',
    )
    .option(
      '--gitlab-url <url>',
      'web address of the GitLab server the project is on (--forge gitlab; default: gitlabUrl when it is on HOST, else https://HOST)',
    )
    .addHelpText(
      'after',
      `
Examples:
  $ greenline repo connect github.com/acme/web --org acme --forge git --remote https://git.example.com/acme/web.git --ci-command "make test"
  $ greenline repo connect example.com/team/api --org team --forge git --remote /srv/git/api.git --pr-ref-pattern "refs/heads/pr/{n}" --required-status build lint
  $ greenline repo connect git.example.com/team/api --org team --forge git --remote /srv/git/api.git --pr-url-template "https://git.example.com/team/api/pulls/{n}"
  $ greenline repo connect github.com/acme/web --org acme --forge github --installation-id 12345678
  $ greenline repo connect git.example.com/acme/web --org acme --forge gitea
  $ greenline repo connect codeberg.org/acme/web --org acme --forge gitea --gitea-url https://codeberg.org
  $ greenline repo connect localhost/acme/web --org acme --forge gitea --gitea-url http://localhost:3000
  $ greenline repo connect gitlab.example.com/group/sub/project --org acme --forge gitlab
  $ greenline repo connect gitlab.com/acme/web --org acme --forge gitlab --gitlab-url https://gitlab.com
The github forge needs the server configured for GitHub (githubAppId + githubPrivateKeyPath, or
githubToken; see docs/github.md). Its required statuses default to the branch's protection rules.
With that configuration here, the repository is read from GitHub and stored as GitHub spells it
(names are case-insensitive: github.com/acme/web connects github.com/Acme/Web when that is its name).
The gitea forge (Gitea, Forgejo, Codeberg) needs giteaToken (and giteaUrl to serve it; see
docs/gitea.md). Connecting reads the repository with that token: it must read and push; what was
found (its spelling of the name, default branch, protection rules and their required statuses) is
printed. HOST is the server's host name without a port; --gitea-url gives the full address.
The gitlab forge (GitLab CE/EE, gitlab.com) needs gitlabToken (see docs/gitlab.md); a project of a
subgroup is HOST/GROUP/SUBGROUP/PROJECT. Connecting reads the project: its default branch, merge
method, squash option, "Pipelines must succeed" and protected branches are printed, and it is refused
when the token's user may not push to the default branch.`,
    )
    .action(async (slug: string, opts: ConnectOptions) => {
      const forge = forgeNamed(opts.forge);
      const flags: ConnectFlags = {
        ...(opts.remote !== undefined
          ? { remote: absoluteRemote(opts.remote, process.cwd()), remoteGiven: opts.remote }
          : {}),
        ...(opts.ciCommand !== undefined ? { ciCommand: opts.ciCommand } : {}),
        ...(opts.installationId !== undefined ? { installationId: opts.installationId } : {}),
        ...(opts.giteaUrl !== undefined ? { giteaUrl: opts.giteaUrl } : {}),
        ...(opts.gitlabUrl !== undefined ? { gitlabUrl: opts.gitlabUrl } : {}),
        remoteCheck: opts.remoteCheck,
      };
      const foreign = foreignFlag(opts.forge, flags);
      if (foreign) throw new UsageError(foreign);
      const config = configOnce(opts);
      const plan = await usage(() => forge.connect.plan(flags, parseRepoSlug(slug).host, config.settings));
      const req: ConnectRepoRequest = {
        org: opts.org,
        slug,
        forge: opts.forge,
        remote: plan.remote,
        ciCommand: opts.ciCommand ?? null,
        ...(opts.prRefPattern ? { prRefPattern: opts.prRefPattern } : {}),
        ...(opts.prUrlTemplate ? { prUrlTemplate: opts.prUrlTemplate } : {}),
        ...(opts.testBranchPrefix ? { testBranchPrefix: opts.testBranchPrefix } : {}),
        ...(opts.requiredStatus ? { requiredStatuses: opts.requiredStatus } : {}),
        ...(plan.forgeData !== undefined ? { forgeData: plan.forgeData } : {}),
      };
      const checked = opts.remoteCheck
        ? await usage(() =>
            forge.connect.check({
              flags,
              binding: pendingBinding(req),
              settings: config.settings,
              context: config.context,
              spell: (described) => spellingOf(req, described),
            }),
          )
        : { spelled: null, said: [] };
      const connectAs = checked.spelled?.slug ?? slug;
      await withStore(opts, async (db) => {
        const row = await connectRepo(
          db,
          {
            ...req,
            slug: connectAs,
            ...(plan.prUrlTemplate && !req.prUrlTemplate ? { prUrlTemplate: plan.prUrlTemplate(connectAs) } : {}),
          },
          Date.now(),
          cliCaller(),
        );
        if (checked.spelled?.respelled) process.stdout.write(`${checked.spelled.respelled}.\n`);
        for (const sentence of checked.said) process.stdout.write(`${sentence}\n`);
        const where = forge.connect.where(row, flags, plan, checked.spelled);
        process.stdout.write(
          `Connected ${row.host}/${row.owner}/${row.name} to organization ${opts.org} (forge ${row.forge}, ${where}).\n`,
        );
      });
    });

  withStoreOptions(repo.command('list'))
    .description('list connected repositories')
    .option('--org <org>', 'only the repositories of this organization')
    .option(
      '--gitlab-url <url>',
      'web address of the GitLab server the project is on (--forge gitlab; default: gitlabUrl when it is on HOST, else https://HOST)',
    )
    .addHelpText(
      'after',
      `
Examples:
  $ greenline repo list
  $ greenline repo list --org acme --database-url postgres://greenline@db.internal/greenline`,
    )
    .action(async (opts: StoreFlags & { org?: string }) => {
      await withStore(opts, async (db) => {
        const orgs = await orgsForListing(db, opts.org);
        const rows = await listRepos(db, orgs.filter);
        if (rows.length === 0) process.stdout.write('No repositories connected.\n');
        for (const r of rows) {
          const orgName = await orgs.nameOf(r.org_id);
          const ci = r.ci_command ? `ci: ${r.ci_command}` : 'ci: external';
          process.stdout.write(
            `${r.host}/${r.owner}/${r.name}  org ${orgName}  forge ${r.forge}  remote ${r.remote ?? '-'}  ${ci}\n`,
          );
        }
      });
    });

  withStoreOptions(repo.command('disconnect'))
    .description('disconnect a repository and delete its queues (refused while a queue holds pull requests)')
    .argument('<repo>', 'repository as HOST/OWNER/NAME')
    .addHelpText(
      'after',
      `
Example:
  $ greenline repo disconnect github.com/acme/web`,
    )
    .action(async (slug: string, opts: StoreFlags) => {
      await withStore(opts, async (db) => {
        await disconnectRepo(db, slug, cliCaller());
        process.stdout.write(`Disconnected ${slug}.\n`);
      });
    });
  return repo;
}
