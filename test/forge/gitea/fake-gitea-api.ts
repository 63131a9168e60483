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
 */
import { createHash, createHmac, randomUUID } from 'node:crypto';
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { afterEach } from 'vitest';
import { git, runGit } from '../../../src/git/git.js';
import type { Operation, Violation } from '../../doubles/api-description.js';
import { commitFiles } from '../../helpers/git-commit.js';
import { makeTempDir, removeTempDir } from '../../helpers/temp-dir.js';
import { type Dialect, giteaDescription } from './gitea-description.js';

export type { Dialect } from './gitea-description.js';

type Json = Record<string, unknown>;
export type Permission = 'none' | 'read' | 'write' | 'admin' | 'owner';
/** A server's version as `GET /version` answers it (`1.26.1`, `1.28.0-dev-204`, Forgejo's `17.0.0-dev-38`). */
export type GiteaVersion = string;
export type StatusState = 'pending' | 'success' | 'error' | 'failure' | 'warning' | 'skipped';

export interface FakePull {
  number: number;
  title: string;
  body: string;
  user: string;
  state: 'open' | 'closed';
  merged: boolean;
  merged_at: string | null;
  merged_by: string | null;
  merge_commit_sha: string | null;
  closed_at: string | null;
  head: string;
  base: string;
  /** Label ids. */
  labels: number[];
}

export interface FakeStatus {
  id: number;
  sha: string;
  context: string;
  state: StatusState;
  description: string;
  target_url: string;
  creator: string;
  created_at: string;
}

export interface FakeComment {
  id: number;
  issue: number;
  body: string;
  user: string;
  created_at: string;
  updated_at: string;
}

export interface FakeProtection {
  rule_name: string;
  enable_status_check: boolean;
  status_check_contexts: string[];
  required_approvals?: number;
  block_on_outdated_branch?: boolean;
  /** The push allowlist: when set, only these users may push to the branches the rule protects. */
  push_allowlist?: string[];
}

export interface RecordedCall {
  method: string;
  /** Path under /api/v1 with its query, decoded: `GET /repos/acme/web/pulls/1`. */
  path: string;
  body: unknown;
  authorization: string | null;
  status: number;
}

/** A delivery as the forge posts it: its headers and its exact body. */
export interface Delivery {
  headers: Record<string, string>;
  body: string;
}

/** `X-Gitea-Event` of each event type (`X-Gitea-Event-Type`), as the forges map them. */
const EVENT_OF: Record<string, string> = {
  pull_request: 'pull_request',
  pull_request_assign: 'pull_request',
  pull_request_label: 'pull_request',
  pull_request_milestone: 'pull_request',
  pull_request_sync: 'pull_request',
  pull_request_review_request: 'pull_request',
  issue_comment: 'issue_comment',
  pull_request_comment: 'issue_comment',
  pull_request_review_approved: 'pull_request_approved',
  pull_request_review_rejected: 'pull_request_rejected',
  pull_request_review_comment: 'pull_request_comment',
  push: 'push',
  status: 'status',
};

/**
 * A webhook delivery of `eventType` as `dialect` sends it: the payload's JSON as body (a string is
 * sent as those exact bytes), the
 * HMAC-SHA256 (hex) of exactly those bytes in `X-Gitea-Signature` (and `X-Forgejo-Signature`,
 * `X-Gogs-Signature`, `X-Hub-Signature-256: sha256=…`), HMAC-SHA1 in `X-Hub-Signature`, and the
 * event, event type and delivery id under each name the forge uses. Forgejo has no `status` event.
 */
export function signedDelivery(dialect: Dialect, eventType: string, payload: unknown, secret: string): Delivery {
  const event = EVENT_OF[eventType];
  if (!event) throw new Error(`no ${dialect} event type ${eventType}`);
  if (dialect === 'forgejo' && eventType === 'status') throw new Error('Forgejo sends no status event');
  const body = typeof payload === 'string' ? payload : JSON.stringify(payload, null, 2);
  const sha256 = secret === '' ? '' : createHmac('sha256', secret).update(body).digest('hex');
  const sha1 = secret === '' ? '' : createHmac('sha1', secret).update(body).digest('hex');
  const id = randomUUID();
  const headers: Record<string, string> = {
    'content-type': 'application/json',
    'x-gitea-delivery': id,
    'x-gitea-event': event,
    'x-gitea-event-type': eventType,
    'x-gitea-signature': sha256,
    'x-gogs-delivery': id,
    'x-gogs-event': event,
    'x-gogs-event-type': eventType,
    'x-gogs-signature': sha256,
    'x-hub-signature': `sha1=${sha1}`,
    'x-hub-signature-256': `sha256=${sha256}`,
    'x-github-delivery': id,
    'x-github-event': event,
    'x-github-event-type': eventType,
  };
  if (dialect === 'gitea') {
    headers['x-gitea-hook-installation-target-type'] = 'repository';
    headers['x-github-hook-installation-target-type'] = 'repository';
  } else {
    Object.assign(headers, {
      'x-forgejo-delivery': id,
      'x-forgejo-event': event,
      'x-forgejo-event-type': eventType,
      'x-forgejo-signature': sha256,
    });
  }
  return { headers, body };
}

const FIXTURES = new URL('../../fixtures/gitea/webhooks/', import.meta.url);

