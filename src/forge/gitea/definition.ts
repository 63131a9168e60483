/** The gitea forge as greenline knows it (forge/definition.ts): `--forge gitea`, Gitea and Forgejo, docs/gitea.md. */
import { type ForgeDefinition, ForgeSettingsError } from '../definition.js';
import { repoWebUrl } from '../links.js';
import { GiteaForge, type GiteaRepositoryFacts } from './gitea-forge.js';
import { checkGiteaSettings, GITEA_SETTINGS, type GiteaSettings } from './settings.js';
import { giteaWebhook } from './webhook.js';

/** The server of a repository on HOST: giteaUrl when it is on that host, else https://HOST. */
const defaultGiteaUrl = ({ giteaUrl }: GiteaSettings, host: string): string =>
  giteaUrl !== null && new URL(giteaUrl).hostname === host ? giteaUrl : `https://${host}`;

declare module '../port.js' {
  interface ForgeNames {
    gitea: true;
  }
}

export const giteaForge: ForgeDefinition<'gitea', typeof GITEA_SETTINGS> = {
  name: 'gitea',
  settings: GITEA_SETTINGS,
  checkSettings: checkGiteaSettings,
  /**
   * Set up by giteaToken. Each repository is on the server it was connected with (its binding's
   * remote); giteaUrl is the server of any other. Git's work is the git forge's, handed in.
   */
  create(settings, { git, logger, requestTimeoutMs }) {
    if (settings.giteaToken === null) return null;
    return {
      port: new GiteaForge({ url: settings.giteaUrl ?? '', token: settings.giteaToken, git, logger, requestTimeoutMs }),
    };
  },
  webhook: giteaWebhook,
  links: {
    pr: (site, n) => `${repoWebUrl(site)}/pulls/${n}`,
    /** Beside where its PRs are shown (`<url>/<owner>/<name>/pulls/{n}` → `<url>/<owner>/<name>/commit/<sha>`). */
    commit(site, sha) {
      const pulls = /^(.*)\/pulls\/\{n\}$/.exec(site.pr_url_template ?? '');
      return `${pulls ? pulls[1] : repoWebUrl(site)}/commit/${sha}`;
    },
  },
  connect: {
    title: 'Gitea',
    accessHint: ' (giteaToken: the token of a user who may read and push to it)',
    namesServer: true,
    ownFlags: ['giteaUrl'],
    plan(flags, host, settings) {
      if (flags.remote)
        throw new ForgeSettingsError(
          '--remote is for --forge git; the gitea forge reaches the repository on its server: give that with --gitea-url',
        );
      if (flags.ciCommand)
        throw new ForgeSettingsError(
          '--ci-command is for --forge git; with --forge gitea the commit statuses your CI reports decide (see --required-status)',
        );
      const url = (flags.giteaUrl ?? defaultGiteaUrl(settings(), host)).replace(/\/+$/, '');
      if (!/^https?:\/\/[^/]/.test(url))
        throw new ForgeSettingsError(
          `--gitea-url must be an http(s) URL such as https://git.example.com, got "${flags.giteaUrl}"`,
        );
      // Where Gitea shows the PRs: its server may live under a path, which HOST/OWNER/NAME cannot say.
      return { remote: url, prUrlTemplate: (slug) => `${url}/${slug.split('/').slice(1).join('/')}/pulls/{n}` };
    },
    /**
     * The repository as Gitea (or Forgejo) shows it to giteaToken: refused when the token cannot read
     * it or may not push to it; otherwise its spelling and what was found (default branch, protection
     * rules and their required statuses).
     */
    async check({ binding, settings, context, spell }) {
      const { giteaToken } = settings();
      const slug = `${binding.repo.host}/${binding.repo.owner}/${binding.repo.name}`;
      if (giteaToken === null)
        throw new ForgeSettingsError(
          'Cannot read the repository from Gitea: no giteaToken (GREENLINE_GITEA_TOKEN) in this configuration; set it to the token greenline acts with (docs/gitea.md), or pass --no-remote-check to connect it anyway.',
        );
      const { git, logger, requestTimeoutMs } = await context();
      const gitea = new GiteaForge({ url: binding.remote!, token: giteaToken, git, logger, requestTimeoutMs });
      let facts: GiteaRepositoryFacts | null;
      try {
        facts = await gitea.repositoryFacts(binding);
      } catch (err) {
        const why = err instanceof Error ? err.message : String(err);
        throw new ForgeSettingsError(
          `Cannot read ${slug} from Gitea at ${binding.remote}: ${why}
Check --gitea-url and giteaToken, or pass --no-remote-check to connect it anyway.`,
        );
      }
      let spelled: ReturnType<typeof spell>;
      try {
        spelled = spell(facts);
      } catch (err) {
        throw new ForgeSettingsError(`${(err as Error).message}.
Or pass --no-remote-check to connect it anyway.`);
      }
      if (!facts?.canPush)
        throw new ForgeSettingsError(
          `The token (giteaToken) may read ${spelled.slug} but not push to it: greenline pushes test branches and merges. Give its user write access to the repository (a collaborator with Write, or a team), then connect again.`,
        );
      const missing = whatIsMissing(facts);
      if (missing.length > 0)
        throw new ForgeSettingsError(
          `${spelled.slug} is not set up for greenline yet:\n${missing.map((m) => `- ${m}`).join('\n')}\nThen connect again (or pass --no-remote-check to connect it anyway).`,
        );
      const rule = facts.defaultBranchRule;
      const found = [`default branch ${facts.defaultBranch}`];
      if (!rule?.protected) found.push('not protected');
      else
        found.push(
          `branch protection "${rule.rule}": ${rule.requiredContexts.length > 0 ? `requires the statuses ${rule.requiredContexts.join(', ')}` : 'requires no status'}`,
        );
      found.push(
        facts.allowManualMerge === null
          ? "manual merge: not shown by this server's API (Forgejo); it must be allowed (docs/gitea.md)"
          : 'manual merge allowed',
      );
      return { spelled, said: [`Found on Gitea: ${found.join('; ')}.`] };
    },
    where: (row, flags) => `server ${row.remote}${flags.remoteCheck ? '' : ', not read from it (--no-remote-check)'}`,
  },
};

/**
 * What the repository lacks for greenline, each with what to change: recording a PR merged needs the
 * "manually merged" style allowed, and landing needs the token's user to be let push to the default
 * branch when a rule protects it.
 */
function whatIsMissing(facts: GiteaRepositoryFacts): string[] {
  const missing: string[] = [];
  if (facts.allowManualMerge === false)
    missing.push(
      'It does not allow marking a PR merged manually, which is how greenline records each PR it lands (otherwise the PR stays open). In the repository: Settings → Repository → Pull Requests, tick "Enable Mark PR as manually merged" (allow_manual_merge) and save.',
    );
  const rule = facts.defaultBranchRule;
  if (rule?.protected && !rule.userCanPush)
    missing.push(
      `Branch protection "${rule.rule}" does not let the token's user push to ${facts.defaultBranch}, and greenline lands PRs by pushing the tested commit. In the repository: Settings → Branches → edit "${rule.rule}", enable push with an allowlist and add the user (or a team it is in).`,
    );
  return missing;
}
