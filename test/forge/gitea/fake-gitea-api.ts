/**
 * A FAKE of a Gitea or Forgejo server for tests: a real HTTP server (127.0.0.1, a free port) with one
 * repository, backed by a real bare git repository, that answers the API at `/api/v1` and git's smart
 * HTTP protocol at `/<owner>/<name>.git` (through `git http-backend`), as the forge does.
 *
 * It cannot be kinder than the forge: every API request is checked against the dialect's own Swagger
 * document (gitea-description.ts: routes, parameters, bodies with no field the forge does not know)
 * and so is every answer (a documented status, a body valid against its schema); what the forge would
 * not take or give is a `violation`, and a test after which any fake saw one fails. The document names
 * the operation a request is (`repoGetPullRequest`), and the fake answers from its table of handlers
 * by operation id.
 *
 * What it holds and does, as the fact sheet (test/fixtures/gitea/README.md) says the forges do:
 * - The repository: branches and commits in the bare repository; owner and name in any letter case
 *   (answers spell them canonically); `Authorization: token …` on the API, the token as the password
 *   of git's Basic auth (401 otherwise).
 * - Pull requests: head at `refs/pull/<n>/head` (and the head branch), `mergeable` computed with
 *   `git merge-tree` against the base, drafts by title prefix (`WIP:`, `[WIP]`), labels by id.
 * - Merging (`POST …/pulls/{index}/merge`): the field spellings of the server's version (`do`/`Do`;
 *   the merge commit `MergeCommitID` on Gitea 1.26 and Forgejo, `merge_commit_id` on Gitea 1.28;
 *   names matched ignoring case, as Go binds them, others ignored), `head_commit_id` guard (409 "head
 *   out of date") except for `manually-merged`, which ignores it; conflicts 409, required status
 *   contexts of branch protection 405, `merge`, `squash`, `rebase`, `rebase-merge`,
 *   `fast-forward-only` done with real git, `manually-merged` only where the repository allows it
 *   (`allowManualMerge`, off as in a new repository: 405) with a commit the base holds, `409 {}` when
 *   the merge commit arrives under the spelling the version does not bind (it is then empty). A push
 *   of the PR's head into the base does not mark it merged (autodetect_manual_merge is off by default).
 * - Access as the server checks it: the protection rules (`…/branch_protections`) and another user's
 *   permission (`…/collaborators/{user}/permission`) only for a token whose user is admin or owner
 *   (403 otherwise); the branch API shows a Write user the branch's rule (`protected`,
 *   `enable_status_check`, `status_check_contexts`, `user_can_push`), `…/assignees` the users with
 *   Write or more.
 * - Commit statuses (create, list per sha and per ref, combined with state `""` when there are none),
 *   comments, repository and PR labels, collaborator permission, branch protections.
 * - Pages: `page` (1-based) and `limit` (default 30, at most 50: larger limits are cut down, as the
 *   forge does), with `Link` and `X-Total-Count` headers, on the operations the document pages.
 * - Git processes only where git must work: the refs are kept in memory (read once, kept in step with
 *   the fake's own writes, read again after a push), and answers about commits, which never change
 *   (merge base, merge tree, ancestry), are asked of git once per server.
 * - Webhook deliveries shaped like the captured payloads (test/fixtures/gitea/webhooks/) and signed as
 *   the forge signs them (`signedDelivery`), posted once to the hooks a test adds: like the forges, the
 *   fake never delivers again a delivery that failed; Forgejo has no `status` event.
 *
 * This file holds the fake's state and what tests do with it; its parts are alongside: the HTTP
 * server (fake-gitea-server.ts), the bare repository and git over HTTP (fake-gitea-git.ts), the
 * answers by operation id (fake-gitea-operations.ts), merging (fake-gitea-merge.ts), the answers'
 * shapes (fake-gitea-json.ts), webhook deliveries (fake-gitea-deliveries.ts), and the records and
 * rules they share (fake-gitea-model.ts).
 */
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach } from 'vitest';
import type { Violation } from '../../doubles/api-description.js';
import { makeTempDir, removeTempDir } from '../../helpers/temp-dir.js';
import { commentPayload, deliver, pullRequestPayload, pushPayload, statusPayload } from './fake-gitea-deliveries.js';
import { BareRepository } from './fake-gitea-git.js';
import { userJson } from './fake-gitea-json.js';
import { mergeCommits } from './fake-gitea-merge.js';
import {
  type FakeComment,
  type FakeProtection,
  type FakePull,
  type FakeStatus,
  type GiteaVersion,
  iso,
  type Json,
  PERMISSIONS,
  type Permission,
  type RecordedCall,
  ruleMatches,
  type StatusState,
} from './fake-gitea-model.js';
import { giteaServer } from './fake-gitea-server.js';
import type { Dialect } from './gitea-description.js';

