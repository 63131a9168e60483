/**
 * The fake of Gitea and Forgejo's answers (fake-gitea-api.ts) as the forge shapes them: users, the
 * repository, pull requests, statuses, comments, labels, branches and their protection rules.
 */
import { createHash } from 'node:crypto';
import type { FakeGiteaApi } from './fake-gitea-api.js';
import {
  type FakeComment,
  type FakeProtection,
  type FakePull,
  type FakeStatus,
  iso,
  type Json,
  pageOf,
  type StatusState,
  WIP,
  WRITE,
  ZERO,
} from './fake-gitea-model.js';

export function userJson(fake: FakeGiteaApi, login: string): Json {
  const id = Number.parseInt(createHash('sha1').update(login).digest('hex').slice(0, 6), 16);
  return {
    id,
    login,
    login_name: '',
    username: login,
    full_name: '',
    email: `${login}@example.com`,
    avatar_url: `${fake.url}/avatars/${id}`,
    html_url: `${fake.url}/${login}`,
    is_admin: false,
    created: '2026-01-01T00:00:00Z',
    last_login: '2026-01-01T00:00:00Z',
  };
}

export function repositoryJson(fake: FakeGiteaApi): Json {
  const rank = fake.rank(fake.tokenUser);
  return {
    id: 42,
    name: fake.name,
    full_name: `${fake.owner}/${fake.name}`,
    owner: userJson(fake, fake.owner),
    description: '',
    private: false,
    fork: false,
    empty: false,
    mirror: false,
    archived: false,
    default_branch: fake.defaultBranch,
    html_url: `${fake.url}/${fake.owner}/${fake.name}`,
    clone_url: `${fake.url}/${fake.owner}/${fake.name}.git`,
    ssh_url: `git@127.0.0.1:${fake.owner}/${fake.name}.git`,
    url: `${fake.url}/api/v1/repos/${fake.owner}/${fake.name}`,
    permissions: { admin: rank >= 3, push: rank >= 2, pull: rank >= 1 },
    has_pull_requests: true,
    allow_merge_commits: true,
    allow_rebase: true,
    allow_rebase_explicit: true,
    allow_squash_merge: true,
    allow_fast_forward_only_merge: true,
    default_merge_style: 'merge',
    // Forgejo's API does not show the manual merge settings.
    ...(fake.dialect === 'gitea' ? { allow_manual_merge: fake.allowManualMerge, autodetect_manual_merge: false } : {}),
    created_at: '2026-01-01T00:00:00Z',
    updated_at: '2026-01-01T00:00:00Z',
  };
}

export async function pullJson(fake: FakeGiteaApi, pr: FakePull): Promise<Json> {
  const head = await fake.headOf(pr.number);
  const base = (await fake.branchSha(pr.base)) ?? ZERO;
  const mergeBase = await fake.repo.mergeBase(base, head);
  const mergeable = pr.state === 'open' && (await fake.repo.mergeTree(base, head)) !== null;
  const web = `${fake.url}/${fake.owner}/${fake.name}/pulls/${pr.number}`;
  const repo = repositoryJson(fake);
  return {
    id: 1000 + pr.number,
    number: pr.number,
    url: web,
    html_url: web,
    diff_url: `${web}.diff`,
    patch_url: `${web}.patch`,
    title: pr.title,
    body: pr.body,
    state: pr.state,
    draft: WIP.test(pr.title),
    is_locked: false,
    user: userJson(fake, pr.user),
    labels: pr.labels.map((id) => labelJson(fake, id)),
    mergeable,
    merged: pr.merged,
    merged_at: pr.merged_at,
    merged_by: pr.merged_by ? userJson(fake, pr.merged_by) : null,
    merge_commit_sha: pr.merge_commit_sha,
    merge_base: mergeBase,
    head: { label: pr.head, ref: pr.head, sha: head, repo_id: 42, repo },
    base: { label: pr.base, ref: pr.base, sha: base, repo_id: 42, repo },
    comments: fake.comments.filter((c) => c.issue === pr.number).length,
    created_at: '2026-01-05T09:00:00Z',
    updated_at: iso(fake.now()),
    closed_at: pr.closed_at,
  };
}

