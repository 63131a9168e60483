/**
 * A GitHub App for greenline in one step, through GitHub's App manifest flow
 * (docs.github.com: "Registering a GitHub App from a manifest"): the manifest (the permissions and
 * events greenline needs, its webhook), GitHub's page that registers an App from it, the exchange of
 * the code GitHub hands back for the App's id, private key and webhook secret
 * (`POST /app-manifests/{code}/conversions`), and where these are kept for `serve`: two files of the
 * data directory, readable by their owner alone, or text for a secret store.
 *
 * GitHub takes a code once, and only within the hour after it made it.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Octokit } from '@octokit/core';
import { stringify } from 'yaml';
import { withDeadline } from '../forge-http.js';
import { GITHUB_WEBHOOK_EVENTS } from './observations.js';
import { GITHUB_SETTINGS } from './settings.js';
import { githubWebhook } from './webhook.js';

/** The App's repository permissions: what docs/github.md's table lists, each for its reason there. */
export const APP_PERMISSIONS = {
  contents: 'write',
  pull_requests: 'write',
  checks: 'write',
  actions: 'write',
  statuses: 'read',
  issues: 'write',
  metadata: 'read',
} as const;

/** The events the App subscribes to: greenline's, but the installation events every App gets unasked. */
export const APP_EVENTS: readonly string[] = GITHUB_WEBHOOK_EVENTS.filter((e) => !e.startsWith('installation'));

/** The files of the data directory the App is kept in; the settings file is the github forge's stored settings. */
export const APP_SETTINGS_FILE = 'github-app.yaml';
export const APP_KEY_FILE = 'github-app.pem';

/** The flow could not end with an App: what happened and what to do, in words. */
export class AppManifestError extends Error {
  override name = 'AppManifestError';
}

/** A GitHub site: its web address (where people register Apps) and its REST API's. */
export interface GitHubSite {
  web: string;
  api: string;
}

