/** The github forge as greenline knows it (forge/definition.ts): `--forge github`, docs/github.md. */
import type { ForgeDefinition } from '../definition.js';
import { ForgeSettingsError } from '../definition.js';
import { repoWebUrl } from '../links.js';
import { githubCommand } from './app-command.js';
import { APP_SETTINGS_FILE } from './app-manifest.js';
import { checkGitHubSettings, GITHUB_SETTINGS, gitHubForgeOf } from './settings.js';
import { githubWebhook } from './webhook.js';

declare module '../port.js' {
  interface ForgeNames {
    github: true;
  }
}

export const githubForge: ForgeDefinition<'github', typeof GITHUB_SETTINGS> = {
  name: 'github',
  settings: GITHUB_SETTINGS,
  settingsBlock: { key: 'github', of: 'GitHub settings' },
  checkSettings: checkGitHubSettings,
  create(settings, context) {
    const forge = gitHubForgeOf(settings, context);
    return forge && { port: forge, observeAccess: (event, payload) => forge.observeAccess(event, payload) };
  },
  webhook: githubWebhook,
  storedSettingsFile: APP_SETTINGS_FILE,
  command: (cli) => githubCommand(cli),
  links: {
    pr: (site, n) => `${repoWebUrl(site)}/pull/${n}`,
    commit: (site, sha) => `${repoWebUrl(site)}/commit/${sha}`,
  },
  connect: {
    title: 'GitHub',
    accessHint: ' (the GitHub App installed on it, or a token that may read it)',
    ownFlags: ['installationId'],
    plan(flags) {
      if (flags.remote)
        throw new ForgeSettingsError(
          '--remote is for --forge git; the github forge reaches the repository through the GitHub API the server is configured for',
        );
      if (flags.ciCommand)
        throw new ForgeSettingsError(
          '--ci-command is for --forge git; with --forge github the checks of your GitHub CI decide (see --required-status)',
        );
      if (flags.installationId === undefined) return { remote: null };
      const installationId = Number(flags.installationId);
      if (!/^\d+$/.test(flags.installationId) || !Number.isSafeInteger(installationId) || installationId < 1) {
        throw new ForgeSettingsError(
          `--installation-id must be a positive integer (the number at the end of the installation's settings URL), got "${flags.installationId}"`,
        );
      }
      return { remote: null, forgeData: { installationId } };
    },
    /**
     * The repository as GitHub spells it, read through the configuration's github settings; when none
     * is set there, the name is stored as given (names are case-insensitive).
     */
    async check({ binding, settings, context, spell }) {
      const github = gitHubForgeOf(settings(), await context());
      if (!github)
        return {
          spelled: null,
          said: [
            'Not read from GitHub (no githubAppId and githubPrivateKeyPath, nor githubToken, in this configuration): stored as given.',
          ],
        };
      try {
        return { spelled: spell(await github.describeRepository(binding)), said: [] };
      } catch (err) {
        const why = err instanceof Error ? err.message : String(err);
        const { host, owner, name } = binding.repo;
        throw new ForgeSettingsError(
          `Cannot read ${host}/${owner}/${name} from GitHub: ${why}\nOr pass --no-remote-check to connect it anyway.`,
        );
      }
    },
    where: (_row, _flags, plan, spelled) =>
      `installation ${plan.forgeData?.installationId ?? 'looked up by the GitHub App'}${spelled?.defaultBranch ? `, default branch ${spelled.defaultBranch}` : ''}`,
  },
};