export function statusJson(fake: FakeGiteaApi, s: FakeStatus): Json {
  return {
    id: s.id,
    status: s.state,
    context: s.context,
    description: s.description,
    target_url: s.target_url,
    url: `${fake.url}/api/v1/repos/${fake.owner}/${fake.name}/statuses/${s.sha}`,
    creator: userJson(fake, s.creator),
    created_at: s.created_at,
    updated_at: s.created_at,
  };
}

/**
 * The combined status of a commit: the latest status of each context, paged (`page`, `limit`), and
 * the state of that page as the forge computes it (the worst: error, failure, pending, warning, then
 * success, skipped; `""` when there are none).
 */
export function combinedJson(fake: FakeGiteaApi, sha: string, query: URLSearchParams): Json {
  const all = fake.latestStatuses(sha);
  const { page, limit } = pageOf(query);
  const statuses = all.slice((page - 1) * limit, page * limit);
  const order: StatusState[] = ['error', 'failure', 'pending', 'warning', 'success', 'skipped'];
  const state = order.find((o) => statuses.some((s) => s.state === o)) ?? '';
  return {
    sha,
    state,
    statuses: statuses.map((s) => statusJson(fake, s)),
    total_count: all.length,
    commit_url: `${fake.url}/api/v1/repos/${fake.owner}/${fake.name}/commits/${sha}`,
    url: `${fake.url}/api/v1/repos/${fake.owner}/${fake.name}/commits/${sha}/status`,
    repository: repositoryJson(fake),
  };
}

export function commentJson(fake: FakeGiteaApi, c: FakeComment): Json {
  return {
    id: c.id,
    body: c.body,
    user: userJson(fake, c.user),
    html_url: `${fake.url}/${fake.owner}/${fake.name}/pulls/${c.issue}#issuecomment-${c.id}`,
    issue_url: `${fake.url}/${fake.owner}/${fake.name}/issues/${c.issue}`,
    pull_request_url: `${fake.url}/${fake.owner}/${fake.name}/pulls/${c.issue}`,
    created_at: c.created_at,
    updated_at: c.updated_at,
  };
}

export function labelJson(fake: FakeGiteaApi, id: number): Json {
  const l = fake.labels.find((x) => x.id === id)!;
  return {
    id: l.id,
    name: l.name,
    color: l.color,
    description: l.description,
    exclusive: false,
    is_archived: false,
    url: `${fake.url}/api/v1/repos/${fake.owner}/${fake.name}/labels/${l.id}`,
  };
}

/** A branch as the branch API shows it to the token's user: the rule that protects it included. */
export function branchJson(fake: FakeGiteaApi, branch: string, sha: string): Json {
  const p = fake.protectionOf(branch);
  const mayPush =
    fake.rank(fake.tokenUser) >= WRITE && (!p?.push_allowlist || p.push_allowlist.includes(fake.tokenUser));
  return {
    name: branch,
    commit: { id: sha },
    protected: p !== null,
    effective_branch_protection_name: p?.rule_name ?? '',
    enable_status_check: p?.enable_status_check ?? false,
    status_check_contexts: p?.status_check_contexts ?? [],
    required_approvals: p?.required_approvals ?? 0,
    user_can_push: mayPush,
    user_can_merge: mayPush,
  };
}

export function protectionJson(p: FakeProtection): Json {
  return {
    rule_name: p.rule_name,
    branch_name: p.rule_name,
    enable_status_check: p.enable_status_check,
    status_check_contexts: p.status_check_contexts,
    required_approvals: p.required_approvals ?? 0,
    block_on_outdated_branch: p.block_on_outdated_branch ?? false,
    enable_push: true,
    enable_push_whitelist: p.push_allowlist !== undefined,
    push_whitelist_usernames: p.push_allowlist ?? [],
    created_at: '2026-01-01T00:00:00Z',
    updated_at: '2026-01-01T00:00:00Z',
  };
}
