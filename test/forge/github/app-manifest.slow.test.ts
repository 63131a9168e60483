/**
 * `greenline github app create` against the fake of GitHub: the command serves the flow's page, the
 * test is the browser (it follows the page's form to GitHub's registration page and GitHub's redirect
 * back), and the App GitHub hands over is kept where `serve` reads it, or printed. A code is taken
 * once and within the hour; an answer that is not the registration's own is refused.
 */
import { statSync, existsSync } from 'node:fs';
import { join } from 'node:path';
import pino from 'pino';
import { afterAll, describe, expect, it } from 'vitest';
import { forgeCommandContext } from '../../../src/cli/program.js';
import { UsageError } from '../../../src/cli/usage-error.js';
import { loadConfig } from '../../../src/config/config.js';
import { githubCommand } from '../../../src/forge/github/app-command.js';
import {
  APP_EVENTS,
  APP_PERMISSIONS,
  AppManifestError,
  convertCode,
  gitHubSite,
} from '../../../src/forge/github/app-manifest.js';
import { GitHubForge } from '../../../src/forge/github/github-forge.js';
import { DEFAULT_CONFIG } from '../../../src/config/schema.js';
import { makeTempDir, removeTempDir } from '../../helpers/temp-dir.js';
import { FakeGitHubApi } from './fake-github-api.js';
import { bindingFor } from './github-harness.js';

const dirs: string[] = [];
afterAll(async () => {
  for (const dir of dirs) await removeTempDir(dir);
});

async function dataDir(): Promise<string> {
  const dir = await makeTempDir('greenline-app-');
  dirs.push(dir);
  return join(dir, 'data');
}

const fromHtml = (s: string): string =>
  s.replace(/&(quot|#39|lt|gt|amp);/g, (_, e: string) => ({ quot: '"', '#39': "'", lt: '<', gt: '>', amp: '&' })[e]!);

/** The command running with its output collected, and the address of the page it serves once it says. */
function run(api: FakeGitHubApi, args: string[]) {
  let said = '';
  let ready: (page: string) => void = () => {};
  const page = new Promise<string>((resolve) => {
    ready = resolve;
  });
  const done = githubCommand({
    ...forgeCommandContext((text) => {
      said += text;
      const url = /Open (\S+) in a browser/.exec(text)?.[1];
      if (url) ready(url);
    }),
    fetch: api.fetch,
  })
    .exitOverride()
    .parseAsync(['app', 'create', ...args], { from: 'user' });
  return { page, done, said: () => said };
}

/** What a signed-in browser does: opens the page, posts its form to GitHub, follows GitHub back. */
async function browse(api: FakeGitHubApi, page: string, tamper?: (back: URL) => void) {
  const html = await (await fetch(page)).text();
  const action = fromHtml(/<form method="post" action="([^"]+)"/.exec(html)![1]!);
  const manifest = fromHtml(/name="manifest" value="([^"]+)"/.exec(html)![1]!);
  const back = new URL(api.appRegistrations.submit(action, new URLSearchParams({ manifest })));
  tamper?.(back);
  const answer = await fetch(back);
  return {
    action,
    manifest: JSON.parse(manifest) as Record<string, unknown>,
    code: back.searchParams.get('code')!,
    status: answer.status,
    text: await answer.text(),
  };
}