export { capturedPayload, type Delivery, signedDelivery } from './fake-gitea-deliveries.js';
export type {
  FakeComment,
  FakeProtection,
  FakePull,
  FakeStatus,
  GiteaVersion,
  Permission,
  RecordedCall,
  StatusState,
} from './fake-gitea-model.js';
export type { Dialect } from './gitea-description.js';

export class FakeGiteaApi {
  readonly calls: RecordedCall[] = [];
  readonly violations: Violation[] = [];
  readonly pulls = new Map<number, FakePull>();
  readonly statuses: FakeStatus[] = [];
  readonly comments: FakeComment[] = [];
  readonly labels: { id: number; name: string; color: string; description: string }[] = [];
  readonly protections: FakeProtection[] = [];
  /** Users and their permission on the repository; the token's user is `tokenUser`. */
  readonly users = new Map<string, Permission>([
    ['greenline', 'write'],
    ['ada', 'write'],
  ]);
  /** Where deliveries go (`deliver`), each with its secret. */
  readonly hooks: { url: string; secret: string }[] = [];
  token = 'gitea-test-token';
  tokenUser = 'greenline';
  defaultBranch = 'main';
  /** The repository's "Enable Mark PR as manually merged" (`allow_manual_merge`): off in a new repository. */
  allowManualMerge = false;
  /** The fake's clock, for the times it writes (commits it makes, statuses, comments). */
  now: () => number = () => Date.UTC(2026, 0, 5, 9);
  /** The repository, a real bare git repository (fake-gitea-git.ts). */
  readonly repo: BareRepository;
  private nextId = 100;
  private server: Server | null = null;
  url = '';

  private constructor(
    readonly dialect: Dialect,
    readonly owner: string,
    readonly name: string,
    root: string,
    /** The server's version: Gitea 1.26 binds the merge commit as `MergeCommitID`, 1.28 as `merge_commit_id`. */
    readonly version: GiteaVersion,
  ) {
    this.repo = new BareRepository(root, owner, name, () => this.commitTime());
    made.push(this);
  }

  /** A running fake of `dialect` with an empty repository `owner/name` whose `main` holds one commit. */
  static async start(
    dialect: Dialect,
    opts: { owner?: string; name?: string; version?: GiteaVersion } = {},
  ): Promise<FakeGiteaApi> {
    const root = await makeTempDir(`greenline-${dialect}-`);
    const version = opts.version ?? (dialect === 'gitea' ? '1.28.0-dev-204' : '17.0.0-dev-38');
    const fake = new FakeGiteaApi(dialect, opts.owner ?? 'acme', opts.name ?? 'web', root, version);
    await fake.repo.init();
    await fake.setBranch('main', await fake.commit(null, { 'README.md': '# web\n' }, 'Initial commit'));
    const server = giteaServer(fake);
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    fake.server = server;
    fake.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    return fake;
  }

  get root(): string {
    return this.repo.root;
  }

