/**
 * A repository on its Gitea or Forgejo server, as every part of the gitea forge reaches it: the API
 * client of its server (the binding's `remote` when set, else the configured url; one client per
 * server), its API paths, the clone URL git works on, and its PRs as the pulls API shows them.
 */
import type { RepoBinding } from '../port.js';
import { GiteaClient, hasStatus } from './client.js';

/** A PR as the pulls API shows it (the fields greenline reads). */
export interface GiteaPull {
  number: number;
  title: string;
  body?: string | null;
  state: string;
  draft?: boolean;
  mergeable?: boolean;
  merged?: boolean;
  user?: { login?: string } | null;
  labels?: { id: number; name: string }[] | null;
  head: { ref: string; sha: string };
  base: { ref: string; sha: string };
}

export interface GiteaReposOptions {
  /** The server, e.g. `https://git.example.com` (the API is `<url>/api/v1`); a binding's `remote` wins. */
  url: string;
  /** An access token with repository read and write (`Authorization: token …`). */
  token: string;
  /** The HTTP client (default: the global fetch). */
  fetch?: typeof fetch;
  /** The deadline of each API request (default 30 s; see client.ts). */
  requestTimeoutMs?: number;
}

export class GiteaRepos {
  private readonly clients = new Map<string, GiteaClient>();

  constructor(private readonly opts: GiteaReposOptions) {}

  /** The server of a repository (its binding's `remote`, else the configured url), without a trailing slash. */
  private serverOf(repo: RepoBinding): string {
    return (repo.remote || this.opts.url).replace(/\/+$/, '');
  }

  client(repo: RepoBinding): GiteaClient {
    const url = this.serverOf(repo);
    let c = this.clients.get(url);
    if (!c) {
      c = new GiteaClient(url, this.opts.token, this.opts);
      this.clients.set(url, c);
    }
    return c;
  }

  path(repo: RepoBinding, rest = ''): string {
    return `/repos/${encodeURIComponent(repo.repo.owner)}/${encodeURIComponent(repo.repo.name)}${rest}`;
  }

  /** The binding git works on: the clone URL with the token, PR heads at `refs/pull/<n>/head`. */
  gitBinding(repo: RepoBinding): RepoBinding {
    const clone = new URL(`${this.serverOf(repo)}/${repo.repo.owner}/${repo.repo.name}.git`);
    clone.username = 'greenline';
    clone.password = this.opts.token;
    return { ...repo, remote: clone.href, prRefPattern: 'refs/pull/{n}/head' };
  }

  /** The PR as the pulls API shows it; null when there is none. */
  async pull(repo: RepoBinding, number: number): Promise<GiteaPull | null> {
    try {
      return await this.client(repo).request<GiteaPull>('GET', this.path(repo, `/pulls/${number}`));
    } catch (err) {
      if (hasStatus(err, 404)) return null;
      throw err;
    }
  }
}