describe('greenline github app create', () => {
  it('registers an organization App with the permissions and events greenline needs, and keeps it where serve reads it', async () => {
    const api = new FakeGitHubApi('acme', 'web', 'https://api.github.com');
    api.installations.set('acme/web', 31);
    const dir = await dataDir();
    const cmd = run(api, ['--org', 'acme', '--url', 'https://greenline.example.com/', '--data-dir', dir]);
    const seen = await browse(api, await cmd.page);
    await cmd.done;

    expect(seen.action).toMatch(
      /^https:\/\/github\.com\/organizations\/acme\/settings\/apps\/new\?state=[0-9a-f]{32}$/,
    );
    expect(seen.manifest).toMatchObject({
      name: 'greenline acme',
      url: 'https://greenline.example.com',
      hook_attributes: { url: 'https://greenline.example.com/webhooks/github', active: true },
      public: false,
      default_permissions: APP_PERMISSIONS,
      default_events: APP_EVENTS,
    });
    expect(seen.manifest.redirect_url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/callback$/);
    expect(APP_EVENTS).toEqual([
      'pull_request',
      'push',
      'check_run',
      'check_suite',
      'workflow_run',
      'status',
      'issue_comment',
    ]);
    expect(seen.status).toBe(200);
    expect(seen.text).toContain('https://github.com/apps/greenline-acme/installations/new');

    const [app] = api.appRegistrations.apps;
    expect(app!.owner).toBe('acme');
    expect(cmd.said()).toContain(`Registered the GitHub App greenline-acme (id ${app!.id}, owned by acme)`);
    expect(cmd.said()).toContain(
      'Install it on the repositories the queue manages: https://github.com/apps/greenline-acme/installations/new',
    );
    for (const file of ['github-app.yaml', 'github-app.pem'])
      expect(statSync(join(dir, file)).mode & 0o777).toBe(0o600);

    const config = loadConfig({ flags: { dataDir: dir }, env: {}, cwd: dir });
    expect(config).toMatchObject({
      githubAppId: app!.id,
      githubPrivateKeyPath: join(dir, 'github-app.pem'),
      githubWebhookSecret: app!.webhookSecret,
      githubBaseUrl: 'https://api.github.com',
    });
    // Settings given win over the kept ones.
    expect(
      loadConfig({ flags: { dataDir: dir }, env: { GREENLINE_GITHUB_WEBHOOK_SECRET: 'mine' }, cwd: dir })
        .githubWebhookSecret,
    ).toBe('mine');

    // The kept key is the App's: the forge authenticates as it and reads the repository it is installed on.
    const forge = new GitHubForge({
      testPrTitle: DEFAULT_CONFIG.githubTestPrTitle,
      auth: { kind: 'app', appId: config.githubAppId!, privateKey: app!.pem },
      baseUrl: config.githubBaseUrl,
      logger: pino({ level: 'silent' }),
      fetch: api.fetch,
    });
    await expect(forge.describeRepository(bindingFor(api))).resolves.toMatchObject({ owner: 'acme', name: 'web' });

    // GitHub takes a code once.
    await expect(
      convertCode(gitHubSite('https://github.com'), seen.code, { fetch: api.fetch, requestTimeoutMs: 5000 }),
    ).rejects.toThrow(/GitHub does not know the code it sent back .*taken once, within an hour/);

    // A second App is not written over the first.
    const again = run(api, ['--org', 'acme', '--url', 'https://greenline.example.com', '--data-dir', dir]);
    await expect(again.done).rejects.toThrow(UsageError);
    await expect(again.done).rejects.toThrow(
      /github-app\.yaml and .*github-app\.pem already exist: an App is kept there/,
    );
  });

  it('registers on a GitHub Enterprise Server for the signed-in user, and prints the App for a secret store with --print', async () => {
    const api = new FakeGitHubApi('acme', 'web', 'https://ghe.example.test/api/v3');
    const dir = await dataDir();
    const cmd = run(api, [
      '--github-url',
      'https://ghe.example.test',
      '--url',
      'https://greenline.example.com',
      '--print',
      '--data-dir',
      dir,
    ]);
    const seen = await browse(api, await cmd.page);
    await cmd.done;

    expect(seen.action).toMatch(/^https:\/\/ghe\.example\.test\/settings\/apps\/new\?state=/);
    const [app] = api.appRegistrations.apps;
    expect(app!.owner).toBe('ada');
    expect(api.calls.map((c) => `${c.method} ${c.path}`)).toEqual([`POST /app-manifests/${seen.code}/conversions`]);
    expect(cmd.said()).toContain(`GREENLINE_GITHUB_APP_ID=${app!.id}`);
    expect(cmd.said()).toContain(`GREENLINE_GITHUB_WEBHOOK_SECRET=${app!.webhookSecret}`);
    expect(cmd.said()).toContain('GREENLINE_GITHUB_BASE_URL=https://ghe.example.test/api/v3');
    expect(cmd.said()).toContain(app!.pem.trimEnd());
    expect(cmd.said()).toContain('https://ghe.example.test/apps/greenline/installations/new');
    expect(existsSync(dir)).toBe(false);
  });

  it('fails, saying so, when the code GitHub sent back expired before it was exchanged, and keeps nothing', async () => {
    const api = new FakeGitHubApi('acme', 'web', 'https://api.github.com');
    const dir = await dataDir();
    const cmd = run(api, ['--org', 'acme', '--url', 'https://greenline.example.com', '--data-dir', dir]);
    const failed = expect(cmd.done).rejects.toThrow(AppManifestError);
    const seen = await browse(api, await cmd.page, () => {
      const later = Date.now() + 61 * 60_000;
      api.now = () => later;
    });
    await failed;
    await expect(cmd.done).rejects.toThrow(/taken once, within an hour of registering the App/);
    expect(seen.status).toBe(502);
    expect(seen.text).toContain('GitHub does not know the code it sent back');
    expect(existsSync(dir)).toBe(false);
  });

  it('refuses an answer that is not the registration it started, and goes on waiting for its own', async () => {
    const api = new FakeGitHubApi('acme', 'web', 'https://api.github.com');
    const dir = await dataDir();
    const cmd = run(api, ['--org', 'acme', '--url', 'https://greenline.example.com', '--data-dir', dir]);
    const page = await cmd.page;
    const forged = await fetch(new URL('/callback?code=abc&state=not-this-one', page));
    expect(forged.status).toBe(400);
    expect(await forged.text()).toContain('does not carry the code and state of the registration started here');
    expect(api.calls).toEqual([]);
    const seen = await browse(api, page);
    await cmd.done;
    expect(seen.status).toBe(200);
    expect(existsSync(join(dir, 'github-app.yaml'))).toBe(true);
  });

  it('refuses a --url, --github-url or --port it cannot use, before serving anything', async () => {
    const api = new FakeGitHubApi();
    const dir = await dataDir();
    await expect(run(api, ['--url', 'greenline.example.com', '--data-dir', dir]).done).rejects.toThrow(
      '--url must be an http(s) address such as https://greenline.example.com, got "greenline.example.com"',
    );
    await expect(
      run(api, ['--url', 'https://g.example.com', '--github-url', 'github.com', '--data-dir', dir]).done,
    ).rejects.toThrow(/--github-url must be the web address of GitHub/);
    await expect(
      run(api, ['--url', 'https://g.example.com', '--port', '99999', '--data-dir', dir]).done,
    ).rejects.toThrow('--port must be a port number from 0 (any free one) to 65535, got "99999"');
    expect(api.calls).toEqual([]);
  });
});
