/**
 * Merging in the fake of Gitea and Forgejo (fake-gitea-api.ts), `POST …/pulls/{index}/merge`, as
 * the forge merges: the merge form's fields as the server's version binds them, the head guard, the
 * refusals (conflicts, drafts, required statuses, styles not allowed), every style made with real git.
 */
import { git } from '../../../src/git/git.js';
import type { FakeGiteaApi } from './fake-gitea-api.js';
import { type Answer, type FakePull, type Json, NOT_FOUND, WIP } from './fake-gitea-model.js';

/** `POST …/pulls/{index}/merge`, as the forge merges. */
export async function merge(fake: FakeGiteaApi, index: number, body: Json): Promise<Answer> {
  const pr = fake.pulls.get(index);
  if (!pr) return NOT_FOUND;
  const field = (name: string): unknown =>
    Object.entries(body).find(([k]) => k.toLowerCase() === name.toLowerCase())?.[1];
  const style = String(field('do') ?? '');
  const refuse = (status: number, message: string): Answer => ({ status, body: { message, url: '' } });
  if (pr.merged) return refuse(405, 'The PR is already merged');
  if (pr.state === 'closed') return refuse(404, 'The PR is closed');
  const head = await fake.headOf(index);
  const base = (await fake.branchSha(pr.base))!;
  let mergeSha: string;
  if (style === 'manually-merged') {
    if (!fake.allowManualMerge) return refuse(405, 'manually-merged is not allowed an allowed merge style');
    // The server writes the error value itself: `{}`. It does not look at head_commit_id here.
    const commit = String(field(mergeCommitField(fake)) ?? '');
    if (
      !/^[0-9a-f]{40}$/.test(commit) ||
      !(await fake.repo.hasCommit(commit)) ||
      !(await fake.repo.isAncestor(commit, base))
    )
      return { status: 409, body: {} };
    mergeSha = commit;
  } else {
    const expected = body.head_commit_id;
    if (typeof expected === 'string' && expected !== '' && expected !== head) return refuse(409, 'head out of date');
    if (WIP.test(pr.title)) return refuse(405, 'Work in progress PRs cannot be merged');
    const protection = fake.protectionOf(pr.base);
    if (protection?.enable_status_check) {
      const latest = fake.latestStatuses(head);
      const missing = protection.status_check_contexts.filter(
        (c) => !latest.some((s) => s.context === c && s.state === 'success'),
      );
      if (missing.length > 0) return refuse(405, 'Not all required status checks successful');
    }
    const made = await mergeCommits(fake, style, pr, base, head);
    if (typeof made !== 'string') return made;
    mergeSha = made;
    await fake.setBranch(pr.base, mergeSha);
  }
  fake.markMerged(pr, mergeSha, fake.tokenUser);
  return { status: 200, body: null };
}

/** The merge form's field the server binds the merge commit to, by version. */
export function mergeCommitField(fake: FakeGiteaApi): string {
  return fake.dialect === 'gitea' && !/^1\.2[0-6]\./.test(fake.version) ? 'merge_commit_id' : 'MergeCommitID';
}

/** The base's new tip for a merge of `style`, made with git, or the forge's refusal. */
export async function mergeCommits(
  fake: FakeGiteaApi,
  style: string,
  pr: FakePull,
  base: string,
  head: string,
): Promise<string | Answer> {
  const conflict: Answer = { status: 409, body: { message: 'merge conflict', url: '' } };
  const title = `${pr.title} (#${pr.number})`;
  if (style === 'fast-forward-only') {
    if (!(await fake.repo.isAncestor(base, head)))
      return { status: 409, body: { message: 'not fast-forward', url: '' } };
    return head;
  }
  if (style === 'merge' || style === 'squash') {
    const tree = await fake.repo.mergeTree(base, head);
    if (!tree) return conflict;
    return style === 'merge'
      ? fake.repo.commitTree(tree, [base, head], `Merge pull request '${pr.title}' (#${pr.number})`)
      : fake.repo.commitTree(tree, [base], title);
  }
  if (style === 'rebase' || style === 'rebase-merge') {
    const list = (await git(['rev-list', '--reverse', '--no-merges', `${base}..${head}`], { cwd: fake.repo.bare }))
      .split('\n')
      .filter(Boolean);
    let onto = base;
    for (const c of list) {
      const tree = await fake.repo.mergeTree(onto, c, `${c}^`);
      if (!tree) return conflict;
      const message = await git(['log', '-1', '--format=%B', c], { cwd: fake.repo.bare });
      onto = await fake.repo.commitTree(tree, [onto], message);
    }
    if (style === 'rebase') return onto;
    return fake.repo.commitTree(
      (await git(['rev-parse', `${onto}^{tree}`], { cwd: fake.repo.bare })).trim(),
      [base, onto],
      `Merge pull request '${pr.title}' (#${pr.number})`,
    );
  }
  return { status: 405, body: { message: `merge style "${style}" is not allowed`, url: '' } };
}
