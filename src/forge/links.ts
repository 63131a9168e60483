/**
 * What a repository's addresses on its forge are made of. Each forge says where it shows a PR and a
 * commit (its definition's `links`; src/forges.ts: prWebUrl, commitWebUrl): GitHub (github.com or
 * a GitHub Enterprise host) and Gitea/Forgejo have known forms (a Gitea repository is connected with
 * its PR form as its template, since its server may live under a path); a plain git forge has none,
 * unless its repository was connected with a PR URL template (`greenline repo connect
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
