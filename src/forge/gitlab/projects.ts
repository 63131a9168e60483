/**
 * A project on its GitLab server, as every part of the gitlab forge reaches it: the API client of its
 * server (the binding's `remote` when set, else gitlabUrl; one client per server), its API paths (the
 * project by its URL-encoded path, `group/sub/project`, which GitLab redirects when the project moves),
 * the clone URL git works on (MR heads at `refs/merge-requests/<iid>/head`), and its MRs.
 */
import type { RepoBinding } from '../port.js';
import { GitlabClient, type GitlabClientOptions, hasStatus } from './client.js';

/** An MR as `GET …/merge_requests/:iid` shows it (the fields greenline reads). */
export interface GitlabMr {
  iid: number;
  title: string;
  state: 'opened' | 'closed' | 'locked' | 'merged';
  draft?: boolean;
  sha: string;
  source_branch: string;
  target_branch: string;
  detailed_merge_status?: string;
  has_conflicts?: boolean;
  labels?: string[];
  author?: { username?: string } | null;
  merge_commit_sha?: string | null;
  squash_commit_sha?: string | null;
  squash_on_merge?: boolean;
}

export interface GitlabProjectsOptions extends GitlabClientOptions {
  /** The server, e.g. `https://gitlab.com`; a binding's `remote` wins. */
  url: string;
  token: string;
}

export class GitlabProjects {
  private readonly clients = new Map<string, GitlabClient>();

  constructor(private readonly opts: GitlabProjectsOptions) {}

  private serverOf(repo: RepoBinding): string {
    return (repo.remote || this.opts.url).replace(/\/+$/, '');
  }

  client(repo: RepoBinding): GitlabClient {
    return this.clientAt(this.serverOf(repo));
  }

  /** The client of the server at `url` (e.g. `https://gitlab.example.com`). */
  clientAt(url: string): GitlabClient {
    let c = this.clients.get(url);
    if (!c) {
      c = new GitlabClient(url, this.opts.token, this.opts);
      this.clients.set(url, c);
    }
    return c;
  }

  /** `/projects/<group%2Fsub%2Fproject><rest>`. */
  path(repo: RepoBinding, rest = ''): string {
    return `/projects/${encodeURIComponent(`${repo.repo.owner}/${repo.repo.name}`)}${rest}`;
  }

  /**
   * The binding git works on: the clone URL with the token as password, MR heads at
   * `refs/merge-requests/<n>/head`. A subgroup's groups name one directory of the git forge's mirror
   * (`acme/tools` → `acme:tools`; GitLab paths hold no `:`).
   */
  gitBinding(repo: RepoBinding): RepoBinding {
    const clone = new URL(`${this.serverOf(repo)}/${repo.repo.owner}/${repo.repo.name}.git`);
    clone.username = 'greenline';
    clone.password = this.opts.token;
    return {
      ...repo,
      repo: { ...repo.repo, owner: repo.repo.owner.replaceAll('/', ':') },
      remote: clone.href,
      prRefPattern: 'refs/merge-requests/{n}/head',
    };
  }

  /** The MR; null when there is none. */
  async mr(repo: RepoBinding, iid: number): Promise<GitlabMr | null> {
    try {
      return await this.client(repo).request<GitlabMr>('GET', this.path(repo, `/merge_requests/${iid}`));
    } catch (err) {
      if (hasStatus(err, 404)) return null;
      throw err;
    }
  }
}
