/**
 * The title and message of each commit GitHub's merge endpoint makes for a batch (`commit_title`,
 * `commit_message`), from the queue's templates and the PRs' own messages (engine/commit-message.ts).
 * What neither gives is left to GitHub's own default. Co-authors are read from the PR's commits only
 * when a template asks for them.
 */
import {
  type CommitMessageSettings,
  type CommitPr,
  commitMessageFor,
  messageFromDescription,
} from '../../engine/commit-message.js';
import { allPages, type RepoApi } from './client.js';
import type { GitHubPull } from './pulls.js';

/** The merge endpoint's message fields for one PR; empty = GitHub's default. */
export interface MergeMessageFields {
  commit_title?: string;
  commit_message?: string;
}

interface PullCommitAuthor {
  commit: { author: { name?: string; email?: string } | null };
  author: { login: string } | null;
}

/** The fields for each PR of `pulls`, in order. */
export async function mergeMessageFields(
  gh: RepoApi,
  method: 'merge_commit' | 'squash' | 'rebase',
  settings: CommitMessageSettings | null | undefined,
  pulls: readonly GitHubPull[],
  ownMessages?: ReadonlyMap<number, string>,
): Promise<MergeMessageFields[]> {
  if (method === 'rebase') return pulls.map(() => ({}));
  const kind = method === 'squash' ? 'squash' : 'merge';
  const wantsCoAuthors = [settings?.[`${kind}Title`], settings?.[`${kind}Body`]].some((t) =>
    t?.includes('{coAuthors}'),
  );
  const prs = await Promise.all(
    pulls.map(async (p): Promise<CommitPr> => {
      const author = p.user?.login ?? '';
      return {
        number: p.number,
        title: p.title,
        body: p.body ?? '',
        author,
        headBranch: p.head.ref,
        coAuthors: wantsCoAuthors ? await coAuthorsOf(gh, p.number, author) : [],
        ...(ownMessages?.has(p.number) ? { message: ownMessages.get(p.number)! } : {}),
      };
    }),
  );
  return prs.map((pr) => {
    const m = commitMessageFor(kind, settings, pr, prs, { title: '', body: '' });
    return { ...(m.title ? { commit_title: m.title } : {}), ...(m.body ? { commit_message: m.body } : {}) };
  });
}

/**
 * Whether a merge_commit batch lands messages of the queue's templates or a PR's own message,
 * which the tested merge commits (GitHub's default messages) do not carry.
 */
export function hasOwnMergeMessages(
  settings: CommitMessageSettings | null | undefined,
  pulls: readonly GitHubPull[],
  ownMessages: ReadonlyMap<number, string> | undefined,
): boolean {
  return (
    settings?.mergeTitle !== undefined ||
    settings?.mergeBody !== undefined ||
    (ownMessages?.size ?? 0) > 0 ||
    pulls.some((p) => messageFromDescription(p.body) !== null)
  );
}

/** The other authors of a PR's commits, as `Name <email>`. */
async function coAuthorsOf(gh: RepoApi, number: number, prAuthor: string): Promise<string[]> {
  const commits = await allPages(
    gh.api,
    gh.api.request('GET /repos/{owner}/{repo}/pulls/{pull_number}/commits', {
      ...gh.loc,
      pull_number: number,
      per_page: 100,
    }),
    (data) => data as PullCommitAuthor[],
  );
  const others = commits
    .filter((c) => c.author?.login !== prAuthor && c.commit.author?.name && c.commit.author.email)
    .map((c) => `${c.commit.author!.name} <${c.commit.author!.email}>`);
  return [...new Set(others)];
}
