/** `greenline repo connect | list | disconnect`: repositories and their forge/CI binding. */
import { statSync } from 'node:fs';
import { Command, Option } from 'commander';
import { runGit } from '../git/git.js';
import { absoluteRemote, isLocalPath } from '../git/remote-path.js';
import {
  connectRepo,
  type ConnectRepoRequest,
  parseRepoSlug,
  disconnectRepo,
  forgeSpelling,
  pendingBinding,
  spellingOf,
  DEFAULT_PR_REF_PATTERN,
  DEFAULT_TEST_BRANCH_PREFIX,
} from '../app/admin/repo-admin.js';
import { cliCaller } from './cli-caller.js';
import { listRepos } from '../store/repos.js';
import { configFrom, orgsForListing, withStore, withStoreOptions, type StoreFlags } from './store-options.js';
import { UsageError } from './usage-error.js';

interface ConnectFlags extends StoreFlags {
  org: string;
  forge: ConnectRepoRequest['forge'];
  giteaUrl?: string;
  remote?: string;
  ciCommand?: string;
  prRefPattern?: string;
  prUrlTemplate?: string;
  testBranchPrefix?: string;
  requiredStatus?: string[];
  remoteCheck: boolean;
  installationId?: string;
}

/**
 * A remote git cannot list is refused at connect time, where the mistake is made and easy to fix.
 * `given` is the --remote value as typed, named when a local path was resolved from it.
 */
async function checkRemote(remote: string, given: string): Promise<void> {
  const resolvedFrom = remote === given ? '' : ` (--remote ${given} resolved against ${process.cwd()})`;
  if (isLocalPath(remote) && !isDirectory(remote)) {
    throw new UsageError(
      `Cannot reach the remote ${remote}${resolvedFrom}: no such directory.\n` +
        'Give the path of a git repository (e.g. a bare one made with `git init --bare`); a relative path is resolved against the current directory. ' +
        'Or pass --no-remote-check to connect it anyway.',
    );
  }
  try {
    await runGit(['ls-remote', '--heads', '--', remote], { timeoutMs: 60_000 });
  } catch (err) {
    const why = err instanceof Error ? err.message : String(err);
    const fix = isLocalPath(remote)
      ? 'Give the path of a git repository (e.g. a bare one made with `git init --bare`)'
      : "Check the URL and git's credentials for it";
    throw new UsageError(
      `Cannot reach the remote ${remote}${resolvedFrom}: ${why}\n${fix}, or pass --no-remote-check to connect it anyway.`,
    );
  }
}

/**
 * The repository as GitHub spells it (forgeSpelling), read through the github settings of the
 * server's configuration; null when none is set there (the name is then stored as given: names are
 * case-insensitive). A repository GitHub does not show is refused at connect time.
 */
async function gitHubSpelling(
  flags: StoreFlags,
  req: ConnectRepoRequest,
): Promise<Awaited<ReturnType<typeof forgeSpelling>> | null> {
  const config = configFrom({
    dataDir: flags.dataDir,
    databaseUrl: flags.databaseUrl,
    ...(flags.config ? { config: flags.config } : {}),
  });
  // Loaded here, not at the top: the other admin commands start without loading the server.
  const { createLogger, gitHubForgeOf } = await import('../server/server.js');
  const github = gitHubForgeOf(config, createLogger(config));
  if (!github) return null;
  try {
    return await forgeSpelling(github, req);
  } catch (err) {
    const why = err instanceof Error ? err.message : String(err);
    throw new UsageError(
      `Cannot read ${req.slug} from GitHub: ${why}\nOr pass --no-remote-check to connect it anyway.`,
    );
  }
}

/**
 * The repository as Gitea (or Forgejo) shows it to the configured giteaToken, read before connecting:
 * refused when the token cannot read it or may not push to it; otherwise its spelling (forgeSpelling)
 * and the lines that say what was found (default branch, protection rules and their required statuses).
 */