  get bare(): string {
    return this.repo.bare;
  }

  /** The clone URL with credentials, as a developer or CI would use it. */
  get gitUrl(): string {
    const u = new URL(`${this.url}/${this.owner}/${this.name}.git`);
    u.username = this.tokenUser;
    u.password = this.token;
    return u.href;
  }

  async close(): Promise<void> {
    const server = this.server;
    this.server = null;
    if (server) await new Promise<void>((resolve) => server.close(() => resolve()));
    server?.closeAllConnections();
    await removeTempDir(this.root);
  }

  // ---- the repository, as people and CI change it --------------------------------------------------

  /** A commit on `parent` (null: a root commit) setting or (null) deleting files; its sha. */
  commit(parent: string | null, files: Record<string, string | null>, message: string): Promise<string> {
    return this.repo.commit(parent, files, message);
  }

  /** The sha `ref` (a full ref name: `refs/heads/main`) points to, or null. */
  refSha(ref: string): Promise<string | null> {
    return this.repo.refSha(ref);
  }

  async branchSha(branch: string): Promise<string | null> {
    return this.refSha(`refs/heads/${branch}`);
  }

  async setBranch(branch: string, sha: string | null): Promise<void> {
    await this.repo.setRef(`refs/heads/${branch}`, sha);
  }

  fileAt(rev: string, file: string): Promise<string | null> {
    return this.repo.fileAt(rev, file);
  }

  isAncestor(ancestor: string, sha: string): Promise<boolean> {
    return this.repo.isAncestor(ancestor, sha);
  }

  /** Opens PR `n` from branch `feature-<n>` at `headSha` into `base`. */
  async openPr(n: number, opts: { headSha: string; base?: string; title?: string; user?: string }): Promise<FakePull> {
    const pr: FakePull = {
      number: n,
      title: opts.title ?? `Change ${n}`,
      body: '',
      user: opts.user ?? 'ada',
      state: 'open',
      merged: false,
      merged_at: null,
      merged_by: null,
      merge_commit_sha: null,
      closed_at: null,
      head: `feature-${n}`,
      base: opts.base ?? this.defaultBranch,
      labels: [],
    };
    this.pulls.set(n, pr);
    await this.pushToPr(n, opts.headSha);
    return pr;
  }

  /** The author pushes `sha` to PR `n`'s branch: its head ref follows. */
  async pushToPr(n: number, sha: string): Promise<void> {
    const pr = this.pull(n);
    await this.setBranch(pr.head, sha);
    await this.repo.setRef(`refs/pull/${n}/head`, sha);
  }

  pull(n: number): FakePull {
    const pr = this.pulls.get(n);
    if (!pr) throw new Error(`no PR #${n}`);
    return pr;
  }

  async headOf(n: number): Promise<string> {
    return (await this.refSha(`refs/pull/${n}/head`))!;
  }

  closePr(n: number): void {
    Object.assign(this.pull(n), { state: 'closed', closed_at: iso(this.now()) });
  }

  /**
   * Someone merges PR `n` on the forge's web page (a merge commit, no checks asked): the base moves
   * and the PR shows merged.
   */
  async mergeOnForge(n: number, by = 'ada'): Promise<string> {
    const pr = this.pull(n);
    const made = await mergeCommits(this, 'merge', pr, (await this.branchSha(pr.base))!, await this.headOf(n));
    if (typeof made !== 'string') throw new Error(`PR #${n} does not merge: ${JSON.stringify(made.body)}`);
    await this.setBranch(pr.base, made);
    this.markMerged(pr, made, by);
    return made;
  }

  /** Marks `pr` merged by `by` into `sha`, now. */
  markMerged(pr: FakePull, sha: string, by: string): void {
    Object.assign(pr, {
      state: 'closed',
      merged: true,
      merged_at: iso(this.now()),
      closed_at: iso(this.now()),
      merged_by: by,
      merge_commit_sha: sha,
    });
  }

