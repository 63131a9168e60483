/**
 * A FAKE of a GitLab server for tests: a real HTTP server (127.0.0.1, a free port) with one project,
 * backed by a real bare repository (fake-gitlab-repo.ts), answering the REST API at `/api/v4` and
 * git's smart HTTP protocol at `/<group>/<sub>/<project>.git`.
 *
 * It cannot be kinder than GitLab: every API request is checked against GitLab's own OpenAPI
 * description (gitlab-description.ts) and so is every answer; what GitLab would not take or give is a
 * `violation`, and a test after which the fake saw one fails. The description names the operation a
 * request is, and the fake answers from its table of handlers by operation id
 * (fake-gitlab-handlers.ts; the HTTP side in fake-gitlab-serve.ts). What it models, as ../shared/spec/forges/gitlab-facts.md says GitLab does:
 * - the project by its URL-encoded path (any letter case; answers spell it as it is) or its id;
 *   `PRIVATE-TOKEN` or `Authorization: Bearer` on the API, the token as git's Basic auth password;
 * - merge requests: head at `refs/merge-requests/<iid>/head`, drafts by title prefix (`Draft:`,
 *   `[Draft]`, `(Draft)`), `detailed_merge_status` (computed with git; `checking` while a test says the
 *   check runs), marked merged when their head reaches the target by a push;
 * - the merge API's refusals: 405 (not open, draft, pipeline must succeed, checking), 409 (`sha` not
 *   the head), 422 (conflict, rebase needed), 401 (not allowed to merge the target);
 * - commit statuses as jobs of pipelines (an external status joins or makes a pipeline of its sha and
 *   ref), 400 "Cannot transition status" for a state a status already has, 409 while another update
 *   is in flight (`statusUpdatesInFlight`); pipelines and their retry;
 * - notes, labels (made when an MR update names a new one), members' access levels, protected branches;
 * - pages (`page`, `per_page` 20 by default, at most 100) with `x-next-page`, `x-total` … and `Link`;
 *   rate limits on demand (`rateLimit`): 429 with `Retry-After` and `RateLimit-*`;
 * - webhook deliveries (fake-gitlab-deliveries.ts).
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach } from 'vitest';
import type { Violation } from '../../doubles/api-description.js';
import { makeTempDir, removeTempDir } from '../../helpers/temp-dir.js';
import { iso } from './fake-gitlab-handlers.js';
import { serve } from './fake-gitlab-serve.js';
import type {
  FakeJob,
  FakeMr,
  FakeNote,
  FakePipeline,
  FakeProtectedBranch,
  JobState,
  RecordedCall,
} from './fake-gitlab-types.js';
import { ACCESS } from './fake-gitlab-types.js';

export * from './fake-gitlab-types.js';
import { FakeGitlabRepo, type MergeMethod } from './fake-gitlab-repo.js';

export class FakeGitlabApi {
  readonly calls: RecordedCall[] = [];
  readonly violations: Violation[] = [];
  readonly mrs = new Map<number, FakeMr>();
  readonly jobs: FakeJob[] = [];
  readonly pipelines: FakePipeline[] = [];
  readonly notes: FakeNote[] = [];
  readonly labels: { id: number; name: string; color: string }[] = [];
  readonly protectedBranches: FakeProtectedBranch[] = [{ name: 'main', push: 40, merge: 40, allow_force_push: false }];
  /** Members and their access level (users not listed are not members). */
  readonly members = new Map<string, number>([
    ['greenline-bot', ACCESS.maintainer],
    ['ada', ACCESS.developer],
  ]);
  /** The project's merge settings (Settings > Merge requests). */
  readonly settings = {
    merge_method: 'merge' as MergeMethod,
    squash_option: 'default_off' as 'never' | 'always' | 'default_on' | 'default_off',
    only_allow_merge_if_pipeline_succeeds: false,
    allow_merge_on_skipped_pipeline: false,
  };
  token = 'glpat-test-token';
  tokenUser = 'greenline-bot';
  defaultBranch = 'main';
  /** The next status posts that answer 409: another update to the commit status is in progress. */
  statusUpdatesInFlight = 0;
  now: () => number = () => Date.UTC(2026, 0, 5, 9);
  readonly repo: FakeGitlabRepo;
  url = '';
  private nextId = 100;
  /** What `rateLimit` asked for: the API requests still answered 429, and the wait they name. */
  limited: { requests: number; retryAfter: number } | null = null;
  private server: Server | null = null;

  private constructor(
    readonly fullPath: string,
    readonly root: string,
  ) {
    this.repo = new FakeGitlabRepo(root, fullPath, () => this.now());
    made.push(this);
  }

  /** A running fake with project `fullPath` (`group/sub/project`) whose `main` holds one commit. */
  static async start(fullPath = 'acme/web'): Promise<FakeGitlabApi> {
    const root = await makeTempDir('greenline-gitlab-');
    const fake = new FakeGitlabApi(fullPath, root);
    await fake.repo.init();
    await fake.repo.setBranch('main', await fake.repo.commit(null, { 'README.md': '# web\n' }, 'Initial commit'));
    const server = createServer((req, res) => {
      serve(fake, req, res).catch((err: unknown) => {
        fake.violations.push({
          method: req.method ?? '',
          path: req.url ?? '',
          message: `the fake failed: ${String(err)}`,
        });
        if (!res.headersSent) res.writeHead(500, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ message: '500 Internal Server Error' }));
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    fake.server = server;
    fake.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    return fake;
  }

  readonly projectId = 42;

  get name(): string {
    return this.fullPath.split('/').pop()!;
  }

  get namespace(): string {
    return this.fullPath.split('/').slice(0, -1).join('/');
  }

  /** The clone URL with credentials, as a developer or CI would use it. */
  get gitUrl(): string {
    const u = new URL(`${this.url}/${this.fullPath}.git`);
    u.username = this.tokenUser;
    u.password = this.token;
    return u.href;
  }

  id(): number {
    return this.nextId++;
  }

  async close(): Promise<void> {
    const server = this.server;
    this.server = null;
    if (server) await new Promise<void>((resolve) => server.close(() => resolve()));
    server?.closeAllConnections();
    await removeTempDir(this.root);
  }

  /** The next `requests` API requests are answered 429, asking to wait `retryAfter` seconds. */
  rateLimit(requests: number, retryAfter = 30): void {
    this.limited = { requests, retryAfter };
  }

  // ---- what people and CI do -------------------------------------------------------------------------

  /** Opens MR `iid` from branch `feature-<iid>` at `headSha` into `target`. */
  async openMr(
    iid: number,
    opts: { headSha: string; target?: string; title?: string; author?: string },
  ): Promise<FakeMr> {
    const mr: FakeMr = {
      iid,
      title: opts.title ?? `Change ${iid}`,
      description: '',
      author: opts.author ?? 'ada',
      state: 'opened',
      source_branch: `feature-${iid}`,
      target_branch: opts.target ?? this.defaultBranch,
      labels: [],
      merged_at: null,
      closed_at: null,
      merge_user: null,
      merge_commit_sha: null,
      squash_commit_sha: null,
      squash: false,
      checking: 0,
    };
    this.mrs.set(iid, mr);
    await this.pushToMr(iid, opts.headSha);
    return mr;
  }

  /** The author pushes `sha` to MR `iid`'s source branch: its head ref follows. */
  async pushToMr(iid: number, sha: string): Promise<void> {
    const mr = this.mr(iid);
    await this.repo.setBranch(mr.source_branch, sha);
    await this.repo.setRef(`refs/merge-requests/${iid}/head`, sha);
  }

  mr(iid: number): FakeMr {
    const mr = this.mrs.get(iid);
    if (!mr) throw new Error(`no MR !${iid}`);
    return mr;
  }

  async headOf(iid: number): Promise<string> {
    return (await this.repo.refSha(`refs/merge-requests/${iid}/head`))!;
  }

  closeMr(iid: number): void {
    Object.assign(this.mr(iid), { state: 'closed', closed_at: iso(this.now()) });
  }

  markMerged(mr: FakeMr, by: string | null, mergeSha: string | null, squashSha: string | null = null): void {
    Object.assign(mr, {
      state: 'merged',
      merged_at: iso(this.now()),
      merge_user: by,
      merge_commit_sha: mergeSha,
      squash_commit_sha: squashSha,
    });
  }

  /**
   * After a push: each open MR's source branch moved is its new head, and one whose head the target
   * now holds is merged (GitLab marks it merged by the push, without a merge commit of its own).
   */
  async afterPush(): Promise<void> {
    this.repo.pushed();
    for (const mr of this.mrs.values()) {
      if (mr.state !== 'opened') continue;
      const source = await this.repo.branchSha(mr.source_branch);
      if (source && source !== (await this.headOf(mr.iid)))
        await this.repo.setRef(`refs/merge-requests/${mr.iid}/head`, source);
      const target = await this.repo.branchSha(mr.target_branch);
      if (target && (await this.repo.isAncestor(await this.headOf(mr.iid), target))) this.markMerged(mr, null, null);
    }
  }

  /** CI runs a pipeline of `sha` on `ref` with jobs in the given states; the pipeline. */
  runPipeline(
    sha: string,
    ref: string,
    jobs: Record<string, JobState>,
    source: FakePipeline['source'] = 'push',
  ): FakePipeline {
    const pipeline = this.pipelineOf(sha, ref, source, true);
    for (const [name, status] of Object.entries(jobs)) this.addJob(pipeline, name, status, 'ci');
    return pipeline;
  }

  /**
   * CI reports job `name` of commit `sha` in `status`: the job of the commit's pipeline (on the branch
   * whose tip it is), made when there is none, else moved on.
   */
  async reportJob(sha: string, name: string, status: JobState): Promise<FakeJob> {
    const ref = [...(await this.repo.allRefs())].find(([r, at]) => at === sha && r.startsWith('refs/heads/'))?.[0];
    const pipeline = this.pipelineOf(sha, ref?.slice('refs/heads/'.length) ?? this.defaultBranch, 'push');
    const job = this.latestJobs(pipeline.id).find((j) => j.name === name) ?? this.addJob(pipeline, name, status, 'ci');
    job.status = status;
    return job;
  }

  /** Someone merges MR `iid` on GitLab's page (a merge commit): the target moves and the MR shows merged. */
  async mergeOnGitlab(iid: number, by = 'ada'): Promise<string> {
    const mr = this.mr(iid);
    const target = (await this.repo.branchSha(mr.target_branch))!;
    const made = await this.repo.merge('merge', false, target, await this.headOf(iid), mr.title);
    if (made === 'conflict' || made === 'need_rebase') throw new Error(`!${iid} does not merge: ${made}`);
    await this.repo.setBranch(mr.target_branch, made);
    this.markMerged(mr, by, made);
    return made;
  }

  /** The pipeline of `sha` and `ref` of that source, made when there is none (or `fresh`). */
  pipelineOf(sha: string, ref: string, source: FakePipeline['source'], fresh = false): FakePipeline {
    const found = fresh
      ? undefined
      : this.pipelines
          .slice()
          .reverse()
          .find((p) => p.sha === sha && p.ref === ref && p.source === source);
    if (found) return found;
    const made: FakePipeline = {
      id: this.id(),
      iid: this.pipelines.length + 1,
      sha,
      ref,
      source,
      created_at: iso(this.now()),
    };
    this.pipelines.push(made);
    return made;
  }

  addJob(pipeline: FakePipeline, name: string, status: JobState, author: string): FakeJob {
    const job: FakeJob = {
      id: this.id(),
      pipelineId: pipeline.id,
      sha: pipeline.sha,
      ref: pipeline.ref,
      name,
      status,
      description: '',
      target_url: '',
      author,
      created_at: iso(this.now()),
      allow_failure: false,
      retried: false,
    };
    this.jobs.push(job);
    return job;
  }

  /** The latest job of each name of a pipeline. */
  latestJobs(pipelineId: number): FakeJob[] {
    return this.jobs.filter((j) => j.pipelineId === pipelineId && !j.retried);
  }

  /** A pipeline's status from its jobs, as GitLab composes it. */
  pipelineStatus(pipelineId: number): JobState {
    const states = this.latestJobs(pipelineId)
      .filter((j) => !(j.allow_failure && j.status === 'failed'))
      .map((j) => j.status);
    if (states.length === 0) return 'created';
    for (const s of ['running', 'pending', 'created', 'manual'] as const)
      if (states.includes(s)) return s === 'manual' ? 'manual' : 'running';
    if (states.includes('failed')) return 'failed';
    if (states.includes('canceled')) return 'canceled';
    if (states.every((s) => s === 'skipped')) return 'skipped';
    return 'success';
  }

  /** The label `name`, made when missing. */
  label(name: string): { id: number; name: string; color: string } {
    let found = this.labels.find((l) => l.name === name);
    if (!found) {
      found = { id: this.id(), name, color: '#6699cc' };
      this.labels.push(found);
    }
    return found;
  }

  addNote(iid: number, body: string, author: string, system = false): FakeNote {
    const at = iso(this.now());
    const note: FakeNote = { id: this.id(), iid, body, author, system, created_at: at, updated_at: at };
    this.notes.push(note);
    return note;
  }

  /** The user id GitLab gives `username` (stable per name). */
  userId(username: string): number {
    let h = 7;
    for (const c of username) h = (h * 31 + c.charCodeAt(0)) % 1_000_000;
    return 1000 + h;
  }

  usernameOf(id: number): string | null {
    return [...this.members.keys(), this.tokenUser, 'ada', 'rex'].find((u) => this.userId(u) === id) ?? null;
  }

  /** `METHOD path` of every API call, in order. */
  get log(): string[] {
    return this.calls.map((c) => `${c.method} ${c.path}`);
  }
}

/** Every fake made in a test file; a test after which any of them saw a violation fails. */
const made: FakeGitlabApi[] = [];

/** Throws, naming each, when any fake saw what GitLab would not take or give since last asked. */
export function expectNoViolations(): void {
  const seen = made.flatMap((f) => f.violations.splice(0));
  if (seen.length > 0)
    throw new Error(
      `GitLab would not have taken or answered this:\n${seen.map((v) => `  ${v.method} ${v.path}: ${v.message}`).join('\n')}`,
    );
}

if (process.env.VITEST) afterEach(expectNoViolations);
