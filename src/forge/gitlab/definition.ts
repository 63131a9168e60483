/** The gitlab forge as greenline knows it (forge/definition.ts): `--forge gitlab`, GitLab CE/EE and gitlab.com, docs/gitlab.md. */
import { type ForgeDefinition, ForgeSettingsError } from '../definition.js';
import { GitlabForge, type GitlabProjectFacts } from './gitlab-forge.js';
import { mayMerge } from './repository.js';
import { GITLAB_SETTINGS, type GitlabSettings } from './settings.js';
import { gitlabWebhook } from './webhook.js';

declare module '../port.js' {
  interface ForgeNames {
    gitlab: true;
  }
}

/** The server of a project on HOST: gitlabUrl when it is on that host, else https://HOST. */
const defaultGitlabUrl = ({ gitlabUrl }: GitlabSettings, host: string): string =>
  new URL(gitlabUrl).hostname === host ? gitlabUrl : `https://${host}`;

/** Where the project's pages are: `<server>/<group>/<sub>/<project>`. */
const projectWeb = (site: { host: string; owner: string; name: string; pr_url_template?: string | null }): string => {
  const mrs = /^(.*)\/-\/merge_requests\/\{n\}$/.exec(site.pr_url_template ?? '');
  return mrs ? mrs[1]! : `https://${site.host}/${site.owner}/${site.name}`;
};

const ROLE: Record<number, string> = { 0: 'no one', 30: 'Developers', 40: 'Maintainers', 60: 'Administrators' };

export const gitlabForge: ForgeDefinition<'gitlab', typeof GITLAB_SETTINGS> = {
  name: 'gitlab',
  settings: GITLAB_SETTINGS,
  /** Set up by gitlabToken. Each project is on the server it was connected with (its binding's remote). */
  create(settings, { git, logger, requestTimeoutMs }) {
    if (settings.gitlabToken === null) return null;
    const port = new GitlabForge({
      url: settings.gitlabUrl,
      token: settings.gitlabToken,
      commandRole: settings.gitlabCommandRole,
      git,
      logger,
      requestTimeoutMs,
    });
    return { port, translate: (event, payload) => port.translate(event, payload) };
  },
  webhook: gitlabWebhook,
  links: {
    pr: (site, n) => `${projectWeb(site)}/-/merge_requests/${n}`,
    commit: (site, sha) => `${projectWeb(site)}/-/commit/${sha}`,
  },
  connect: {
    title: 'GitLab',
    accessHint: ' (gitlabToken: a token of a user or bot with at least the Developer role, scope api)',
    namesServer: true,
    ownFlags: ['gitlabUrl'],
    plan(flags, host, settings) {
      if (flags.remote)
        throw new ForgeSettingsError(
          '--remote is for --forge git; the gitlab forge reaches the project on its server: give that with --gitlab-url',
        );
      if (flags.ciCommand)
        throw new ForgeSettingsError(
          '--ci-command is for --forge git; with --forge gitlab the pipelines and commit statuses decide (see --required-status)',
        );
      const url = (flags.gitlabUrl ?? defaultGitlabUrl(settings(), host)).replace(/\/+$/, '');
      if (!/^https?:\/\/[^/]/.test(url))
        throw new ForgeSettingsError(
          `--gitlab-url must be an http(s) URL such as https://gitlab.example.com, got "${flags.gitlabUrl}"`,
        );
      return {
        remote: url,
        prUrlTemplate: (slug) => `${url}/${slug.split('/').slice(1).join('/')}/-/merge_requests/{n}`,
      };
    },
    /**
     * The project as GitLab shows it to gitlabToken: refused when the token cannot read it, or its
     * user may neither push to the default branch nor merge into it (nor push test branches);
     * otherwise its spelling and what was found (merging through the API when it may not push).
     */
    async check({ binding, settings, context, spell }) {
      const { gitlabToken, gitlabUrl } = settings();
      const slug = `${binding.repo.host}/${binding.repo.owner}/${binding.repo.name}`;
      if (gitlabToken === null)
        throw new ForgeSettingsError(
          'Cannot read the project from GitLab: no gitlabToken (GREENLINE_GITLAB_TOKEN) in this configuration; set it to the token greenline acts with (docs/gitlab.md), or pass --no-remote-check to connect it anyway.',
        );
      const { git, logger, requestTimeoutMs } = await context();
      const gitlab = new GitlabForge({ url: gitlabUrl, token: gitlabToken, git, logger, requestTimeoutMs });
      let facts: GitlabProjectFacts | null;
      try {
        facts = await gitlab.projectFacts(binding);
      } catch (err) {
        const why = err instanceof Error ? err.message : String(err);
        throw new ForgeSettingsError(`Cannot read ${slug} from GitLab at ${binding.remote}: ${why}
Check --gitlab-url and gitlabToken, or pass --no-remote-check to connect it anyway.`);
      }
      let spelled: ReturnType<typeof spell>;
      try {
        spelled = spell(facts);
      } catch (err) {
        throw new ForgeSettingsError(`${(err as Error).message}.
Or pass --no-remote-check to connect it anyway.`);
      }
      if (!facts || facts.accessLevel < 30 || (!facts.canPush && !mayMerge(facts, facts.defaultBranch)))
        throw new ForgeSettingsError(
          `The token (gitlabToken) may read ${spelled.slug} but its user may not push to ${facts?.defaultBranch}: greenline pushes test branches and the tested commit, or without that push merges through GitLab's merge API, which its role may not do either. Give it the Maintainer role, or allow its role to push (or at least merge) in Settings > Repository > Protected branches, then connect again.`,
        );
      const found = [
        `default branch ${facts.defaultBranch}`,
        `merge method ${facts.mergeMethod}`,
        `squash option ${facts.squashOption}`,
        `"Pipelines must succeed" ${facts.pipelineMustSucceed ? 'on (gitlab/pipeline is required)' : 'off'}`,
        ...(facts.protections.length === 0 ? ['no protected branches'] : []),
        ...facts.protections.map(
          (p) =>
            `protected branch ${p.name}: push ${p.push.map((l) => ROLE[l] ?? l).join(', ') || 'no one'}, merge ${p.merge.map((l) => ROLE[l] ?? l).join(', ') || 'no one'}`,
        ),
      ];
      const apiOnly = facts.canPush
        ? []
        : [
            `Its user may merge into ${facts.defaultBranch} but not push to it: squash and merge_commit merge through GitLab's merge API (merge_commit needs the merge method "Merge commit"), rebase is refused; allow its role to push in Settings > Repository > Protected branches for every method.`,
          ];
      return { spelled, said: [`Found on GitLab: ${found.join('; ')}.`, ...apiOnly] };
    },
    where: (row, flags) => `server ${row.remote}${flags.remoteCheck ? '' : ', not read from it (--no-remote-check)'}`,
  },
};
