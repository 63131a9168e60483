/**
 * Where a repository's PRs and commits are shown on its forge. GitHub (github.com or a GitHub
 * Enterprise host) and Gitea/Forgejo have known forms (a Gitea repository is connected with its PR
 * form as its template, since its server may live under a path: repo-admin.ts); a plain git forge has
 * none, unless its repository was connected with a PR URL template (`greenline repo connect
 * --pr-url-template`, `{n}` = the PR's number).
 */
import type { RepoBinding } from './port.js';

/** What the addresses are made of: a repository row has these fields. */
export interface RepoSite {
  forge: RepoBinding['forge'];
  host: string;
  owner: string;
  name: string;
  /** `{n}` = the PR's number; null or absent = the forge's own form, when it has one. */
  pr_url_template?: string | null;
}

/** The repository's web address in GitHub's form (what Trunk's clients expect of every repository). */
export const repoWebUrl = (r: Pick<RepoSite, 'host' | 'owner' | 'name'>): string =>
  `https://${r.host}/${r.owner}/${r.name}`;

/** The PR's web address: the repository's template, the forge's form on GitHub and Gitea, else null (none known). */
export function prWebUrl(r: RepoSite, n: number): string | null {
  if (r.pr_url_template) return r.pr_url_template.replaceAll('{n}', String(n));
  switch (r.forge) {
    case 'github':
      return `${repoWebUrl(r)}/pull/${n}`;
    case 'gitea':
      return `${repoWebUrl(r)}/pulls/${n}`;
    case 'git':
      return null;
  }
}

/**
 * The PR's web address for the fields Trunk's contract types as strings: as `prWebUrl`, with
 * GitHub's form where no address is known.
 */
export const prWebUrlOrGitHubForm = (r: RepoSite, n: number): string => prWebUrl(r, n) ?? `${repoWebUrl(r)}/pull/${n}`;

/** `{ url }` with the PR's web address, or nothing where none is known (v2's optional `url` fields). */
export const prUrlField = (r: RepoSite, n: number): { url?: string } => {
  const url = prWebUrl(r, n);
  return url === null ? {} : { url };
};

/**
 * The commit's web address: the forge's form on GitHub, and on Gitea beside where its PRs are shown
 * (`<url>/<owner>/<name>/pulls/{n}` → `<url>/<owner>/<name>/commit/<sha>`); null on a plain git forge
 * (none known).
 */
export function commitWebUrl(r: RepoSite, sha: string): string | null {
  if (r.forge === 'github') return `${repoWebUrl(r)}/commit/${sha}`;
  if (r.forge !== 'gitea') return null;
  const pulls = /^(.*)\/pulls\/\{n\}$/.exec(r.pr_url_template ?? '');
  return `${pulls ? pulls[1] : repoWebUrl(r)}/commit/${sha}`;
}