async function giteaFacts(
  flags: StoreFlags,
  req: ConnectRepoRequest,
): Promise<{ spelled: ReturnType<typeof spellingOf>; found: string[] }> {
  const config = configFrom({
    dataDir: flags.dataDir,
    databaseUrl: flags.databaseUrl,
    ...(flags.config ? { config: flags.config } : {}),
  });
  if (config.giteaToken === null)
    throw new UsageError(
      'Cannot read the repository from Gitea: no giteaToken (GREENLINE_GITEA_TOKEN) in this configuration; set it to the token greenline acts with (docs/gitea.md), or pass --no-remote-check to connect it anyway.',
    );
  // Loaded here, not at the top: the other admin commands start without loading the server.
  const { createLogger } = await import('../server/server.js');
  const { GiteaForge } = await import('../forge/gitea/index.js');
  const { createGitForge } = await import('../forge/git/index.js');
  const logger = createLogger(config);
  const gitea = new GiteaForge({
    url: req.remote!,
    token: config.giteaToken,
    git: createGitForge({ dataDir: config.dataDir, logger }),
    logger,
  });
  let facts: Awaited<ReturnType<typeof gitea.repositoryFacts>>;
  try {
    facts = await gitea.repositoryFacts(pendingBinding(req));
  } catch (err) {
    const why = err instanceof Error ? err.message : String(err);
    throw new UsageError(
      `Cannot read ${req.slug} from Gitea at ${req.remote}: ${why}
Check --gitea-url and giteaToken, or pass --no-remote-check to connect it anyway.`,
    );
  }
  let spelled: ReturnType<typeof spellingOf>;
  try {
    spelled = spellingOf(req, facts);
  } catch (err) {
    throw new UsageError(`${(err as Error).message}.
Or pass --no-remote-check to connect it anyway.`);
  }
  if (!facts?.canPush)
    throw new UsageError(
      `The token (giteaToken) may read ${spelled.slug} but not push to it: greenline pushes test branches and merges. Give its user write access to the repository (a collaborator with Write, or a team), then connect again.`,
    );
  const found = [`default branch ${facts.defaultBranch}`];
  if (facts.protections.length === 0) found.push('no branch protection rules');
  for (const p of facts.protections)
    found.push(
      `branch protection "${p.rule}": ${p.requiredContexts.length > 0 ? `requires the statuses ${p.requiredContexts.join(', ')}` : 'requires no status'}`,
    );
  return { spelled, found };
}

/** The server of a repository on HOST: the configuration's giteaUrl when it is on that host, else https://HOST. */
function defaultGiteaUrl(flags: StoreFlags, host: string): string {
  const { giteaUrl } = configFrom({
    dataDir: flags.dataDir,
    databaseUrl: flags.databaseUrl,
    ...(flags.config ? { config: flags.config } : {}),
  });
  return giteaUrl !== null && new URL(giteaUrl).hostname === host ? giteaUrl : `https://${host}`;
}

