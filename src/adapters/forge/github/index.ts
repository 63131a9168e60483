/** The github forge adapter (`--forge github`): see github-forge.ts. */
import { readFileSync } from 'node:fs';
import type { Logger } from 'pino';
import { ConfigError, type GreenlineConfig } from '../../../config.js';
import type { GitHubAuth } from './client.js';
import { GitHubForge, type GitHubForgeOptions } from './github-forge.js';

export { GitHubForge, type GitHubForgeOptions } from './github-forge.js';
export { parseQueueCommand, type QueueCommand } from './commands.js';
export { gitHubObservations, readGitHubDelivery, type GitHubWebhookEvent } from './observations.js';

export function createGitHubForge(opts: GitHubForgeOptions): GitHubForge {
  return new GitHubForge(opts);
}

/**
 * The github forge the server's configuration asks for: as a GitHub App (githubAppId and
 * githubPrivateKeyPath) or with githubToken; null when neither is configured.
 */
export function gitHubForgeFromConfig(
  config: Pick<GreenlineConfig, 'githubAppId' | 'githubPrivateKeyPath' | 'githubToken' | 'githubBaseUrl' | 'githubDetailsUrl'>,
  logger: Logger,
): GitHubForge | null {
  let auth: GitHubAuth;
  if (config.githubAppId !== null && config.githubPrivateKeyPath !== null) {
    let privateKey: string;
    try {
      privateKey = readFileSync(config.githubPrivateKeyPath, 'utf8');
    } catch (err) {
      throw new ConfigError(`githubPrivateKeyPath ${config.githubPrivateKeyPath} cannot be read: ${(err as Error).message}`);
    }
    if (!/-----BEGIN (RSA )?PRIVATE KEY-----/.test(privateKey)) {
      throw new ConfigError(`githubPrivateKeyPath ${config.githubPrivateKeyPath} is not a PEM private key: download the key from the GitHub App's settings page`);
    }
    auth = { kind: 'app', appId: config.githubAppId, privateKey };
  } else if (config.githubToken !== null) {
    auth = { kind: 'token', token: config.githubToken };
  } else {
    return null;
  }
  return new GitHubForge({
    auth, baseUrl: config.githubBaseUrl, logger, ...(config.githubDetailsUrl ? { detailsUrl: config.githubDetailsUrl } : {}),
  });
}
