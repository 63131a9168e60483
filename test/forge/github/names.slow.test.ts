/**
 * GitHub's owner and repository names are case-insensitive, and GitHub has one spelling of its own
 * (its canonical one), which its webhook payloads carry: a delivery in that spelling reaches a
 * repository connected in another, and `repo connect` reads the repository from GitHub and stores
 * GitHub's spelling.
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { connectRepo, forgeSpelling } from '../../../src/app/admin/repo-admin.js';
import { repoCommand } from '../../../src/cli/repo.js';
import { listRepos } from '../../../src/store/repos.js';
import { makeTempDirSync, removeTempDir } from '../../helpers/temp-dir.js';
import { connect, type Db } from '../../../src/store/connect.js';
import { migrateToLatest } from '../../../src/store/migrations/index.js';
import { FakeGitHubApi } from './fake-github-api.js';
import { createGitHubHarness, makeForge, type GitHubHarness } from './github-harness.js';
import { gitHubExample } from './webhook-examples.js';

const labeled = () => gitHubExample('pull_request', 'labeled');

const closing: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const close of closing.splice(0).reverse()) await close();
});

describe('a repository connected in another letter case than GitHub spells it', () => {
  it("a delivery in GitHub's spelling (Codertocat/Hello-World) is processed for the repository connected as codertocat/hello-world", async () => {
    const api = new FakeGitHubApi('Codertocat', 'Hello-World');
    const payload = labeled();
    api.branches.set('master', api.commit(null, 'base'));
    api.commits.set(payload.pull_request.head.sha, [api.branches.get('master')!]);
    api.openPr(2, { headSha: payload.pull_request.head.sha, base: 'master' });
    api.collaborators.set(payload.sender.login, 'admin'); // who labels the PR may command the queue
    const h: GitHubHarness = await createGitHubHarness({
      api,
      connect: { slug: 'github.com/codertocat/hello-world' },
    });
    closing.push(() => h.close());
    const key = { repo: { host: 'github.com', owner: 'codertocat', name: 'hello-world' }, targetBranch: 'master' };
    await h.app.service.createQueue(h.ctx, key, {});
    await h.app.service.updateQueue(h.ctx, key, { enqueueingLabel: 'bug', requiredStatuses: ['default'] });
    expect(payload.repository.full_name).toBe('Codertocat/Hello-World');
    expect((await h.deliver('pull_request', payload)).result).toBe('processed');
    const { entry } = await h.app.service.getSubmittedPullRequest(h.ctx, key, { number: 2 });
    expect(entry.timeline[0]).toMatchObject({ from: null, reason: 'USER_REQUESTED' });
  });
});

describe('repo connect --forge github', () => {
  async function store(): Promise<Db> {
    const db = connect({ databaseUrl: 'sqlite::memory:', dataDir: '' });
    await migrateToLatest(db);
    closing.push(() => db.destroy());
    return db;
  }

  it("reads the repository from GitHub (GET /repos/{owner}/{repo}) and stores GitHub's spelling, saying so", async () => {
    const api = new FakeGitHubApi('Acme', 'Web');
    const db = await store();
    const req = { org: 'acme', slug: 'github.com/acme/web', forge: 'github' as const };
    const spelled = await forgeSpelling(makeForge(api), req);
    expect(api.log).toEqual(['GET /repos/acme/web']);
    expect(spelled).toEqual({
      slug: 'github.com/Acme/Web',
      respelled: 'GitHub spells it Acme/Web; connected as github.com/Acme/Web',
      defaultBranch: 'main',
    });
    const row = await connectRepo(db, { ...req, slug: spelled.slug }, 1);
    expect(row).toMatchObject({ host: 'github.com', owner: 'Acme', name: 'Web' });
    // Connecting it again, in any spelling, is refused.
    await expect(connectRepo(db, req, 2)).rejects.toThrow(/already connected as github\.com\/Acme\/Web/);
  });

  it("says nothing of the spelling when it is already GitHub's; a repository GitHub does not show is refused", async () => {
    const api = new FakeGitHubApi('acme', 'web');
    const forge = makeForge(api);
    expect(await forgeSpelling(forge, { org: 'acme', slug: 'github.com/acme/web', forge: 'github' })).toEqual({
      slug: 'github.com/acme/web',
      respelled: null,
      defaultBranch: 'main',
    });
    await expect(
      forgeSpelling(forge, { org: 'acme', slug: 'github.com/acme/nothing', forge: 'github' }),
    ).rejects.toThrow(
      "GitHub has no repository acme/nothing that greenline may read: check the name, and greenline's access to it (the GitHub App installed on it, or a token that may read it)",
    );
  });
});

describe('greenline repo connect --forge github (in this process, GitHub being the fake served over HTTP)', () => {
  /** The fake GitHub behind a real HTTP server: the command reaches GitHub through the global fetch. */
  async function serve(api: FakeGitHubApi): Promise<string> {
    const server = createServer(async (req, res) => {
      const chunks: Buffer[] = [];
      for await (const c of req) chunks.push(c as Buffer);
      const body = Buffer.concat(chunks).toString();
      const answer = await api.fetch(`${api.baseUrl}${req.url}`, {
        method: req.method!,
        headers: req.headers as Record<string, string>,
        ...(body ? { body } : {}),
      });
      res.writeHead(answer.status, { 'content-type': 'application/json' });
      res.end(await answer.text());
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    closing.push(() => new Promise((resolve) => server.close(() => resolve())));
    return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  }

  async function connectHere(args: string[]): Promise<string> {
    const out: string[] = [];
    const write = vi.spyOn(process.stdout, 'write').mockImplementation((chunk) => {
      out.push(String(chunk));
      return true;
    });
    try {
      await repoCommand()
        .exitOverride()
        .parseAsync(['connect', ...args], { from: 'user' });
    } finally {
      write.mockRestore();
    }
    return out.join('');
  }

  it('says how GitHub spells the repository and stores that spelling', async () => {
    const api = new FakeGitHubApi('Acme', 'Web');
    const dir = makeTempDirSync('greenline-connect-');
    closing.push(() => removeTempDir(dir));
    vi.stubEnv('GREENLINE_GITHUB_TOKEN', 'ghp_test');
    vi.stubEnv('GREENLINE_GITHUB_BASE_URL', await serve(api));
    closing.push(async () => {
      vi.unstubAllEnvs();
    });
    const out = await connectHere(['github.com/acme/web', '--org', 'acme', '--forge', 'github', '--data-dir', dir]);
    expect(out).toBe(
      'GitHub spells it Acme/Web; connected as github.com/Acme/Web.\n' +
        'Connected github.com/Acme/Web to organization acme (forge github, installation looked up by the GitHub App, default branch main).\n',
    );
    expect(api.log).toEqual(['GET /repos/acme/web']);
    const db = connect({ databaseUrl: null, dataDir: dir });
    closing.push(() => db.destroy());
    expect((await listRepos(db)).map((r) => `${r.host}/${r.owner}/${r.name}`)).toEqual(['github.com/Acme/Web']);
  });
});