/** github.com's site, or a GitHub Enterprise Server's from its web address (its API is under /api/v3). */
export function gitHubSite(webUrl: string): GitHubSite {
  let url: URL;
  try {
    url = new URL(webUrl);
  } catch {
    url = new URL('invalid:');
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:')
    throw new AppManifestError(
      `--github-url must be the web address of GitHub (https://github.com) or of a GitHub Enterprise Server (https://github.example.com), got "${webUrl}"`,
    );
  const dotCom = url.hostname === 'github.com' || url.hostname === 'www.github.com';
  return dotCom
    ? { web: 'https://github.com', api: 'https://api.github.com' }
    : { web: url.origin, api: `${url.origin}/api/v3` };
}

/** GitHub's page that registers an App from a manifest: the organization's, or the signed-in user's. */
export function newAppPage(site: GitHubSite, org: string | null, state: string): string {
  const owner = org === null ? '' : `/organizations/${encodeURIComponent(org)}`;
  return `${site.web}${owner}/settings/apps/new?state=${encodeURIComponent(state)}`;
}

export interface ManifestInput {
  /** The App's name on GitHub (the person registering it may change it there). */
  name: string;
  /** greenline's address as GitHub reaches it: the App's homepage and, under it, its webhook. */
  url: string;
  /** Where GitHub sends the browser back with the code. */
  redirectUrl: string;
}

/** The manifest GitHub registers the App from. */
export function appManifest(input: ManifestInput): Record<string, unknown> {
  const home = input.url.replace(/\/+$/, '');
  return {
    name: input.name,
    url: home,
    description: 'greenline merge queue: tests pull requests together and merges them in order',
    hook_attributes: { url: `${home}${githubWebhook.path}`, active: true },
    redirect_url: input.redirectUrl,
    public: false,
    default_permissions: APP_PERMISSIONS,
    default_events: APP_EVENTS,
  };
}

/** The App GitHub registered, with what greenline authenticates and checks deliveries with. */
export interface CreatedApp {
  id: number;
  slug: string;
  /** The App's page (`https://github.com/apps/<slug>`); its installations are made under it. */
  htmlUrl: string;
  owner: string;
  pem: string;
  webhookSecret: string | null;
  /** The REST API the App was made on: what `serve` talks to. */
  apiBaseUrl: string;
}

/** Where the App is installed on repositories. */
export const installUrl = (app: CreatedApp): string => `${app.htmlUrl}/installations/new`;

/**
 * The App registered from the manifest, for the code GitHub handed back (an unauthenticated request).
 * A code GitHub does not know — used before, or older than an hour — is an AppManifestError saying so.
 */
export async function convertCode(
  site: GitHubSite,
  code: string,
  opts: { fetch?: typeof fetch; requestTimeoutMs: number },
): Promise<CreatedApp> {
  const octokit = new Octokit({
    baseUrl: site.api,
    request: { fetch: withDeadline(opts.fetch ?? fetch, opts.requestTimeoutMs, 'GitHub') },
  });
  try {
    const { data } = await octokit.request('POST /app-manifests/{code}/conversions', { code });
    return {
      id: data.id,
      slug: data.slug ?? String(data.id),
      htmlUrl: data.html_url,
      owner: data.owner && 'login' in data.owner ? data.owner.login : '',
      pem: data.pem,
      webhookSecret: data.webhook_secret,
      apiBaseUrl: site.api,
    };
  } catch (err) {
    const status = (err as { status?: unknown }).status;
    if (status === 404)
      throw new AppManifestError(
        `GitHub does not know the code it sent back (${code}): a code is taken once, within an hour of registering the App. If the App was registered, delete it on GitHub (its settings, "Delete GitHub App") and run \`greenline github app create\` again.`,
      );
    const why = err instanceof Error ? err.message : String(err);
    throw new AppManifestError(`GitHub did not hand over the App for the code it sent back: ${why}`);
  }
}

/** The App's settings as the github forge reads them (GITHUB_SETTINGS); the key as `keyPath` names it. */
function settingsOf(app: CreatedApp, keyPath: string): (readonly [keyof typeof GITHUB_SETTINGS, string | number])[] {
  return [
    ['githubAppId', app.id] as const,
    ['githubPrivateKeyPath', keyPath] as const,
    ...(app.webhookSecret === null ? [] : [['githubWebhookSecret', app.webhookSecret] as const]),
    ...(app.apiBaseUrl === GITHUB_SETTINGS.githubBaseUrl.default ? [] : [['githubBaseUrl', app.apiBaseUrl] as const]),
  ];
}

/** The settings block's key of a flat github setting: `githubAppId` → `appId`. */
const blockKey = (key: string): string => key.charAt('github'.length).toLowerCase() + key.slice('github'.length + 1);

/**
 * Keeps the App in the data directory where `serve` reads it: the private key and the settings file
 * (the key named relative to it), each readable by its owner alone. Neither replaces a file already
 * there. Returns the settings file's path.
 */
export function storeApp(dataDir: string, app: CreatedApp): string {
  mkdirSync(dataDir, { recursive: true, mode: 0o700 });
  const settingsPath = join(dataDir, APP_SETTINGS_FILE);
  const keyPath = join(dataDir, APP_KEY_FILE);
  const settings = Object.fromEntries(settingsOf(app, APP_KEY_FILE).map(([k, v]) => [blockKey(k), v]));
  const header = `# The GitHub App ${app.slug} (${app.htmlUrl}), registered by \`greenline github app create\`.\n`;
  try {
    writeFileSync(keyPath, app.pem, { mode: 0o600, flag: 'wx' });
    writeFileSync(settingsPath, header + stringify(settings), { mode: 0o600, flag: 'wx' });
  } catch (err) {
    throw new AppManifestError(
      `Cannot keep the App in ${dataDir}: ${(err as Error).message}. Its settings follow; keep them in your secret store instead:\n${printedApp(app)}`,
    );
  }
  return settingsPath;
}

/** The App as environment variables and the private key, for a secret store. */
export function printedApp(app: CreatedApp): string {
  const lines = settingsOf(app, '<the file you keep the key below in>').map(
    ([k, v]) => `${GITHUB_SETTINGS[k].env}=${v}`,
  );
  return `${lines.join('\n')}\n\nThe private key (keep it in a file of its own, readable by greenline alone):\n${app.pem.trimEnd()}\n`;
}
