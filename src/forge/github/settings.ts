/**
 * The github forge's server settings (`github*`, or a `github:` mapping in greenline.yaml), and the
 * forge they set up: a GitHub App (githubAppId and githubPrivateKeyPath) or a token.
 */
import { readFileSync } from 'node:fs';
import { Type } from '@sinclair/typebox';
import { nullable, oneOf, setting } from '../../lib/settings.js';
import { type ForgeContext, ForgeSettingsError, type SettingValues } from '../definition.js';
import type { GitHubAuth } from './client.js';
import { GitHubForge } from './github-forge.js';

export const GITHUB_SETTINGS = {
  githubAppId: setting(nullable(Type.Integer({ minimum: 1, maximum: Number.MAX_SAFE_INTEGER })), {
    default: null,
    env: 'GREENLINE_GITHUB_APP_ID',
    description: 'GitHub App id (with githubPrivateKeyPath): the github forge authenticates as the App',
    defaultText: 'none: authenticate as a GitHub App',
    more: 'and the other `github*` settings configure the github forge: [github.md](github.md).',
  }),
  githubPrivateKeyPath: setting(nullable(Type.String({ minLength: 1 })), {
    default: null,
    env: 'GREENLINE_GITHUB_PRIVATE_KEY_PATH',
    description: "PEM file of the GitHub App's private key",
    defaultText: 'none: authenticate as a GitHub App',
    path: true,
  }),
  githubToken: setting(nullable(Type.String({ minLength: 1 })), {
    default: null,
    env: 'GREENLINE_GITHUB_TOKEN',
    description: 'a token (personal access token or other) for the github forge instead of an App',
    defaultText: 'none: a token instead of an App',
    secret: true,
  }),
  githubWebhookSecret: setting(nullable(Type.String({ minLength: 1 })), {
    default: null,
    env: 'GREENLINE_GITHUB_WEBHOOK_SECRET',
    description: 'secret of the GitHub webhook; `POST /webhooks/github` is served only when it is set',
    defaultText: 'none (no `/webhooks/github`)',
    secret: true,
  }),
  githubBaseUrl: setting(Type.String({ pattern: '^https?://[^/]' }), {
    default: 'https://api.github.com',
    env: 'GREENLINE_GITHUB_BASE_URL',
    description: 'GitHub REST API base; `https://HOST/api/v3` for GitHub Enterprise Server',
    mustBe: 'be an http(s) URL such as https://api.github.com or https://github.example.com/api/v3',
    trimSlashes: true,
  }),
  githubDetailsUrl: setting(nullable(Type.String({ minLength: 1 })), {
    default: null,
    env: 'GREENLINE_GITHUB_DETAILS_URL',
    description: 'link of the status check and comments; `{owner}`, `{repo}`, `{branch}` and `{pr}` are replaced',
    defaultText: 'none',
  }),
  /** The least repository permission that lets a `/greenline merge|cancel` comment act (permissions.ts). */
  githubCommandPermission: setting(oneOf(['write', 'maintain', 'admin']), {
    default: 'write',
    env: 'GREENLINE_GITHUB_COMMAND_PERMISSION',
    description:
      'least permission on the repository a person needs for `/greenline merge` and `/greenline cancel` comments and the enqueueing label to act (write, maintain or admin)',
  }),
  /** A Conventional Commits subject by default (`ci: …`), so that PR title checks pass on test PRs. */
  githubTestPrTitle: setting(Type.String({ minLength: 1 }), {
    default: 'ci: greenline test run for {prs}',
    env: 'GREENLINE_GITHUB_TEST_PR_TITLE',
    description:
      'title of the PRs opened for test branches (createPrsForTestingBranches); `{prs}` (`#12, #13`) and `{branch}` are replaced',
  }),
};

export type GitHubSettings = SettingValues<typeof GITHUB_SETTINGS>;

/** An App id needs its key and a key its App id. */
export function checkGitHubSettings(s: GitHubSettings): void {
  if ((s.githubAppId === null) !== (s.githubPrivateKeyPath === null)) {
    throw new ForgeSettingsError(
      'githubAppId and githubPrivateKeyPath go together: set both to authenticate as a GitHub App (or set githubToken instead)',
    );
  }
}

/**
 * The github forge the settings ask for: as a GitHub App (githubAppId and githubPrivateKeyPath) or
 * with a token; null when neither is set. A key file that cannot be read or is no key is a
 * ForgeSettingsError.
 */
export function gitHubForgeOf(
  s: GitHubSettings,
  context: Pick<ForgeContext, 'logger' | 'onApiAnswer' | 'requestTimeoutMs'>,
): GitHubForge | null {
  let auth: GitHubAuth;
  if (s.githubAppId !== null && s.githubPrivateKeyPath !== null) {
    let privateKey: string;
    try {
      privateKey = readFileSync(s.githubPrivateKeyPath, 'utf8');
    } catch (err) {
      throw new ForgeSettingsError(
        `githubPrivateKeyPath ${s.githubPrivateKeyPath} cannot be read: ${(err as Error).message}`,
      );
    }
    if (!/-----BEGIN (RSA )?PRIVATE KEY-----/.test(privateKey)) {
      throw new ForgeSettingsError(
        `githubPrivateKeyPath ${s.githubPrivateKeyPath} is not a PEM private key: download the key from the GitHub App's settings page`,
      );
    }
    auth = { kind: 'app', appId: s.githubAppId, privateKey };
  } else if (s.githubToken !== null) {
    auth = { kind: 'token', token: s.githubToken };
  } else {
    return null;
  }
  return new GitHubForge({
    ...(context.onApiAnswer ? { onResponse: context.onApiAnswer } : {}),
    requestTimeoutMs: context.requestTimeoutMs,
    auth,
    baseUrl: s.githubBaseUrl,
    logger: context.logger,
    ...(s.githubDetailsUrl ? { detailsUrl: s.githubDetailsUrl } : {}),
    commandPermission: s.githubCommandPermission,
    testPrTitle: s.githubTestPrTitle,
  });
}