  /** The repository label `name` (made when missing); its id. */
  label(name: string): number {
    const found = this.labels.find((l) => l.name === name);
    if (found) return found.id;
    const id = this.nextId++;
    this.labels.push({ id, name, color: '00aabb', description: '' });
    return id;
  }

  /** A status as CI reports it. */
  addStatus(sha: string, context: string, state: StatusState, creator = 'ci'): FakeStatus {
    const s: FakeStatus = {
      id: this.nextId++,
      sha,
      context,
      state,
      description: '',
      target_url: '',
      creator,
      created_at: iso(this.now()),
    };
    this.statuses.push(s);
    return s;
  }

  /** A comment on PR `n` by `user`. */
  addComment(n: number, body: string, user: string): FakeComment {
    const at = iso(this.now());
    const c: FakeComment = { id: this.nextId++, issue: n, body, user, created_at: at, updated_at: at };
    this.comments.push(c);
    return c;
  }

  /** The latest status of each context of a commit, newest first (what the forge shows). */
  latestStatuses(sha: string): FakeStatus[] {
    const seen = new Set<string>();
    return this.statuses
      .filter((s) => s.sha === sha)
      .reverse()
      .filter((s) => !seen.has(s.context) && seen.add(s.context));
  }

  /** `METHOD path` of every API call, in order. */
  get log(): string[] {
    return this.calls.map((c) => `${c.method} ${c.path}`);
  }

  /** A user's rank on the repository (none 0 … owner 4). */
  rank(user: string): number {
    return PERMISSIONS.indexOf(this.users.get(user) ?? 'none');
  }

  /** The protection rule that protects `branch`, or null. */
  protectionOf(branch: string): FakeProtection | null {
    return this.protections.find((p) => ruleMatches(p.rule_name, branch)) ?? null;
  }

  /** The date of the next commit the fake writes (seconds): its clock, a second later each time. */
  private commitTime(): number {
    return Math.floor(this.now() / 1000) + this.nextId++;
  }

  // ---- webhook deliveries (fake-gitea-deliveries.ts) -----------------------------------------------

  /** Posts a delivery of `eventType` to every hook; the answers. */
  deliver(eventType: string, payload: Json): Promise<{ status: number; body: string }[]> {
    return deliver(this, eventType, payload);
  }

  /** A `pull_request` payload of `action` for PR `n` as it is now, from the captured one. */
  pullRequestPayload(action: string, n: number, more: Json = {}): Promise<Json> {
    return pullRequestPayload(this, action, n, more);
  }

  /** A `push` payload of `branch` moving from `before` to `after`. */
  pushPayload(branch: string, before: string, after: string): Json {
    return pushPayload(this, branch, before, after);
  }

  /** An `issue_comment` `created` payload of a comment on PR `n`. */
  commentPayload(n: number, comment: FakeComment): Json {
    return commentPayload(this, n, comment);
  }

  /** A `status` payload (Gitea only; no capture exists: CommitStatusPayload's fields). */
  statusPayload(s: FakeStatus): Json {
    return statusPayload(this, s);
  }

  /** A user as the forge shows one. */
  userJson(login: string): Json {
    return userJson(this, login);
  }
}

/** Every fake made in a test file; a test after which any of them saw a violation fails. */
const made: FakeGiteaApi[] = [];

/** Throws, naming each, when any fake saw what its forge would not take or give since last asked. */
export function expectNoViolations(): void {
  const seen = made.flatMap((f) => f.violations.splice(0).map((v) => ({ ...v, dialect: f.dialect })));
  if (seen.length > 0)
    throw new Error(
      `the forge would not have taken or answered this:\n${seen.map((v) => `  ${v.dialect}: ${v.method} ${v.path}: ${v.message}`).join('\n')}`,
    );
}

if (process.env.VITEST) afterEach(expectNoViolations);