/** A captured payload (`gitea.pull_request.opened`), a fresh copy. */
export function capturedPayload(name: string): Json {
  return JSON.parse(readFileSync(new URL(`${name}.json`, FIXTURES), 'utf8')) as Json;
}

const ZERO = '0000000000000000000000000000000000000000';
/** The forge's own signature, on the commits it makes. */
const GITEA = { name: 'Gitea', email: 'noreply@gitea.test' };
const WIP = /^\s*(WIP:|\[WIP\])/i;
const iso = (ms: number): string => new Date(ms).toISOString().replace(/\.\d{3}Z$/, 'Z');

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
  private nextId = 100;
  private server: Server | null = null;
  /** The repository's refs as last read (`allRefs`), or null: read them again. */
  private refs: Promise<Map<string, string>> | null = null;
  /** Git's answers that never change (about objects, the server's capabilities), by question (`memo`). */
  private readonly memos = new Map<string, Promise<unknown>>();
  url = '';

  private constructor(
    readonly dialect: Dialect,
    readonly owner: string,
    readonly name: string,
    readonly root: string,
    /** The server's version: Gitea 1.26 binds the merge commit as `MergeCommitID`, 1.28 as `merge_commit_id`. */
    readonly version: GiteaVersion,
  ) {
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
    await git(['init', '--bare', '--quiet', '--initial-branch=main', fake.bare]);
    await fake.setBranch('main', await fake.commit(null, { 'README.md': '# web\n' }, 'Initial commit'));
    const server = createServer((req, res) => {
      fake.handle(req, res).catch((err: unknown) => {
        fake.violations.push({
          method: req.method ?? '',
          path: req.url ?? '',
          message: `the fake failed: ${String(err)}`,
        });
        if (!res.headersSent) res.writeHead(500, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ message: String(err), url: '' }));
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    fake.server = server;
    fake.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    return fake;
  }

  get bare(): string {
    return path.join(this.root, this.owner, `${this.name}.git`);
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
  async commit(parent: string | null, files: Record<string, string | null>, message: string): Promise<string> {
    return commitFiles(this.bare, {
      parent,
      files,
      message,
      author: { name: 'Ada Lovelace', email: 'ada@example.com' },
      committer: GITEA,
      time: this.commitTime(),
    });
  }

  /** The sha `ref` (a full ref name: `refs/heads/main`) points to, or null. */
  async refSha(ref: string): Promise<string | null> {
    return (await this.allRefs()).get(ref) ?? null;
  }

  async branchSha(branch: string): Promise<string | null> {
    return this.refSha(`refs/heads/${branch}`);
  }

  async setBranch(branch: string, sha: string | null): Promise<void> {
    await this.setRef(`refs/heads/${branch}`, sha);
  }

  /**
   * Every ref of the repository (name → sha), read with one `git for-each-ref` and then kept: the fake
   * writes its refs through `setRef`, which keeps this in step, and forgets it when a push came in.
   */
  private allRefs(): Promise<Map<string, string>> {
    this.refs ??= git(['for-each-ref', '--format=%(objectname) %(refname)'], { cwd: this.bare }).then(
      (out) =>
        new Map(out.split('\n').flatMap((line) => (line ? [line.split(' ').reverse() as [string, string]] : []))),
      (err: unknown) => {
        this.refs = null;
        throw err;
      },
    );
    return this.refs;
  }

  private async setRef(ref: string, sha: string | null): Promise<void> {
    await git(sha ? ['update-ref', ref, sha] : ['update-ref', '-d', ref], { cwd: this.bare });
    const refs = await this.refs;
    if (sha) refs?.set(ref, sha);
    else refs?.delete(ref);
  }

  /** Git's answer that never changes, asked once per question. */
  private memo<T>(key: string, answer: () => Promise<T>): Promise<T> {
    let found = this.memos.get(key) as Promise<T> | undefined;
    if (!found) {
      found = answer();
      this.memos.set(key, found);
      found.catch(() => this.memos.delete(key));
    }
    return found;
  }

  async fileAt(rev: string, file: string): Promise<string | null> {
    const out = await runGit(['cat-file', '-p', `${rev}:${file}`], { cwd: this.bare, okCodes: [128] });
    return out.code === 0 ? out.stdout : null;
  }

  async isAncestor(ancestor: string, sha: string): Promise<boolean> {
    return this.memo(`is-ancestor ${ancestor} ${sha}`, async () => {
      const out = await runGit(['merge-base', '--is-ancestor', ancestor, sha], { cwd: this.bare, okCodes: [1] });
      return out.code === 0;
    });
  }

  /** Whether the repository holds commit `sha`. */
  private async hasCommit(sha: string): Promise<boolean> {
    return (await runGit(['cat-file', '-e', `${sha}^{commit}`], { cwd: this.bare, okCodes: [1, 128] })).code === 0;
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
    await this.setRef(`refs/pull/${n}/head`, sha);
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
    const made = await this.mergeCommits('merge', pr, (await this.branchSha(pr.base))!, await this.headOf(n));
    if (typeof made !== 'string') throw new Error(`PR #${n} does not merge: ${JSON.stringify(made.body)}`);
    await this.setBranch(pr.base, made);
    this.markMerged(pr, made, by);
    return made;
  }

  private markMerged(pr: FakePull, sha: string, by: string): void {
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

  // ---- webhook deliveries --------------------------------------------------------------------------

  /** Posts a delivery of `eventType` to every hook; the answers. */
  async deliver(eventType: string, payload: Json): Promise<{ status: number; body: string }[]> {
    const answers: { status: number; body: string }[] = [];
    for (const hook of this.hooks) {
      const d = signedDelivery(this.dialect, eventType, payload, hook.secret);
      const res = await fetch(hook.url, { method: 'POST', headers: d.headers, body: d.body });
      answers.push({ status: res.status, body: await res.text() });
    }
    return answers;
  }

  /** A template of the dialect when one was captured, else Gitea's (the forges share the payload structs). */
  private template(name: string): Json {
    try {
      return capturedPayload(`${this.dialect}.${name}`);
    } catch {
      return capturedPayload(`gitea.${name}`);
    }
  }

  /** A `pull_request` payload of `action` for PR `n` as it is now, from the captured one. */
  async pullRequestPayload(action: string, n: number, more: Json = {}): Promise<Json> {
    const name =
      action === 'closed' && this.pull(n).merged ? 'pull_request.closed-merged' : `pull_request.${templateOf(action)}`;
    const p = this.template(name);
    return {
      ...p,
      action,
      number: n,
      pull_request: { ...(p.pull_request as Json), ...(await this.pullJson(this.pull(n))) },
      repository: { ...(p.repository as Json), ...this.repositoryJson() },
      sender: this.userJson(this.pull(n).user),
      ...more,
    };
  }

  /** A `push` payload of `branch` moving from `before` to `after`. */
  pushPayload(branch: string, before: string, after: string): Json {
    const p = this.template('push');
    return {
      ...p,
      ref: `refs/heads/${branch}`,
      before,
      after,
      compare_url: `${this.url}/${this.owner}/${this.name}/compare/${before}...${after}`,
      commits: [],
      head_commit: { ...(p.head_commit as Json), id: after },
      repository: { ...(p.repository as Json), ...this.repositoryJson() },
    };
  }

  /** An `issue_comment` `created` payload of a comment on PR `n`. */
  commentPayload(n: number, comment: FakeComment): Json {
    const p = capturedPayload('gitea.issue_comment.created-on-pull');
    const pr = this.pull(n);
    return {
      ...p,
      issue: {
        ...(p.issue as Json),
        number: n,
        title: pr.title,
        state: pr.state,
        user: this.userJson(pr.user),
        pull_request: { merged: pr.merged, merged_at: pr.merged_at },
      },
      comment: { ...(p.comment as Json), ...this.commentJson(comment) },
      repository: { ...(p.repository as Json), ...this.repositoryJson() },
      sender: this.userJson(comment.user),
      is_pull: true,
    };
  }

  /** A `status` payload (Gitea only; no capture exists: CommitStatusPayload's fields). */
  statusPayload(s: FakeStatus): Json {
    return {
      id: s.id,
      sha: s.sha,
      context: s.context,
      state: s.state,
      description: s.description,
      target_url: s.target_url,
      commit: { id: s.sha, message: '', url: `${this.url}/${this.owner}/${this.name}/commit/${s.sha}` },
      created_at: s.created_at,
      updated_at: s.created_at,
      repository: this.repositoryJson(),
      sender: this.userJson(s.creator),
    };
  }

  // ---- HTTP ----------------------------------------------------------------------------------------

  private async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const url = new URL(req.url ?? '/', this.url);
    const raw = await readBody(req);
    const gitPath = /^\/([^/]+)\/([^/]+?)\.git(\/.*)$/.exec(url.pathname);
    if (gitPath) return this.serveGit(req, res, url, raw, gitPath);
    if (url.pathname === '/api/forgejo/v1/version' && this.dialect === 'forgejo')
      return send(res, 200, { version: '17.0.0-dev-38-gd883bd8f12' });
    const description = giteaDescription(this.dialect);
    if (!url.pathname.startsWith(`${description.basePath}/`)) return send(res, 404, { message: 'Not Found', url: '' });
    const rawPath = url.pathname.slice(description.basePath.length);
    let body: unknown = null;
    if (raw.length > 0) {
      try {
        body = JSON.parse(raw.toString('utf8'));
      } catch {
        return send(res, 422, { message: 'invalid JSON body', url: '' });
      }
    }
    const method = (req.method ?? 'GET').toUpperCase();
    const call: RecordedCall = {
      method,
      path: decodeURIComponent(rawPath) + (url.search ? decodeURIComponent(url.search) : ''),
      body,
      authorization: req.headers.authorization ?? null,
      status: 0,
    };
    this.calls.push(call);
    const { match, problems } = description.checkRequest(method, rawPath, url.searchParams, body);
    for (const message of problems) this.violations.push({ method, path: call.path, message });
    let answer: Answer;
    if (!match) answer = { status: 404, body: { message: 'Not Found', url: '' } };
    else if (call.authorization !== `token ${this.token}`)
      answer = { status: 401, body: { message: 'token is required', url: '' } };
    else answer = await this.answer(match.op, match.pathParams, url.searchParams, body);
    const headers: Record<string, string> = {};
    if (match && answer.status === 200 && Array.isArray(answer.body) && match.op.params.has('query:page')) {
      const paged = this.page(answer.body, url, rawPath);
      answer = { ...answer, body: paged.items };
      Object.assign(headers, paged.headers);
    }
    if (match)
      for (const message of description.checkResponse(match.op, answer.status, answer.body))
        this.violations.push({ method, path: call.path, message: `${message} (${match.op.operationId})` });
    call.status = answer.status;
    send(res, answer.status, answer.body, { ...headers, ...answer.headers });
  }

  /** A page of a list answer, with the forge's `Link` and `X-Total-Count` headers. */
  private page(items: unknown[], url: URL, rawPath: string): { items: unknown[]; headers: Record<string, string> } {
    const limit = Math.min(Math.max(Number(url.searchParams.get('limit') ?? 30) || 30, 1), 50);
    const page = Math.max(Number(url.searchParams.get('page') ?? 1) || 1, 1);
    const last = Math.max(1, Math.ceil(items.length / limit));
    const link = (p: number, rel: string) => {
      const q = new URLSearchParams(url.searchParams);
      q.set('page', String(p));
      q.set('limit', String(limit));
      return `<${this.url}${giteaDescription(this.dialect).basePath}${rawPath}?${q}>; rel="${rel}"`;
    };
    const links: string[] = [];
    if (page < last) links.push(link(page + 1, 'next'), link(last, 'last'));
    if (page > 1) links.push(link(1, 'first'), link(page - 1, 'prev'));
    return {
      items: items.slice((page - 1) * limit, page * limit),
      headers: { 'x-total-count': String(items.length), ...(links.length > 0 ? { link: links.join(',') } : {}) },
    };
  }

  /** The fake's own answer to an operation of the forge's document, for this repository only. */
  private async answer(
    op: Operation,
    params: Record<string, string>,
    query: URLSearchParams,
    body: unknown,
  ): Promise<Answer> {
    const handler = this.handlers[op.operationId];
    if (!handler) return { status: 404, body: { message: `the fake does not serve ${op.operationId}`, url: '' } };
    const ofRepository = op.template.startsWith('/repos/{owner}/{repo}');
    if (ofRepository && `${params.owner}/${params.repo}`.toLowerCase() !== `${this.owner}/${this.name}`.toLowerCase())
      return NOT_FOUND;
    return handler({ params, query, body: (body ?? {}) as Json });
  }

  /** The fake's answers by the document's operation ids, which both dialects share. */
  private readonly handlers: Record<string, (call: HandlerCall) => Answer | Promise<Answer>> = {
    getVersion: () => ok({ version: this.version }),
    userGetCurrent: () => ok(this.userJson(this.tokenUser)),
    repoGet: () => ok(this.repositoryJson()),
    repoGetBranch: async ({ params }) => {
      const sha = await this.branchSha(params.branch!);
      return sha ? ok(this.branchJson(params.branch!, sha)) : NOT_FOUND;
    },
    repoListBranchProtection: () =>
      this.rank(this.tokenUser) < ADMIN ? NOT_ADMIN : ok(this.protections.map((p) => this.protectionJson(p))),
    repoGetBranchProtection: ({ params }) => {
      if (this.rank(this.tokenUser) < ADMIN) return NOT_ADMIN;
      const p = this.protections.find((x) => x.rule_name === params.name);
      return p ? ok(this.protectionJson(p)) : NOT_FOUND;
    },
    repoGetAssignees: () =>
      ok([...this.users.keys()].filter((u) => this.rank(u) >= WRITE).map((u) => this.userJson(u))),
    repoListPullRequests: async ({ query }) => {
      const state = query.get('state') ?? 'open';
      const list = [...this.pulls.values()].filter((p) => state === 'all' || p.state === state);
      return ok(await Promise.all(list.map((p) => this.pullJson(p))));
    },
    repoGetPullRequest: async ({ params }) => {
      const pr = this.pulls.get(Number(params.index));
      return pr ? ok(await this.pullJson(pr)) : NOT_FOUND;
    },
    repoPullRequestIsMerged: ({ params }) =>
      this.pulls.get(Number(params.index))?.merged ? { status: 204, body: null } : NOT_FOUND,
    repoMergePullRequest: ({ params, body }) => this.merge(Number(params.index), body),
    repoCreateStatus: ({ params, body }) => {
      const state = body.state as StatusState | undefined;
      if (!state) return { status: 400, body: { message: 'state is required', url: '' } };
      const s = this.addStatus(params.sha!, String(body.context ?? 'default'), state, this.tokenUser);
      Object.assign(s, { description: String(body.description ?? ''), target_url: String(body.target_url ?? '') });
      return { status: 201, body: this.statusJson(s) };
    },
    repoListStatuses: ({ params }) => this.statusesOf(params.sha!),
    repoListStatusesByRef: ({ params }) => this.statusesOf(params.ref!),
    repoGetCombinedStatusByRef: async ({ params, query }) => {
      const sha = await this.shaOf(params.ref!);
      return sha ? ok(this.combinedJson(sha, query)) : NOT_FOUND;
    },
    issueGetComments: ({ params }) => {
      const index = Number(params.index);
      if (!this.pulls.has(index)) return NOT_FOUND;
      return ok(this.comments.filter((c) => c.issue === index).map((c) => this.commentJson(c)));
    },
    issueCreateComment: ({ params, body }) => {
      const index = Number(params.index);
      if (!this.pulls.has(index)) return NOT_FOUND;
      if (typeof body.body !== 'string') return { status: 422, body: { message: 'body is required', url: '' } };
      return { status: 201, body: this.commentJson(this.addComment(index, body.body, this.tokenUser)) };
    },
    issueEditComment: ({ params, body }) => {
      const c = this.comments.find((x) => x.id === Number(params.id));
      if (!c) return NOT_FOUND;
      if (c.user !== this.tokenUser) return { status: 403, body: { message: 'not the poster', url: '' } };
      Object.assign(c, { body: String(body.body), updated_at: iso(this.now()) });
      return { status: 200, body: this.commentJson(c) };
    },
    issueListLabels: () => ok(this.labels.map((l) => this.labelJson(l.id))),
    issueCreateLabel: ({ body }) => {
      if (this.labels.some((l) => l.name === body.name))
        return { status: 422, body: { message: 'label already exists', url: '' } };
      const id = this.label(String(body.name));
      Object.assign(this.labels.find((l) => l.id === id)!, { color: String(body.color ?? '').replace(/^#/, '') });
      return { status: 201, body: this.labelJson(id) };
    },
    issueGetLabels: ({ params }) => {
      const pr = this.pulls.get(Number(params.index));
      return pr ? ok(pr.labels.map((id) => this.labelJson(id))) : NOT_FOUND;
    },
    issueAddLabel: ({ params, body }) => {
      const pr = this.pulls.get(Number(params.index));
      if (!pr) return NOT_FOUND;
      for (const l of (body.labels as unknown[]) ?? []) {
        const id = typeof l === 'number' ? l : this.labels.find((x) => x.name === l)?.id;
        if (id === undefined || !this.labels.some((x) => x.id === id))
          return { status: 422, body: { message: `label ${String(l)} does not exist`, url: '' } };
        if (!pr.labels.includes(id)) pr.labels.push(id);
      }
      return ok(pr.labels.map((id) => this.labelJson(id)));
    },
    // Gitea names the label `{id}`, Forgejo `{identifier}` (an id or a name).
    issueRemoveLabel: ({ params }) => {
      const pr = this.pulls.get(Number(params.index));
      const key = params.id ?? params.identifier!;
      const id = /^\d+$/.test(key) ? Number(key) : this.labels.find((l) => l.name === key)?.id;
      if (!pr || id === undefined || !pr.labels.includes(id)) return NOT_FOUND;
      pr.labels = pr.labels.filter((x) => x !== id);
      return { status: 204, body: null };
    },
    repoGetRepoPermissions: ({ params }) => {
      if (params.collaborator!.toLowerCase() !== this.tokenUser.toLowerCase() && this.rank(this.tokenUser) < ADMIN)
        return { status: 403, body: { message: 'Only admin or the user themself can see their permissions', url: '' } };
      const permission = this.users.get(params.collaborator!);
      if (permission === undefined) return NOT_FOUND;
      return ok({ permission, role_name: permission, user: this.userJson(params.collaborator!) });
    },
  };

  /** The statuses of the commit a ref names, newest first. */
  private async statusesOf(ref: string): Promise<Answer> {
    const sha = await this.shaOf(ref);
    return ok(
      this.statuses
        .filter((s) => s.sha === sha)
        .reverse()
        .map((s) => this.statusJson(s)),
    );
  }

  /** The sha a ref names (a sha, a branch), or null. */
  private async shaOf(ref: string): Promise<string | null> {
    if (/^[0-9a-f]{40}$/.test(ref)) return ref;
    return this.branchSha(ref);
  }

  /** A user's rank on the repository (none 0 … owner 4). */
  private rank(user: string): number {
    return PERMISSIONS.indexOf(this.users.get(user) ?? 'none');
  }

  private protectionOf(branch: string): FakeProtection | null {
    return this.protections.find((p) => ruleMatches(p.rule_name, branch)) ?? null;
  }

  /** `POST …/pulls/{index}/merge`, as the forge merges. */
  private async merge(index: number, body: Json): Promise<Answer> {
    const pr = this.pulls.get(index);
    if (!pr) return NOT_FOUND;
    const field = (name: string): unknown =>
      Object.entries(body).find(([k]) => k.toLowerCase() === name.toLowerCase())?.[1];
    const style = String(field('do') ?? '');
    const refuse = (status: number, message: string): Answer => ({ status, body: { message, url: '' } });
    if (pr.merged) return refuse(405, 'The PR is already merged');
    if (pr.state === 'closed') return refuse(404, 'The PR is closed');
    const head = await this.headOf(index);
    const base = (await this.branchSha(pr.base))!;
    let mergeSha: string;
    if (style === 'manually-merged') {
      if (!this.allowManualMerge) return refuse(405, 'manually-merged is not allowed an allowed merge style');
      // The server writes the error value itself: `{}`. It does not look at head_commit_id here.
      const commit = String(field(this.mergeCommitField) ?? '');
      if (!/^[0-9a-f]{40}$/.test(commit) || !(await this.hasCommit(commit)) || !(await this.isAncestor(commit, base)))
        return { status: 409, body: {} };
      mergeSha = commit;
    } else {
      const expected = body.head_commit_id;
      if (typeof expected === 'string' && expected !== '' && expected !== head) return refuse(409, 'head out of date');
      if (WIP.test(pr.title)) return refuse(405, 'Work in progress PRs cannot be merged');
      const protection = this.protectionOf(pr.base);
      if (protection?.enable_status_check) {
        const latest = this.latestStatuses(head);
        const missing = protection.status_check_contexts.filter(
          (c) => !latest.some((s) => s.context === c && s.state === 'success'),
        );
        if (missing.length > 0) return refuse(405, 'Not all required status checks successful');
      }
      const made = await this.mergeCommits(style, pr, base, head);
      if (typeof made !== 'string') return made;
      mergeSha = made;
      await this.setBranch(pr.base, mergeSha);
    }
    this.markMerged(pr, mergeSha, this.tokenUser);
    return { status: 200, body: null };
  }

  /** The merge form's field the server binds the merge commit to, by version. */
  get mergeCommitField(): string {
    return this.dialect === 'gitea' && !/^1\.2[0-6]\./.test(this.version) ? 'merge_commit_id' : 'MergeCommitID';
  }

  /** The base's new tip for a merge of `style`, made with git, or the forge's refusal. */
  private async mergeCommits(style: string, pr: FakePull, base: string, head: string): Promise<string | Answer> {
    const conflict: Answer = { status: 409, body: { message: 'merge conflict', url: '' } };
    const title = `${pr.title} (#${pr.number})`;
    if (style === 'fast-forward-only') {
      if (!(await this.isAncestor(base, head))) return { status: 409, body: { message: 'not fast-forward', url: '' } };
      return head;
    }
    if (style === 'merge' || style === 'squash') {
      const tree = await this.mergeTree(base, head);
      if (!tree) return conflict;
      return style === 'merge'
        ? this.commitTree(tree, [base, head], `Merge pull request '${pr.title}' (#${pr.number})`)
        : this.commitTree(tree, [base], title);
    }
    if (style === 'rebase' || style === 'rebase-merge') {
      const list = (await git(['rev-list', '--reverse', '--no-merges', `${base}..${head}`], { cwd: this.bare }))
        .split('\n')
        .filter(Boolean);
      let onto = base;
      for (const c of list) {
        const tree = await this.mergeTree(onto, c, `${c}^`);
        if (!tree) return conflict;
        const message = await git(['log', '-1', '--format=%B', c], { cwd: this.bare });
        onto = await this.commitTree(tree, [onto], message);
      }
      if (style === 'rebase') return onto;
      return this.commitTree(
        (await git(['rev-parse', `${onto}^{tree}`], { cwd: this.bare })).trim(),
        [base, onto],
        `Merge pull request '${pr.title}' (#${pr.number})`,
      );
    }
    return { status: 405, body: { message: `merge style "${style}" is not allowed`, url: '' } };
  }

  /** The tree of merging `theirs` into `ours` (on `mergeBase`, else their merge base), or null on conflicts. */
  private mergeTree(ours: string, theirs: string, mergeBase?: string): Promise<string | null> {
    return this.memo(`merge-tree ${mergeBase ?? ''} ${ours} ${theirs}`, async () => {
      const out = await runGit(
        ['merge-tree', '--write-tree', ...(mergeBase ? [`--merge-base=${mergeBase}`] : []), ours, theirs],
        { cwd: this.bare, okCodes: [1] },
      );
      return out.code === 0 ? out.stdout.trim().split('\n')[0]! : null;
    });
  }

  private mergeBase(a: string, b: string): Promise<string> {
    return this.memo(`merge-base ${a} ${b}`, async () => {
      return (await runGit(['merge-base', a, b], { cwd: this.bare, okCodes: [1] })).stdout.trim();
    });
  }

  private async commitTree(tree: string, parents: string[], message: string): Promise<string> {
    const date = `@${this.commitTime()} +0000`;
    return git(['commit-tree', '--no-gpg-sign', tree, ...parents.flatMap((p) => ['-p', p])], {
      cwd: this.bare,
      input: message.endsWith('\n') ? message : `${message}\n`,
      env: {
        GIT_AUTHOR_NAME: GITEA.name,
        GIT_AUTHOR_EMAIL: GITEA.email,
        GIT_AUTHOR_DATE: date,
        GIT_COMMITTER_NAME: GITEA.name,
        GIT_COMMITTER_EMAIL: GITEA.email,
        GIT_COMMITTER_DATE: date,
      },
    });
  }

  /** The date of the next commit the fake writes (seconds): its clock, a second later each time. */
  private commitTime(): number {
    return Math.floor(this.now() / 1000) + this.nextId++;
  }

  /** git's smart HTTP protocol through `git http-backend` (CGI), behind the token as Basic auth. */
  private async serveGit(
    req: IncomingMessage,
    res: ServerResponse,
    url: URL,
    raw: Buffer,
    [, owner, name, rest]: RegExpExecArray,
  ): Promise<void> {
    if (`${owner}/${name}`.toLowerCase() !== `${this.owner}/${this.name}`.toLowerCase()) {
      res.writeHead(404).end('Not found');
      return;
    }
    const basic = /^Basic (.+)$/.exec(req.headers.authorization ?? '')?.[1];
    const password = basic ? Buffer.from(basic, 'base64').toString('utf8').split(':').slice(1).join(':') : null;
    if (password !== this.token) {
      res.writeHead(401, { 'www-authenticate': 'Basic realm="Gitea"' }).end('Unauthorized');
      return;
    }
    const protocol = String(req.headers['git-protocol'] ?? '');
    // In protocol v2 the fetch advertisement names the server's capabilities, not its refs: the same
    // answer for the server's whole life.
    const out =
      req.method === 'GET' &&
      rest === '/info/refs' &&
      url.search === '?service=git-upload-pack' &&
      protocol === 'version=2'
        ? await this.memo('upload-pack v2 advertisement', () => this.httpBackend(req, url, raw, rest!))
        : await this.httpBackend(req, url, raw, rest!);
    // A push may have changed any ref: the refs kept in memory are read again.
    if (rest === '/git-receive-pack') this.refs = null;
    const split = out.indexOf('\r\n\r\n');
    const head = out.subarray(0, split).toString('latin1').split('\r\n');
    let status = 200;
    const headers: Record<string, string> = {};
    for (const line of head) {
      const [k, ...v] = line.split(':');
      if (k!.toLowerCase() === 'status') status = Number.parseInt(v.join(':').trim(), 10);
      else headers[k!.toLowerCase()] = v.join(':').trim();
    }
    res.writeHead(status, headers).end(out.subarray(split + 4));
  }

  /** `git http-backend`'s CGI answer to a request: its headers, a blank line, its body. */
  private async httpBackend(req: IncomingMessage, url: URL, raw: Buffer, rest: string): Promise<Buffer> {
    const child = spawn('git', ['http-backend'], {
      env: {
        ...process.env,
        // The forge's settings of the repository: pushes over HTTP, and no housekeeping after one
        // (the forge runs it on its own schedule).
        GIT_CONFIG_COUNT: '2',
        GIT_CONFIG_KEY_0: 'http.receivepack',
        GIT_CONFIG_VALUE_0: 'true',
        GIT_CONFIG_KEY_1: 'receive.autogc',
        GIT_CONFIG_VALUE_1: 'false',
        GIT_PROJECT_ROOT: this.root,
        GIT_HTTP_EXPORT_ALL: '1',
        PATH_INFO: `/${this.owner}/${this.name}.git${rest}`,
        REQUEST_METHOD: req.method ?? 'GET',
        QUERY_STRING: url.search.slice(1),
        CONTENT_TYPE: req.headers['content-type'] ?? '',
        CONTENT_LENGTH: String(raw.length),
        REMOTE_USER: this.tokenUser,
        REMOTE_ADDR: '127.0.0.1',
        ...(req.headers['content-encoding'] ? { HTTP_CONTENT_ENCODING: req.headers['content-encoding'] } : {}),
        ...(req.headers['git-protocol'] ? { GIT_PROTOCOL: String(req.headers['git-protocol']) } : {}),
      },
    });
    // git stops reading its input when it has what it needs (or fails): a write it never reads is no error here.
    child.stdin.on('error', () => {});
    child.stdin.end(raw);
    const chunks: Buffer[] = [];
    child.stdout.on('data', (c: Buffer) => chunks.push(c));
    await new Promise<void>((resolve, reject) => {
      child.on('error', reject);
      child.on('close', () => resolve());
    });
    return Buffer.concat(chunks);
  }

  // ---- answers as the forge shapes them ------------------------------------------------------------

  userJson(login: string): Json {
    const id = Number.parseInt(createHash('sha1').update(login).digest('hex').slice(0, 6), 16);
    return {
      id,
      login,
      login_name: '',
      username: login,
      full_name: '',
      email: `${login}@example.com`,
      avatar_url: `${this.url}/avatars/${id}`,
      html_url: `${this.url}/${login}`,
      is_admin: false,
      created: '2026-01-01T00:00:00Z',
      last_login: '2026-01-01T00:00:00Z',
    };
  }

  repositoryJson(): Json {
    const rank = this.rank(this.tokenUser);
    return {
      id: 42,
      name: this.name,
      full_name: `${this.owner}/${this.name}`,
      owner: this.userJson(this.owner),
      description: '',
      private: false,
      fork: false,
      empty: false,
      mirror: false,
      archived: false,
      default_branch: this.defaultBranch,
      html_url: `${this.url}/${this.owner}/${this.name}`,
      clone_url: `${this.url}/${this.owner}/${this.name}.git`,
      ssh_url: `git@127.0.0.1:${this.owner}/${this.name}.git`,
      url: `${this.url}/api/v1/repos/${this.owner}/${this.name}`,
      permissions: { admin: rank >= 3, push: rank >= 2, pull: rank >= 1 },
      has_pull_requests: true,
      allow_merge_commits: true,
      allow_rebase: true,
      allow_rebase_explicit: true,
      allow_squash_merge: true,
      allow_fast_forward_only_merge: true,
      default_merge_style: 'merge',
      // Forgejo's API does not show the manual merge settings.
      ...(this.dialect === 'gitea'
        ? { allow_manual_merge: this.allowManualMerge, autodetect_manual_merge: false }
        : {}),
      created_at: '2026-01-01T00:00:00Z',
      updated_at: '2026-01-01T00:00:00Z',
    };
  }

  async pullJson(pr: FakePull): Promise<Json> {
    const head = await this.headOf(pr.number);
    const base = (await this.branchSha(pr.base)) ?? ZERO;
    const mergeBase = await this.mergeBase(base, head);
    const mergeable = pr.state === 'open' && (await this.mergeTree(base, head)) !== null;
    const web = `${this.url}/${this.owner}/${this.name}/pulls/${pr.number}`;
    const repo = this.repositoryJson();
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
      user: this.userJson(pr.user),
      labels: pr.labels.map((id) => this.labelJson(id)),
      mergeable,
      merged: pr.merged,
      merged_at: pr.merged_at,
      merged_by: pr.merged_by ? this.userJson(pr.merged_by) : null,
      merge_commit_sha: pr.merge_commit_sha,
      merge_base: mergeBase,
      head: { label: pr.head, ref: pr.head, sha: head, repo_id: 42, repo },
      base: { label: pr.base, ref: pr.base, sha: base, repo_id: 42, repo },
      comments: this.comments.filter((c) => c.issue === pr.number).length,
      created_at: '2026-01-05T09:00:00Z',
      updated_at: iso(this.now()),
      closed_at: pr.closed_at,
    };
  }

  statusJson(s: FakeStatus): Json {
    return {
      id: s.id,
      status: s.state,
      context: s.context,
      description: s.description,
      target_url: s.target_url,
      url: `${this.url}/api/v1/repos/${this.owner}/${this.name}/statuses/${s.sha}`,
      creator: this.userJson(s.creator),
      created_at: s.created_at,
      updated_at: s.created_at,
    };
  }

  /**
   * The combined status of a commit: the latest status of each context, paged (`page`, `limit`), and
   * the state of that page as the forge computes it (the worst: error, failure, pending, warning, then
   * success, skipped; `""` when there are none).
   */
  private combinedJson(sha: string, query: URLSearchParams): Json {
    const all = this.latestStatuses(sha);
    const limit = Math.min(Math.max(Number(query.get('limit') ?? 30) || 30, 1), 50);
    const page = Math.max(Number(query.get('page') ?? 1) || 1, 1);
    const statuses = all.slice((page - 1) * limit, page * limit);
    const order: StatusState[] = ['error', 'failure', 'pending', 'warning', 'success', 'skipped'];
    const state = order.find((o) => statuses.some((s) => s.state === o)) ?? '';
    return {
      sha,
      state,
      statuses: statuses.map((s) => this.statusJson(s)),
      total_count: all.length,
      commit_url: `${this.url}/api/v1/repos/${this.owner}/${this.name}/commits/${sha}`,
      url: `${this.url}/api/v1/repos/${this.owner}/${this.name}/commits/${sha}/status`,
      repository: this.repositoryJson(),
    };
  }

  commentJson(c: FakeComment): Json {
    return {
      id: c.id,
      body: c.body,
      user: this.userJson(c.user),
      html_url: `${this.url}/${this.owner}/${this.name}/pulls/${c.issue}#issuecomment-${c.id}`,
      issue_url: `${this.url}/${this.owner}/${this.name}/issues/${c.issue}`,
      pull_request_url: `${this.url}/${this.owner}/${this.name}/pulls/${c.issue}`,
      created_at: c.created_at,
      updated_at: c.updated_at,
    };
  }

  labelJson(id: number): Json {
    const l = this.labels.find((x) => x.id === id)!;
    return {
      id: l.id,
      name: l.name,
      color: l.color,
      description: l.description,
      exclusive: false,
      is_archived: false,
      url: `${this.url}/api/v1/repos/${this.owner}/${this.name}/labels/${l.id}`,
    };
  }

  /** A branch as the branch API shows it to the token's user: the rule that protects it included. */
  branchJson(branch: string, sha: string): Json {
    const p = this.protectionOf(branch);
    const mayPush =
      this.rank(this.tokenUser) >= WRITE && (!p?.push_allowlist || p.push_allowlist.includes(this.tokenUser));
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

  protectionJson(p: FakeProtection): Json {
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
}

interface Answer {
  status: number;
  body: unknown;
  headers?: Record<string, string>;
}

const ok = (body: unknown): Answer => ({ status: 200, body });
const NOT_ADMIN: Answer = {
  status: 403,
  body: { message: 'user should be an owner or a collaborator with admin write of a repository', url: '' },
};
const PERMISSIONS: Permission[] = ['none', 'read', 'write', 'admin', 'owner'];
const WRITE = PERMISSIONS.indexOf('write');
const ADMIN = PERMISSIONS.indexOf('admin');
const NOT_FOUND: Answer = { status: 404, body: { message: "The target couldn't be found.", url: '' } };

/** What a handler of an operation gets: the path parameters by name, the query, the JSON body ({} when none). */
interface HandlerCall {
  params: Record<string, string>;
  query: URLSearchParams;
  body: Json;
}

/** A protection rule's glob (`*` within a path segment, `**` across) matched against a branch name. */
function ruleMatches(rule: string, branch: string): boolean {
  const re = rule
    .split('**')
    .map((part) =>
      part
        .split('*')
        .map((lit) => lit.replace(/[.+?^${}()|[\]\\]/g, '\\$&'))
        .join('[^/]*'),
    )
    .join('.*');
  return new RegExp(`^${re}$`).test(branch);
}

/** The captured payload an action's delivery is shaped like. */
const templateOf = (action: string): string =>
  ({ opened: 'opened', reopened: 'opened', closed: 'closed', synchronized: 'synchronized' })[action] ??
  (action.startsWith('label') ? 'label_updated' : 'opened');

function readBody(req: IncomingMessage): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => resolve(Buffer.concat(chunks)));
    req.on('error', reject);
  });
}

function send(res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
  const text = body === null || body === undefined || status === 204 ? '' : JSON.stringify(body);
  res.writeHead(status, { ...(text ? { 'content-type': 'application/json;charset=utf-8' } : {}), ...headers });
  res.end(text);
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