function isDirectory(p: string): boolean {
  try {
    return statSync(p).isDirectory();
  } catch {
    return false;
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
    .addOption(
      new Option('--forge <forge>', 'where the repository lives')
        .choices(['git', 'github', 'gitea'])
        .makeOptionMandatory(),
    )
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
The github forge needs the server configured for GitHub (githubAppId + githubPrivateKeyPath, or
githubToken; see docs/github.md). Its required statuses default to the branch's protection rules.
With that configuration here, the repository is read from GitHub and stored as GitHub spells it
(names are case-insensitive: github.com/acme/web connects github.com/Acme/Web when that is its name).
The gitea forge (Gitea, Forgejo, Codeberg) needs giteaToken (and giteaUrl to serve it; see
docs/gitea.md). Connecting reads the repository with that token: it must read and push; what was
found (its spelling of the name, default branch, protection rules and their required statuses) is
printed. HOST is the server's host name without a port; --gitea-url gives the full address.`,
    )
    .action(async (slug: string, opts: ConnectFlags) => {
      let installationId: number | undefined;
      const remote = opts.remote === undefined ? null : absoluteRemote(opts.remote, process.cwd());
      if (opts.giteaUrl !== undefined && opts.forge !== 'gitea')
        throw new UsageError('--gitea-url is for --forge gitea');
      let giteaUrl: string | null = null;
      if (opts.forge === 'gitea') {
        if (opts.remote)
          throw new UsageError(
            '--remote is for --forge git; the gitea forge reaches the repository on its server: give that with --gitea-url',
          );
        if (opts.ciCommand)
          throw new UsageError(
            '--ci-command is for --forge git; with --forge gitea the commit statuses your CI reports decide (see --required-status)',
          );
        if (opts.installationId !== undefined) throw new UsageError('--installation-id is for --forge github');
        giteaUrl = (opts.giteaUrl ?? defaultGiteaUrl(opts, parseRepoSlug(slug).host)).replace(/\/+$/, '');
        if (!/^https?:\/\/[^/]/.test(giteaUrl))
          throw new UsageError(
            `--gitea-url must be an http(s) URL such as https://git.example.com, got "${opts.giteaUrl}"`,
          );
      } else if (opts.forge === 'github') {
        if (opts.remote)
          throw new UsageError(
            '--remote is for --forge git; the github forge reaches the repository through the GitHub API the server is configured for',
          );
        if (opts.ciCommand)
          throw new UsageError(
            '--ci-command is for --forge git; with --forge github the checks of your GitHub CI decide (see --required-status)',
          );
        if (opts.installationId !== undefined) {
          installationId = Number(opts.installationId);
          if (!/^\d+$/.test(opts.installationId) || !Number.isSafeInteger(installationId) || installationId < 1) {
            throw new UsageError(
              `--installation-id must be a positive integer (the number at the end of the installation's settings URL), got "${opts.installationId}"`,
            );
          }
        }
      } else {
        if (opts.installationId !== undefined) throw new UsageError('--installation-id is for --forge github');
        if (!opts.remote)
          throw new UsageError('--forge git needs --remote <url>: a path or URL git can fetch from and push to');
        if (opts.remoteCheck) await checkRemote(remote!, opts.remote);
      }
      const req: ConnectRepoRequest = {
        org: opts.org,
        slug,
        forge: opts.forge,
        remote: giteaUrl ?? remote,
        ciCommand: opts.ciCommand ?? null,
        ...(opts.prRefPattern ? { prRefPattern: opts.prRefPattern } : {}),
        ...(opts.prUrlTemplate ? { prUrlTemplate: opts.prUrlTemplate } : {}),
        ...(opts.testBranchPrefix ? { testBranchPrefix: opts.testBranchPrefix } : {}),
        ...(opts.requiredStatus ? { requiredStatuses: opts.requiredStatus } : {}),
        ...(installationId !== undefined ? { forgeData: { installationId } } : {}),
      };
      const gitea = opts.forge === 'gitea' && opts.remoteCheck ? await giteaFacts(opts, req) : null;
      const spelled =
        opts.forge === 'github' && opts.remoteCheck ? await gitHubSpelling(opts, req) : (gitea?.spelled ?? null);
      const connectAs = spelled?.slug ?? slug;
      await withStore(opts, async (db) => {
        const row = await connectRepo(
          db,
          {
            ...req,
            slug: connectAs,
            // Where Gitea shows the PRs: its server may live under a path, which HOST/OWNER/NAME cannot say.
            ...(giteaUrl && !req.prUrlTemplate
              ? { prUrlTemplate: `${giteaUrl}/${connectAs.split('/').slice(1).join('/')}/pulls/{n}` }
              : {}),
          },
          Date.now(),
          cliCaller(),
        );
        if (spelled?.respelled) process.stdout.write(`${spelled.respelled}.\n`);
        if (gitea) process.stdout.write(`Found on Gitea: ${gitea.found.join('; ')}.\n`);
        if (opts.forge === 'github' && opts.remoteCheck && !spelled)
          process.stdout.write(
            'Not read from GitHub (no githubAppId and githubPrivateKeyPath, nor githubToken, in this configuration): stored as given.\n',
          );
        const where =
          row.forge === 'github'
            ? `installation ${installationId ?? 'looked up by the GitHub App'}${spelled?.defaultBranch ? `, default branch ${spelled.defaultBranch}` : ''}`
            : row.forge === 'gitea'
              ? `server ${row.remote}${opts.remoteCheck ? '' : ', not read from it (--no-remote-check)'}`
              : `remote ${row.remote}${row.remote === opts.remote ? '' : `, resolved from ${opts.remote}`}`;
        process.stdout.write(
          `Connected ${row.host}/${row.owner}/${row.name} to organization ${opts.org} (forge ${row.forge}, ${where}).\n`,
        );
      });
    });

  withStoreOptions(repo.command('list'))
    .description('list connected repositories')
    .option('--org <org>', 'only the repositories of this organization')
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
