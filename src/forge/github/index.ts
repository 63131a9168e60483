/** The github forge adapter (`--forge github`): see github-forge.ts. */
import { readFileSync } from 'node:fs';
import type { Logger } from 'pino';
import type { GitHubAuth } from './client.js';
import { GitHubForge, type GitHubForgeOptions } from './github-forge.js';
import type { CommandPermission } from './permissions.js';

export { GitHubForge, type GitHubForgeOptions } from './github-forge.js';
export {
  GITHUB_WEBHOOK_EVENTS,
  gitHubObservations,
  readGitHubDelivery,
  type GitHubWebhookEvent,
} from './observations.js';

export function createGitHubForge(opts: GitHubForgeOptions): GitHubForge {
  return new GitHubForge(opts);
}

/** How the github forge is reached: the server configuration's github settings. */
export interface GitHubSettings {
  /** GitHub App id (with privateKeyPath): the forge authenticates as the App. */
  appId: number | null;
  /** Path of the App's PEM private key. */
  privateKeyPath: string | null;
  /** A token, used when no App is set. */
  token: string | null;
  /** The REST API's base URL. */
  baseUrl: string;
  /** Link of status checks and comments (see GitHubForgeOptions.detailsUrl); null = no link. */
  detailsUrl: string | null;
  /** The least permission that lets a PR comment command the queue; absent = write. */
  commandPermission?: CommandPermission;
  /** Title template of test PRs (GitHubForgeOptions.testPrTitle). */
  testPrTitle: string;
}

/** Settings that cannot work (an unreadable key file, a file that is no key); the message says which. */
export class GitHubSettingsError extends Error {
  override name = 'GitHubSettingsError';
}

/**
 * The github forge the settings ask for: as a GitHub App (appId and privateKeyPath) or with a
 * token; null when neither is set.
 */
export function gitHubForgeFromSettings(
  settings: GitHubSettings,
  logger: Logger,
  more: Pick<GitHubForgeOptions, 'onResponse' | 'requestTimeoutMs'> = {},
): GitHubForge | null {
  let auth: GitHubAuth;
  if (settings.appId !== null && settings.privateKeyPath !== null) {
    let privateKey: string;
    try {
      privateKey = readFileSync(settings.privateKeyPath, 'utf8');
    } catch (err) {
      throw new GitHubSettingsError(
        `githubPrivateKeyPath ${settings.privateKeyPath} cannot be read: ${(err as Error).message}`,
      );
    }
    if (!/-----BEGIN (RSA )?PRIVATE KEY-----/.test(privateKey)) {
      throw new GitHubSettingsError(
        `githubPrivateKeyPath ${settings.privateKeyPath} is not a PEM private key: download the key from the GitHub App's settings page`,
      );
    }
    auth = { kind: 'app', appId: settings.appId, privateKey };
  } else if (settings.token !== null) {
    auth = { kind: 'token', token: settings.token };
  } else {
    return null;
  }
  return new GitHubForge({
    ...more,
    auth,
    baseUrl: settings.baseUrl,
    logger,
    ...(settings.detailsUrl ? { detailsUrl: settings.detailsUrl } : {}),
    ...(settings.commandPermission ? { commandPermission: settings.commandPermission } : {}),
    testPrTitle: settings.testPrTitle,
  });
}
