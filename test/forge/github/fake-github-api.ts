/**
 * A FAKE of GitHub's REST API for tests: an in-memory repository (branches, commits, pull requests,
 * check runs, statuses, comments, labels, App installations) answering the requests the github forge makes,
 * through a `fetch` function that records every call. `failNext` scripts answers (rate limits, 5xx,
 * refusals) for the next matching calls; `failAfterEffect` lets a write happen and answers 5xx all the
 * same; `secondaryLimitNext` answers GitHub's secondary rate limit.
 *
 * It cannot be kinder than GitHub: every request is checked against GitHub's own description
 * (github-description.ts: routes, parameters, bodies) and so is every answer (documented status and
 * schema); what GitHub would not take or give is a `violation`, and a test after which any fake saw one
 * fails (as does one that delivered or read a webhook payload GitHub would not send: `checkDelivery`).
 * The description names the operation a request is (`pulls/get`), and the fake answers from its table
 * of handlers by operation id (fake-operations.ts lists them).
 * The handlers' answers are trimmed to what greenline reads; fetch() fills them in from the operation's
 * documented example (but for what its description says otherwise: `asDescribed`), so answers are
 * full-shaped. Around every answer, as GitHub does: owner/repo in any letter case (answers spell them
 * as the constructor was given), pages of list answers (`per_page` 30 by default, at most 100, `page`,
 * a `Link` header), rate-limit headers and a primary budget per token or
 * installation (`rateLimit` an hour on the fake's `now()`; 403 when spent), `ETag` on GET answers and a
 * free `304` for a matching `If-None-Match`, and a count of the requests GitHub would bill (`billable`).
 * Branch protection (classic, with `strict`) and rulesets are modelled as GitHub documents them: under
 * "require branches to be up to date" a PR whose head does not contain its base's tip is `behind` and
 * its merge is refused (405); protected branches refuse direct ref updates unless the caller may
 * bypass them; a `merge_queue` rule refuses merges outside GitHub's queue; stacked PRs merge only
 * through the asynchronous endpoint (fake-async-merges.ts). `update-branch` merges the base's tip into a PR's head as GitHub
 * does (202; 422 when `expected_head_sha` is not the head, when there is nothing new on the base, or
 * on a conflict); the new head has no check results, and its merge is refused while the required
 * ones have not succeeded on it (`checksOnUpdatedHeads`: what the repository's CI reports there).
 * "Require signed commits" (classic `signedBranches`, or a `required_signatures` rule) blocks a PR
 * with a commit whose signature GitHub has not verified (`verifiedCommits`), refuses its merge but
 * for squash (GitHub signs the squash commit), and refuses every rebase merge (GitHub cannot sign
 * rebased commits). `treeOf` tells what content a commit holds (which changes it contains, merges and
 * squashes included), so that tests can compare the target with what was tested.
 */
import { createHash, createVerify } from 'node:crypto';
import { afterEach } from 'vitest';
import { FakeAppRegistrations } from './fake-app-registrations.js';
import { FakeAsyncMerges } from './fake-async-merges.js';
import type { FakeOperation } from './fake-operations.js';
import {
  checkRequest,
  checkResponse,
  checkWebhook,
  exampleAnswer,
  type Operation,
  type Violation,
} from './github-description.js';

export interface FakePull {
  number: number;
  state: 'open' | 'closed';
  merged: boolean;
  merged_at: string | null;
  closed_at: string | null;
  draft: boolean;
  mergeable: boolean | null;
  mergeable_state: string;
  merge_commit_sha: string | null;
  title: string;
  body: string | null;
  user: { login: string };
  head: { sha: string; ref: string; label: string };
  base: { sha: string; ref: string };
  labels: { name: string }[];
  /** GitHub's native stack the PR belongs to (pull-request-stack), null when none. */
  stack?: { base: { ref: string; sha: string }; size: number; position: number; id: number; number: number } | null;
}

/** A rule as `GET /repos/{owner}/{repo}/rules/branches/{branch}` lists it (repository-rule-detailed). */
export interface FakeRule {
  type: string;
  parameters?: Record<string, unknown>;
  ruleset_source_type?: 'Repository' | 'Organization';
  ruleset_source?: string;
  ruleset_id?: number;
}

export interface RecordedCall {
  method: string;
  /** Path with its query, decoded, without the API base: `GET /repos/acme/web/pulls/1`. */
  path: string;
  body: Record<string, unknown> | null;
  authorization: string | null;
  status: number;
}

type Body = Record<string, unknown> | null;

/** What a handler of an operation gets: the path parameters by name, the query, the JSON body ({} when none). */
interface HandlerCall {
  params: Record<string, string>;
  query: URLSearchParams;
  body: Record<string, unknown>;
  auth: string | null;
}

type Handler = (call: HandlerCall) => Response;

interface Scripted {
  method: string;
  path: RegExp;
  status: number;
  body: unknown;
  headers: Record<string, string>;
}

/** An answer; GitHub's error answers carry `documentation_url` beside their message. */
const json = (status: number, body: unknown, headers: Record<string, string> = {}): Response =>
  new Response(status === 204 ? null : JSON.stringify(withDocs(status, body)), {
    status,
    headers: { 'content-type': 'application/json; charset=utf-8', ...headers },
  });

const withDocs = (status: number, body: unknown): unknown =>
  status >= 400 && isObject(body) && typeof body.message === 'string' && !('documentation_url' in body)
    ? { ...body, documentation_url: 'https://docs.github.com/rest' }
    : body;

/** The web address of a GitHub whose REST API is at `baseUrl`. */
function webUrlOf(baseUrl: string): string {
  const url = new URL(baseUrl);
  return url.pathname.replace(/\/$/, '') === '/api/v3'
    ? url.origin
    : `${url.protocol}//${url.host.replace(/^api\./, '')}`;
}

export class FakeGitHubApi {
  readonly calls: RecordedCall[] = [];
  readonly branches = new Map<string, string>();
  /** Commit sha → parents. */
  readonly commits = new Map<string, string[]>();
  /** The files each commit made with `commit` changed. */
  private readonly commitFiles = new Map<string, string[]>();
  readonly pulls = new Map<number, FakePull>();
  /** PR heads that conflict with anything when merged by the merges API. */
  readonly conflicting = new Set<string>();
  /** Branches where updating the ref directly is refused (branch protection). */
  readonly protectedBranches = new Set<string>();
  /** Required status checks of branch protection, by branch. */
  readonly requiredChecks = new Map<string, string[]>();
  /** Branches whose classic protection requires branches to be up to date (`required_status_checks.strict`). */
  readonly strictBranches = new Set<string>();
  /** Ruleset rules that apply to a branch, as the rules endpoint lists them. */
  readonly rules = new Map<string, FakeRule[]>();
  /** Whether the caller may bypass branch protection and rulesets (an admin, or an App on the bypass list). */
  bypassProtection = false;
  /** Branches whose classic protection requires signed commits (`required_signatures`). */
  readonly signedBranches = new Set<string>();
  /** Commits whose signature GitHub verified. */
  readonly verifiedCommits = new Set<string>();
  /** Check runs the repository's CI completes on each head update-branch makes, by name → conclusion. */
  readonly checksOnUpdatedHeads = new Map<string, string>();
  /** Heads update-branch made: merged only once the required checks succeeded on them. */
  private readonly updatedHeads = new Set<string>();
  /** Squash and rebase merges the merge endpoint made: commit sha → the PR head whose content it holds. */
  private readonly squashed = new Map<string, string>();
  /** Commit messages of the commits the merges and merge endpoints made, by sha. */
  readonly messages = new Map<string, string>();
  /** Approving reviews branch protection requires, by branch (a protected branch: see requiredChecks). */
  readonly requiredApprovals = new Map<string, number>();
  /** Reviews of pull requests, in the order they were submitted. */
  readonly reviews: { pr: number; user: string; state: 'APPROVED' | 'CHANGES_REQUESTED' | 'COMMENTED' }[] = [];
  readonly checkRuns: {
    id: number;
    name: string;
    head_sha: string;
    status: string;
    conclusion: string | null;
    output?: unknown;
  }[] = [];
  readonly statuses: { sha: string; context: string; state: string }[] = [];
  readonly comments: { id: number; issue: number; body: string }[] = [];
  /** GitHub Actions workflow runs by id (the fields the fork-upload check and re-runs read). */
  readonly workflowRuns = new Map<
    number,
    {
      status: string;
      conclusion?: string | null;
      head_sha: string;
      event: string;
      head_repository: { full_name: string };
      /** Times its failed jobs were re-run. */
      reruns?: number;
    }
  >();
  /** Check suites (of GitHub Actions and other Apps), with how often each was re-requested. */
  readonly checkSuites: {
    id: number;
    head_sha: string;
    status: string;
    conclusion: string | null;
    app: { slug: string };
    rerequests: number;
  }[] = [];
  /** Repository roles of collaborators by login (admin, maintain, write, triage, read); others can read. */
  readonly collaborators = new Map<string, string>();
  /** App installations by owner/name (App auth) and the installation tokens handed out. */
  readonly installations = new Map<string, number>();
  readonly issuedTokens: string[] = [];
  /** Installations deleted (uninstall): GitHub makes no token for them (404) and takes none it made (401). */
  readonly deletedInstallations = new Set<number>();
  /** Public key (PEM) that App JWTs must verify with; null = App auth not expected. */
  appPublicKey: string | null = null;
  appId: number | null = null;
  /**
   * Whether the repository refuses draft pull requests (a private repository of an account on
   * GitHub Free): POST /pulls with draft answers 422.
   */
  draftsUnsupported = false;
  /** The repository's default branch (`GET /repos/{owner}/{repo}`). */
  defaultBranch = 'main';
  /**
   * Called with each call once it is answered (with the answer's body) and before greenline gets the
   * answer: what happens on GitHub meanwhile (a check that completes, a delivery sent).
   */
  onAnswered: ((call: RecordedCall, body: unknown) => Promise<void> | void) | null = null;
  private scripted: Scripted[] = [];
  private failingAfter: Scripted[] = [];
  private nextId = 1000;
  /** What GitHub would not have taken or answered so (see github-description.ts); tests expect none. */
  readonly violations: Violation[] = [];
  /** Requests GitHub counts against the rate limit (every answer but a 304). */
  billable = 0;
  /** Primary rate limit per hour of a token or installation. */
  rateLimit = 5000;
  private readonly budgets = new Map<string, { used: number; reset: number; who: string }>();
  /** The fake's clock (rate-limit windows); tests may set it. */
  now: () => number = () => Date.now();
  /**
   * GitHub's App manifest flow (fake-app-registrations.ts) on the web address of this API
   * (`https://api.HOST` or `https://HOST/api/v3` → `https://HOST`): an App whose code is exchanged is
   * the App that authenticates from then on.
   */
  readonly appRegistrations: FakeAppRegistrations;
  /** GitHub's asynchronous merge (fake-async-merges.ts): the way GitHub merges a PR of a stack. */
  readonly asyncMerges = new FakeAsyncMerges({
    pulls: this.pulls,
    mergeNow: (n, body) => this.mergePull(n, body, true),
  });

  constructor(
    readonly owner = 'acme',
    readonly repo = 'web',
    readonly baseUrl = 'https://api.github.test',
  ) {
    this.appRegistrations = new FakeAppRegistrations(
      webUrlOf(baseUrl),
      () => this.now(),
      (app) => {
        this.appId = app.id;
        this.appPublicKey = app.publicKey;
      },
    );
    made.push(this);
  }

  /** A commit on top of `parent` (or a root commit) changing `files`, with a deterministic sha. */
  commit(parent: string | null, label: string, files: string[] = []): string {
    const sha = createHash('sha1')
      .update(`${parent ?? ''}:${label}`)
      .digest('hex');
    this.commits.set(sha, parent ? [parent] : []);
    this.commitFiles.set(sha, files);
    return sha;
  }

  /** The commits reachable from `sha`, itself included. */
  private reachable(sha: string): Set<string> {
    const seen = new Set<string>();
    for (const todo = [sha]; todo.length > 0; ) {
      const s = todo.pop()!;
      if (seen.has(s)) continue;
      seen.add(s);
      todo.push(...(this.commits.get(s) ?? []));
    }
    return seen;
  }

  /**
   * The files a comparison `base...head` lists: those the commits of head that base lacks changed
   * (merge commits change none of their own), sorted, at most GitHub's 300.
   */
  private comparedFiles(base: string, head: string): string[] {
    const inBase = this.reachable(base);
    const files = [...this.reachable(head)].filter((c) => !inBase.has(c)).flatMap((c) => this.commitFiles.get(c) ?? []);
    return [...new Set(files)].sort().slice(0, 300);
  }

  openPr(
    number: number,
    opts: Partial<Omit<FakePull, 'base' | 'head'>> & { headSha: string; base?: string },
  ): FakePull {
    const { base: baseOpt, headSha, ...rest } = opts;
    const base = baseOpt ?? 'main';
    const pr: FakePull = {
      number,
      state: 'open',
      merged: false,
      merged_at: null,
      closed_at: null,
      draft: false,
      mergeable: true,
      mergeable_state: 'clean',
      merge_commit_sha: null,
      title: `PR ${number}`,
      body: null,
      user: { login: 'ada' },
      labels: [],
      ...rest,
      head: { sha: headSha, ref: `feature-${number}`, label: `${this.owner}:feature-${number}` },
      base: { sha: this.branches.get(base) ?? '', ref: base },
    };
    this.pulls.set(number, pr);
    return pr;
  }

  /** The App uninstalled from the repository: its installation is deleted, with its tokens. */
  uninstall(): void {
    const id = this.installations.get(`${this.owner}/${this.repo}`);
    if (id !== undefined) this.deletedInstallations.add(id);
    this.installations.delete(`${this.owner}/${this.repo}`);
  }

  /** The next `count` calls matching method and path get this answer instead of the fake's own. */
  failNext(
    method: string,
    path: RegExp,
    status: number,
    body: unknown,
    headers: Record<string, string> = {},
    count = 1,
  ): void {
    for (let i = 0; i < count; i++) this.scripted.push({ method, path, status, body, headers });
  }

  /**
   * Whether `branch` requires branches to be up to date before merging: classic protection's `strict`
   * or a ruleset's `strict_required_status_checks_policy`, each only with at least one required check.
   */
  isStrict(branch: string): boolean {
    const classic = this.strictBranches.has(branch) && (this.requiredChecks.get(branch) ?? []).length > 0;
    return (
      classic ||
      (this.rules.get(branch) ?? []).some(
        (r) =>
          r.type === 'required_status_checks' &&
          r.parameters?.strict_required_status_checks_policy === true &&
          (r.parameters.required_status_checks as unknown[]).length > 0,
      )
    );
  }

  /** Names of the checks `branch` requires (classic protection and rulesets). */
  private requiredOf(branch: string): string[] {
    const fromRules = (this.rules.get(branch) ?? [])
      .filter((r) => r.type === 'required_status_checks')
      .flatMap((r) => (r.parameters!.required_status_checks as { context: string }[]).map((c) => c.context));
    return [...new Set([...(this.requiredChecks.get(branch) ?? []), ...fromRules])];
  }

  /** Whether `branch` requires signed commits: classic protection or a `required_signatures` rule. */
  private requiresSignatures(branch: string): boolean {
    return (
      this.signedBranches.has(branch) || (this.rules.get(branch) ?? []).some((r) => r.type === 'required_signatures')
    );
  }

  /** The commits of a PR: those its head has that its base's tip has not, oldest first. */
  prCommits(pr: FakePull): string[] {
    const tip = this.branches.get(pr.base.ref);
    const out: string[] = [];
    const seen = new Set<string>();
    const todo = [pr.head.sha];
    while (todo.length > 0) {
      const s = todo.pop()!;
      if (seen.has(s) || (tip !== undefined && this.isAncestor(s, tip))) continue;
      seen.add(s);
      out.unshift(s);
      todo.push(...(this.commits.get(s) ?? []));
    }
    return out;
  }

  /** Whether signed commits are required of the PR's base and a commit of the PR is not verified. */
  private unsignedCommits(pr: FakePull): boolean {
    return this.requiresSignatures(pr.base.ref) && this.prCommits(pr).some((c) => !this.verifiedCommits.has(c));
  }

  /** A PR's mergeable_state as GitHub computes it now: `behind` under strict when its head lacks the base's tip. */
  private mergeableStateOf(pr: FakePull): string {
    if (pr.mergeable_state === 'clean' && this.unsignedCommits(pr)) return 'blocked';
    const tip = this.branches.get(pr.base.ref);
    const behind = tip !== undefined && this.isStrict(pr.base.ref) && !this.isAncestor(tip, pr.head.sha);
    return pr.mergeable_state === 'clean' && behind ? 'behind' : pr.mergeable_state;
  }

  /**
   * The next `count` calls matching method and path are carried out (the handler runs, its effect stays)
   * and then answered with a server error, as GitHub does when it fails after applying a write.
   */
  failAfterEffect(method: string, path: RegExp, status = 502, count = 1): void {
    const body = { message: status === 502 ? 'Server Error' : 'Internal Server Error' };
    for (let i = 0; i < count; i++) this.failingAfter.push({ method, path, status, body, headers: {} });
  }

  /** GitHub's secondary rate limit for the next `count` matching calls: 403 (or 429) with retry-after. */
  secondaryLimitNext(method: string, path: RegExp, retryAfterSeconds = 60, status: 403 | 429 = 403, count = 1): void {
    this.failNext(
      method,
      path,
      status,
      {
        message:
          'You have exceeded a secondary rate limit. Please wait a few minutes before you try again. If you reach out to GitHub Support for help, please include the request ID.',
        documentation_url:
          'https://docs.github.com/rest/using-the-rest-api/rate-limits-for-the-rest-api#about-secondary-rate-limits',
      },
      { 'retry-after': String(retryAfterSeconds) },
      count,
    );
  }

  /** `METHOD path` of every call, in order (what the tests compare). */
  get log(): string[] {
    return this.calls.map((c) => `${c.method} ${c.path}`);
  }

  clearLog(): void {
    this.calls.length = 0;
  }

  /**
   * The content of a commit, comparable between commits: the changes (commits made by `commit`) it
   * holds through its parents, merges and squash or rebase merges (which hold their PR head's changes).
   */
  treeOf(sha: string): string {
    const changes = new Set<string>();
    const seen = new Set<string>();
    const todo = [sha];
    while (todo.length > 0) {
      const s = todo.pop()!;
      if (seen.has(s)) continue;
      seen.add(s);
      const parents = this.commits.get(s) ?? [];
      const squashedHead = this.squashed.get(s);
      if (squashedHead) todo.push(squashedHead);
      else if (parents.length < 2) changes.add(s);
      todo.push(...parents);
    }
    return [...changes].sort().join(',');
  }

  isAncestor(ancestor: string, sha: string): boolean {
    return this.reachable(sha).has(ancestor);
  }

  readonly fetch = async (input: string | URL | Request, init?: RequestInit): Promise<Response> => {
    const url = new URL(typeof input === 'string' ? input : input instanceof URL ? input.href : input.url);
    const method = (init?.method ?? 'GET').toUpperCase();
    const sentPath = url.pathname.replace(new URL(this.baseUrl).pathname.replace(/\/$/, ''), '');
    const rawPath = this.canonicalPath(sentPath);
    const path = decodeURIComponent(sentPath) + (url.search ? decodeURIComponent(url.search) : '');
    const body =
      typeof init?.body === 'string' && init.body !== '' ? (JSON.parse(init.body) as Record<string, unknown>) : null;
    const headers = new Headers(init?.headers);
    const call: RecordedCall = { method, path, body, authorization: headers.get('authorization'), status: 0 };
    this.calls.push(call);
    if (process.env.FAKE_GH_TRACE) console.log(Date.now() % 100000, method, path);
    const { match, problems } = checkRequest(method, rawPath, url.searchParams, body);
    for (const message of problems) this.violations.push({ method, path, message });
    const res = match
      ? await this.envelope(match.op, match.pathParams, method, rawPath, url.searchParams, body, headers)
      : json(404, { message: 'Not Found', documentation_url: 'https://docs.github.com/rest' });
    call.status = res.status;
    if (this.onAnswered)
      await this.onAnswered(call, res.status === 204 || res.status === 304 ? null : await res.clone().json());
    return res;
  };

  /** GitHub's answer around the fake's own: rate limits, scripted answers, full shapes, pages, ETags. */
  private async envelope(
    op: Operation,
    params: Record<string, string>,
    method: string,
    rawPath: string,
    query: URLSearchParams,
    body: Record<string, unknown> | null,
    headers: Headers,
  ): Promise<Response> {
    const path = decodeURIComponent(rawPath) + (query.size > 0 ? `?${decodeURIComponent(query.toString())}` : '');
    const auth = headers.get('authorization');
    const budget = this.budgetOf(auth);
    const limitHeaders = () => ({
      'x-ratelimit-limit': String(this.rateLimit),
      'x-ratelimit-remaining': String(Math.max(0, this.rateLimit - budget.used)),
      'x-ratelimit-used': String(budget.used),
      'x-ratelimit-reset': String(Math.floor(budget.reset / 1000)),
      'x-ratelimit-resource': 'core',
    });
    if (budget.used >= this.rateLimit)
      return json(
        403,
        {
          message: `API rate limit exceeded for ${budget.who}. If you reach out to GitHub Support for help, please include the request ID.`,
          documentation_url:
            'https://docs.github.com/rest/using-the-rest-api/rate-limits-for-the-rest-api#about-primary-rate-limits',
        },
        limitHeaders(),
      );
    const at = this.scripted.findIndex((s) => s.method === method && s.path.test(path));
    let res: Response;
    if (at >= 0) {
      const [s] = this.scripted.splice(at, 1);
      res = json(s!.status, s!.body, s!.headers);
    } else {
      res = this.answer(op, params, query, body, auth);
      const after = this.failingAfter.findIndex((s) => s.method === method && s.path.test(path));
      if (after >= 0) {
        const [s] = this.failingAfter.splice(after, 1);
        res = json(s!.status, s!.body, s!.headers);
      }
    }
    const text = await res.text();
    let data: unknown = text === '' ? null : JSON.parse(text);
    const extra: Record<string, string> = {};
    if (res.ok && data !== null) {
      if (method === 'GET' && op.params.has('query:page')) {
        const paged = paginate(data, query);
        data = paged.data;
        const link = linkHeader(`${this.baseUrl}${rawPath}`, query, paged.page, paged.last);
        if (link) extra.link = link;
      }
      if (!WHOLE_ANSWERS.has(op.operationId))
        data = asDescribed(op, fullShape(this.ofThisRepository(exampleAnswer(op, res.status)), data));
    }
    for (const message of checkResponse(op, res.status, data)) this.violations.push({ method, path, message });
    if (method === 'GET' && res.status === 200) {
      const etag = `W/"${createHash('sha256').update(JSON.stringify(data)).digest('hex').slice(0, 40)}"`;
      extra.etag = etag;
      if (headers.get('if-none-match') === etag)
        return new Response(null, { status: 304, headers: { ...limitHeaders(), etag } });
    }
    this.billable++;
    budget.used++;
    const out = Object.fromEntries(res.headers);
    return new Response(res.status === 204 || data === null ? null : JSON.stringify(data), {
      status: res.status,
      headers: { ...limitHeaders(), ...extra, ...out },
    });
  }

  /** GitHub's example repository (octocat/Hello-World) in an example answer → this one, canonically spelled. */
  private ofThisRepository(example: unknown): unknown {
    if (example === undefined) return undefined;
    const text = JSON.stringify(example)
      .replaceAll('octocat/Hello-World', `${this.owner}/${this.repo}`)
      .replaceAll('"name":"Hello-World"', `"name":${JSON.stringify(this.repo)}`);
    return JSON.parse(text);
  }

  /** `/repos/OWNER/REPO/…` in any letter case → the repository's canonical spelling (GitHub is case-insensitive). */
  private canonicalPath(rawPath: string): string {
    const m = /^\/repos\/([^/]+)\/([^/]+)(.*)$/.exec(rawPath);
    if (!m || `${m[1]}/${m[2]}`.toLowerCase() !== `${this.owner}/${this.repo}`.toLowerCase()) return rawPath;
    return `/repos/${this.owner}/${this.repo}${m[3]}`;
  }

  /** The primary rate-limit budget of a token or App installation, renewed an hour after its window began. */
  private budgetOf(auth: string | null): { used: number; reset: number; who: string } {
    const installation = /ghs_installation_(\d+)_/.exec(auth ?? '')?.[1];
    const who = installation ? `installation ID ${installation}` : `user ID 1`;
    const key = installation ?? auth ?? '';
    let b = this.budgets.get(key);
    if (!b || this.now() >= b.reset) {
      b = { used: 0, reset: this.now() + 3600_000, who };
      this.budgets.set(key, b);
    }
    return b;
  }

  /**
   * The fake's own answer to an operation of GitHub's: the operations outside the repository (App
   * auth) first, then the repository's, behind its token checks.
   */
  private answer(
    op: Operation,
    params: Record<string, string>,
    query: URLSearchParams,
    body: Body,
    auth: string | null,
  ): Response {
    const handler = (this.handlers as Record<string, Handler | undefined>)[op.operationId];
    if (!handler) return json(404, { message: `Not Found (the fake GitHub API does not serve ${op.operationId})` });
    const call: HandlerCall = { params, query, body: body ?? {}, auth };
    if (op.operationId === 'apps/create-installation-access-token' || op.operationId === 'apps/create-from-manifest')
      return handler(call);
    // GitHub's owner and repository names are case-insensitive: any spelling reaches the repository.
    if (`${params.owner}/${params.repo}`.toLowerCase() !== `${this.owner}/${this.repo}`.toLowerCase())
      return json(404, { message: 'Not Found' });
    if (op.operationId === 'apps/get-repo-installation') return handler(call);
    if (this.appPublicKey !== null && !(auth ?? '').startsWith('token ghs_'))
      return json(401, { message: 'Bad credentials' });
    if (this.deletedInstallations.has(Number(/^token ghs_installation_(\d+)_/.exec(auth ?? '')?.[1])))
      return json(401, { message: 'Bad credentials' });
    return handler(call);
  }

  /** A branch of a `heads/…` ref parameter (`git/ref/{ref}`), or null for any other ref. */
  private static branchOf(ref: string): string | null {
    return ref.startsWith('heads/') ? ref.slice('heads/'.length) : null;
  }

  /** The fake's answers by GitHub's operation ids (fake-operations.ts lists them). */
  private readonly handlers: Record<FakeOperation, Handler> = {
    'apps/create-installation-access-token': ({ params, auth }) => {
      const bad = this.checkJwt(auth);
      if (bad) return bad;
      if (this.deletedInstallations.has(Number(params.installation_id))) return json(404, { message: 'Not Found' });
      const token = `ghs_installation_${params.installation_id}_${this.issuedTokens.length + 1}`;
      this.issuedTokens.push(token);
      return json(201, {
        token,
        expires_at: new Date(Date.now() + 3600_000).toISOString(),
        permissions: {},
        repository_selection: 'all',
      });
    },
    'apps/create-from-manifest': ({ params }) => {
      const app = this.appRegistrations.convert(params.code!);
      return app === null ? json(404, { message: 'Not Found' }) : json(201, app);
    },
    'apps/get-repo-installation': ({ auth }) => {
      const bad = this.checkJwt(auth);
      if (bad) return bad;
      const id = this.installations.get(`${this.owner}/${this.repo}`);
      return id === undefined ? json(404, { message: 'Not Found' }) : json(200, { id, app_id: this.appId });
    },
    'repos/get': () => json(200, this.repository()),
    'actions/list-workflow-runs-for-repo': ({ query }) => {
      const runs = [...this.workflowRuns]
        .filter(([, w]) => !query.get('head_sha') || w.head_sha === query.get('head_sha'))
        .map(([id, w]) => ({ id, ...w, conclusion: w.conclusion ?? null }));
      return json(200, { total_count: runs.length, workflow_runs: runs });
    },
    'actions/get-workflow-run': ({ params }) => {
      const run = this.workflowRuns.get(Number(params.run_id));
      return run ? json(200, { id: Number(params.run_id), ...run }) : json(404, { message: 'Not Found' });
    },
    'actions/re-run-workflow-failed-jobs': ({ params }) => {
      const run = this.workflowRuns.get(Number(params.run_id));
      if (!run) return json(404, { message: 'Not Found' });
      if (run.status !== 'completed') return json(403, { message: 'This workflow is already running' });
      Object.assign(run, { status: 'queued', conclusion: null, reruns: (run.reruns ?? 0) + 1 });
      return json(201, {});
    },
    'checks/list-suites-for-ref': ({ params }) => {
      const suites = this.checkSuites.filter((s) => s.head_sha === params.ref);
      return json(200, { total_count: suites.length, check_suites: suites });
    },
    'checks/rerequest-suite': ({ params }) => {
      const suite = this.checkSuites.find((s) => s.id === Number(params.check_suite_id));
      if (!suite) return json(404, { message: 'Not Found' });
      suite.rerequests++;
      return json(201, {});
    },
    'checks/list-for-ref': ({ params, query }) => {
      let runs = this.checkRuns.filter(
        (c) => c.head_sha === params.ref && (!query.get('check_name') || c.name === query.get('check_name')),
      );
      // filter=latest (GitHub's default): the most recent check run of each name.
      if (query.get('filter') !== 'all')
        runs = runs.filter((c) => !runs.some((o) => o.name === c.name && o.id > c.id)).reverse();
      return json(200, {
        total_count: runs.length,
        check_runs: runs.map((c) => ({ ...c, html_url: `https://github.test/runs/${c.id}` })),
      });
    },
    'checks/create': ({ body }) => {
      const run = {
        id: this.nextId++,
        name: String(body.name),
        head_sha: String(body.head_sha),
        // GitHub: `queued` unless told; a conclusion completes the run.
        status: body.conclusion ? 'completed' : String(body.status ?? 'queued'),
        conclusion: (body.conclusion as string) ?? null,
        output: body.output,
      };
      this.checkRuns.push(run);
      return json(201, run);
    },
    'checks/update': ({ params, body }) => {
      const run = this.checkRuns.find((c) => c.id === Number(params.check_run_id));
      if (!run) return json(404, { message: 'Not Found' });
      // A completed check run keeps its status and conclusion: GitHub answers 200 and changes neither.
      if (run.status !== 'completed') {
        if (body.status !== undefined) run.status = String(body.status);
        if (body.conclusion !== undefined) Object.assign(run, { status: 'completed', conclusion: body.conclusion });
      }
      if (body.output !== undefined) run.output = body.output;
      return json(200, run);
    },
    'repos/get-collaborator-permission-level': ({ params }) => this.permissionOf(params.username!),
    'pulls/get': ({ params }) => {
      const pr = this.pulls.get(Number(params.pull_number));
      return pr
        ? json(200, {
            ...pr,
            mergeable_state: this.mergeableStateOf(pr),
            base: { ...pr.base, sha: this.branches.get(pr.base.ref) ?? pr.base.sha },
          })
        : json(404, { message: 'Not Found' });
    },
    'pulls/list': ({ query }) => {
      const head = query.get('head')?.split(':')[1];
      return json(
        200,
        [...this.pulls.values()].filter(
          (p) => p.state === (query.get('state') ?? 'open') && (!head || p.head.ref === head),
        ),
      );
    },
    'pulls/create': ({ body }) => this.createPull(body),
    'pulls/update': ({ params, body }) => {
      const pr = this.pulls.get(Number(params.pull_number));
      if (!pr) return json(404, { message: 'Not Found' });
      if (body.state === 'closed')
        Object.assign(pr, { state: 'closed', closed_at: new Date(this.now()).toISOString() });
      return json(200, pr);
    },
    'pulls/list-reviews': ({ params }) => {
      const n = Number(params.pull_number);
      if (!this.pulls.has(n)) return json(404, { message: 'Not Found' });
      return json(
        200,
        this.reviews
          .map((v, i) => ({ ...v, id: i + 1 }))
          .filter((v) => v.pr === n)
          .map((v) => ({ id: v.id, user: { login: v.user }, state: v.state, body: '' })),
      );
    },
    'pulls/merge': ({ params, body }) => {
      const { status, body: answer } = this.mergePull(Number(params.pull_number), body);
      return json(status, answer);
    },
    'pulls/merge-async': ({ params, body }) => {
      const { status, body: answer } = this.asyncMerges.request(Number(params.pull_number), body);
      return json(status, answer);
    },
    'pulls/get-merge-async-result': ({ params }) => {
      const { status, body } = this.asyncMerges.result(Number(params.pull_number), params.uuid!);
      return json(status, body);
    },
    'pulls/list-commits': ({ params }) => {
      const pr = this.pulls.get(Number(params.pull_number));
      if (!pr) return json(404, { message: 'Not Found' });
      return json(
        200,
        this.prCommits(pr).map((sha) => {
          const verified = this.verifiedCommits.has(sha);
          return {
            sha,
            parents: (this.commits.get(sha) ?? []).map((p) => ({ sha: p, url: `${this.baseUrl}/commits/${p}` })),
            commit: {
              message: this.messages.get(sha) ?? sha,
              verification: {
                verified,
                reason: verified ? 'valid' : 'unsigned',
                payload: null,
                signature: null,
                verified_at: null,
              },
            },
          };
        }),
      );
    },
    'pulls/update-branch': ({ params, body }) => this.updateBranch(Number(params.pull_number), body),
    'git/get-ref': ({ params }) => {
      const name = FakeGitHubApi.branchOf(params.ref!);
      const sha = name === null ? undefined : this.branches.get(name);
      return sha
        ? json(200, { ref: `refs/heads/${name}`, object: { sha, type: 'commit' } })
        : json(404, { message: 'Not Found' });
    },
    'git/list-matching-refs': ({ params }) => {
      const prefix = FakeGitHubApi.branchOf(params.ref!);
      if (prefix === null) return json(200, []);
      return json(
        200,
        [...this.branches]
          .filter(([name]) => name.startsWith(prefix))
          .map(([name, sha]) => ({ ref: `refs/heads/${name}`, object: { sha, type: 'commit' } })),
      );
    },
    'git/create-ref': ({ body }) => {
      const name = String(body.ref).replace(/^refs\/heads\//, '');
      if (this.branches.has(name)) return json(422, { message: 'Reference already exists' });
      this.branches.set(name, String(body.sha));
      return json(201, { ref: body.ref, object: { sha: body.sha } });
    },
    'git/update-ref': ({ params, body }) => {
      const name = FakeGitHubApi.branchOf(params.ref!);
      const now = name === null ? undefined : this.branches.get(name);
      if (name === null || !now) return json(422, { message: 'Reference does not exist' });
      if (this.protectedBranches.has(name) && !this.bypassProtection)
        return json(422, { message: `Protected branch update failed for refs/heads/${name}.` });
      if ((this.rules.get(name) ?? []).length > 0 && !this.bypassProtection)
        return json(422, {
          message: 'Repository rule violations found\n\nChanges must be made through a pull request.\n\n',
        });
      if (!body.force && !this.isAncestor(now, String(body.sha)))
        return json(422, { message: 'Update is not a fast forward' });
      this.branches.set(name, String(body.sha));
      return json(200, { ref: `refs/heads/${name}`, object: { sha: body.sha } });
    },
    'git/delete-ref': ({ params }) => {
      const name = FakeGitHubApi.branchOf(params.ref!);
      return name !== null && this.branches.delete(name)
        ? json(204, null)
        : json(422, { message: 'Reference does not exist' });
    },
    'repos/merge': ({ body }) => {
      const base = String(body.base);
      const head = String(body.head);
      const at = this.branches.get(base);
      if (!at || !this.commits.has(head)) return json(404, { message: 'Base or head does not exist' });
      if (this.isAncestor(head, at)) return json(204, null);
      if (this.conflicting.has(head)) return json(409, { message: 'Merge conflict' });
      const sha = createHash('sha1').update(`merge:${at}:${head}`).digest('hex');
      this.commits.set(sha, [at, head]);
      this.messages.set(sha, String(body.commit_message));
      this.branches.set(base, sha);
      return json(201, { sha, commit: { message: body.commit_message } });
    },
    'repos/get-branch': ({ params }) => this.branchJson(params.branch!),
    'repos/get-branch-rules': ({ params }) => json(200, this.rules.get(params.branch!) ?? []),
    'repos/compare-commits': ({ params }) => {
      const [base, head] = [params.base!, params.head!];
      const status =
        base === head
          ? 'identical'
          : this.isAncestor(base, head)
            ? 'ahead'
            : this.isAncestor(head, base)
              ? 'behind'
              : 'diverged';
      const files = this.comparedFiles(base, head).map((filename) => ({ filename, status: 'modified' }));
      return json(200, { status, base_commit: { sha: base }, files });
    },
    'repos/get-combined-status-for-ref': ({ params }) => {
      const statuses = this.statuses
        .filter((s) => s.sha === params.ref)
        .reverse()
        .filter((s, i, all) => all.findIndex((x) => x.context === s.context) === i); // the latest per context
      // GitHub's combined state: failure if any is error or failure, pending if none or any pending.
      const states = statuses.map((s) => s.state);
      const state = states.some((x) => x === 'error' || x === 'failure')
        ? 'failure'
        : states.length === 0 || states.includes('pending')
          ? 'pending'
          : 'success';
      return json(200, {
        sha: params.ref,
        state,
        total_count: statuses.length,
        statuses: statuses.map((s) => ({ context: s.context, state: s.state })),
      });
    },
    'repos/create-commit-status': ({ params, body }) => {
      this.statuses.push({ sha: params.sha!, context: String(body.context), state: String(body.state) });
      return json(201, { id: this.nextId++, state: body.state, context: body.context });
    },
    'issues/list-comments': ({ params }) =>
      json(
        200,
        this.comments.filter((c) => c.issue === Number(params.issue_number)).map((c) => ({ id: c.id, body: c.body })),
      ),
    'issues/create-comment': ({ params, body }) => {
      const c = { id: this.nextId++, issue: Number(params.issue_number), body: String(body.body) };
      this.comments.push(c);
      return json(201, c);
    },
    'issues/update-comment': ({ params, body }) => {
      const c = this.comments.find((x) => x.id === Number(params.comment_id));
      if (!c) return json(404, { message: 'Not Found' });
      c.body = String(body.body);
      return json(200, c);
    },
    'issues/add-labels': ({ params, body }) => {
      const pr = this.pulls.get(Number(params.issue_number));
      if (!pr) return json(404, { message: 'Not Found' });
      for (const name of body.labels as string[]) if (!pr.labels.some((l) => l.name === name)) pr.labels.push({ name });
      return json(200, pr.labels);
    },
    'issues/remove-label': ({ params }) => {
      const pr = this.pulls.get(Number(params.issue_number));
      const name = params.name!;
      if (!pr?.labels.some((l) => l.name === name)) return json(404, { message: 'Label does not exist' });
      pr.labels = pr.labels.filter((l) => l.name !== name);
      return json(200, pr.labels);
    },
  };

  /** `POST /repos/{owner}/{repo}/pulls`: refused without commits, for a head with an open PR, or a draft where drafts are not supported. */
  private createPull(body: Record<string, unknown>): Response {
    const head = String(body.head);
    const refuse = (message: string) =>
      json(422, { message: 'Validation Failed', errors: [{ resource: 'PullRequest', code: 'custom', message }] });
    if (!this.branches.has(head)) return refuse(`No commits between main and ${head}`);
    if ([...this.pulls.values()].some((p) => p.state === 'open' && p.head.ref === head))
      return refuse(`A pull request already exists for ${this.owner}:${head}.`);
    if (body.draft === true && this.draftsUnsupported)
      return refuse('Draft pull requests are not supported in this repository.');
    const number = Math.max(0, ...this.pulls.keys()) + 1;
    const pr = this.openPr(number, {
      headSha: this.branches.get(head)!,
      base: String(body.base),
      draft: Boolean(body.draft),
      title: String(body.title),
    });
    pr.head.ref = head;
    pr.head.label = `${this.owner}:${head}`;
    return json(201, pr);
  }

  /** `PUT /repos/{owner}/{repo}/pulls/{pull_number}/merge`, as GitHub merges (or refuses). */
  /**
   * The merge endpoint's merge of PR `n` (its answer's status and body); `async`: carried out by the
   * asynchronous merge, which GitHub lets merge a PR of a stack.
   */
  private mergePull(
    n: number,
    body: Record<string, unknown>,
    async = false,
  ): { status: number; body: { sha?: string; merged?: boolean; message: string } } {
    const pr = this.pulls.get(n);
    if (!pr) return { status: 404, body: { message: 'Not Found' } };
    if (pr.merged || pr.state !== 'open' || pr.mergeable === false)
      return { status: 405, body: { message: 'Pull Request is not mergeable' } };
    if (body.sha !== undefined && body.sha !== pr.head.sha)
      return { status: 409, body: { message: 'Head branch was modified. Review and try the merge again.' } };
    const target = this.branches.get(pr.base.ref)!;
    const refused = this.mergeRefusal(pr, target, async);
    if (refused) return { status: 405, body: { message: refused } };
    if (this.requiresSignatures(pr.base.ref) && body.merge_method === 'rebase')
      return {
        status: 405,
        body: {
          message: 'Base branch requires signed commits. Rebase merges cannot be automatically signed by GitHub',
        },
      };
    if (body.merge_method !== 'squash' && this.unsignedCommits(pr))
      return { status: 405, body: { message: 'Commits must have verified signatures.' } };
    const sha = this.commit(
      target,
      `${body.merge_method}:${pr.number}:${pr.head.sha}:${String(body.commit_title ?? '')}`,
    );
    if (body.merge_method === 'merge') this.commits.set(sha, [target, pr.head.sha]);
    else this.squashed.set(sha, pr.head.sha);
    const title =
      body.commit_title ??
      (body.merge_method === 'merge'
        ? `Merge pull request #${pr.number} from ${pr.head.label.replace(':', '/')}`
        : `${pr.title} (#${pr.number})`);
    this.messages.set(sha, `${String(title)}\n\n${String(body.commit_message ?? pr.title)}`);
    this.branches.set(pr.base.ref, sha);
    const at = new Date(this.now()).toISOString();
    Object.assign(pr, { merged: true, state: 'closed', merge_commit_sha: sha, merged_at: at, closed_at: at });
    return { status: 200, body: { sha, merged: true, message: 'Pull Request successfully merged' } };
  }

  /**
   * `PUT /repos/{owner}/{repo}/pulls/{pull_number}/update-branch`: merges the base's tip into the PR's
   * head (a merge commit whose first parent is the head), which becomes the PR's new head. GitHub
   * answers 202 and updates the branch in the background; the fake updates it before answering.
   */
  private updateBranch(n: number, body: Record<string, unknown>): Response {
    const pr = this.pulls.get(n);
    if (!pr) return json(404, { message: 'Not Found' });
    if (pr.state !== 'open') return json(422, { message: 'Pull request is not open.' });
    if (body.expected_head_sha !== undefined && body.expected_head_sha !== pr.head.sha)
      return json(422, { message: "expected head sha didn't match current head ref." });
    const tip = this.branches.get(pr.base.ref)!;
    if (this.isAncestor(tip, pr.head.sha))
      return json(422, { message: 'There are no new commits on the base branch.' });
    if (this.conflicting.has(pr.head.sha)) return json(422, { message: 'merge conflict between base and head' });
    const sha = createHash('sha1').update(`update-branch:${pr.head.sha}:${tip}`).digest('hex');
    this.commits.set(sha, [pr.head.sha, tip]);
    this.messages.set(sha, `Merge branch '${pr.base.ref}' into ${pr.head.ref}`);
    pr.head.sha = sha;
    if (this.branches.has(pr.head.ref)) this.branches.set(pr.head.ref, sha);
    this.updatedHeads.add(sha);
    for (const [name, conclusion] of this.checksOnUpdatedHeads)
      this.checkRuns.push({ id: this.nextId++, name, head_sha: sha, status: 'completed', conclusion });
    return json(202, {
      message: 'Updating pull request branch.',
      url: `https://github.test/repos/${this.owner}/${this.repo}/pulls/${n}`,
    });
  }

  /** `GET /repos/{owner}/{repo}/branches/{branch}`, with its classic protection. */
  private branchJson(name: string): Response {
    if (!this.branches.has(name)) return json(404, { message: 'Branch not found' });
    const checks = this.requiredChecks.get(name);
    const approvals = this.requiredApprovals.get(name);
    return json(200, {
      name,
      commit: { sha: this.branches.get(name) },
      protected: Boolean(checks),
      protection: checks
        ? {
            enabled: true,
            required_status_checks: {
              enforcement_level: 'everyone',
              contexts: checks,
              checks: checks.map((context) => ({ context, app_id: null })),
              strict: this.strictBranches.has(name),
            },
            required_signatures: {
              url: `${this.baseUrl}/repos/${this.owner}/${this.repo}/branches/${name}/protection/required_signatures`,
              enabled: this.signedBranches.has(name),
            },
            ...(approvals
              ? {
                  required_pull_request_reviews: {
                    required_approving_review_count: approvals,
                    require_code_owner_reviews: false,
                    dismiss_stale_reviews: false,
                  },
                }
              : {}),
          }
        : { enabled: false },
    });
  }

  /**
   * Why GitHub's synchronous merge endpoint refuses an open PR (405), or null: a stacked PR, a
   * `merge_queue` rule, or a head behind the base's tip under strict protection (GitHub then reports
   * the required checks as expected, since they have not run on the up-to-date head).
   */
  private mergeRefusal(pr: FakePull, target: string, async: boolean): string | null {
    if (pr.stack && !async) return 'Pull request is part of a stack: merge it with the asynchronous merge endpoint.';
    if ((this.rules.get(pr.base.ref) ?? []).some((r) => r.type === 'merge_queue'))
      return 'Repository rule violations found\n\nChanges must be made through the merge queue\n\n';
    const required = this.requiredOf(pr.base.ref);
    const expected = (missing: string[]): string =>
      missing.length === 1
        ? `Required status check "${missing[0]}" is expected.`
        : `${missing.length} of ${required.length} required status checks are expected.`;
    if (this.isStrict(pr.base.ref) && !this.isAncestor(target, pr.head.sha)) return expected(required);
    if (this.updatedHeads.has(pr.head.sha)) {
      const missing = required.filter((name) => !this.checkSucceeded(pr.head.sha, name));
      if (missing.length > 0) return expected(missing);
    }
    return null;
  }

  /** Whether the latest check run or commit status `name` on `sha` succeeded (or was skipped or neutral). */
  private checkSucceeded(sha: string, name: string): boolean {
    const run = this.checkRuns.filter((c) => c.head_sha === sha && c.name === name).at(-1);
    if (run) return run.status === 'completed' && ['success', 'neutral', 'skipped'].includes(run.conclusion ?? '');
    return this.statuses.filter((s) => s.sha === sha && s.context === name).at(-1)?.state === 'success';
  }

  /**
   * `GET /repos/{owner}/{repo}/collaborators/{username}/permission`: `role_name` is the role (custom
   * roles by their name); `permission` the legacy base role, maintain reported as write and triage as read.
   */
  private permissionOf(login: string): Response {
    const role = this.collaborators.get(login) ?? 'read';
    const legacy: Record<string, string> = { maintain: 'write', triage: 'read' };
    const url = `${this.baseUrl}/users/${login}`;
    const user = {
      login,
      id: 1,
      node_id: 'MDQ6VXNlcjE=',
      avatar_url: `https://github.test/images/${login}.gif`,
      gravatar_id: '',
      url,
      html_url: `https://github.test/${login}`,
      followers_url: `${url}/followers`,
      following_url: `${url}/following{/other_user}`,
      gists_url: `${url}/gists{/gist_id}`,
      starred_url: `${url}/starred{/owner}{/repo}`,
      subscriptions_url: `${url}/subscriptions`,
      organizations_url: `${url}/orgs`,
      repos_url: `${url}/repos`,
      events_url: `${url}/events{/privacy}`,
      received_events_url: `${url}/received_events`,
      type: 'User',
      site_admin: false,
      role_name: role,
    };
    return json(200, { permission: legacy[role] ?? role, role_name: role, user });
  }

  /**
   * `GET /repos/{owner}/{repo}`: the repository as GitHub describes it (its `full-repository` schema's
   * required fields), with the owner and name in the fake's spelling, GitHub's canonical one.
   */
  repository(): Record<string, unknown> {
    const full = `${this.owner}/${this.repo}`;
    const api = `${this.baseUrl}/repos/${full}`;
    const web = `https://github.test/${full}`;
    const user = `${this.baseUrl}/users/${this.owner}`;
    const urls = Object.fromEntries(
      Object.entries({
        archive: '/{archive_format}{/ref}',
        assignees: '/assignees{/user}',
        blobs: '/git/blobs{/sha}',
        branches: '/branches{/branch}',
        collaborators: '/collaborators{/collaborator}',
        comments: '/comments{/number}',
        commits: '/commits{/sha}',
        compare: '/compare/{base}...{head}',
        contents: '/contents/{+path}',
        contributors: '/contributors',
        deployments: '/deployments',
        downloads: '/downloads',
        events: '/events',
        forks: '/forks',
        git_commits: '/git/commits{/sha}',
        git_refs: '/git/refs{/sha}',
        git_tags: '/git/tags{/sha}',
        hooks: '/hooks',
        issue_comment: '/issues/comments{/number}',
        issue_events: '/issues/events{/number}',
        issues: '/issues{/number}',
        keys: '/keys{/key_id}',
        labels: '/labels{/name}',
        languages: '/languages',
        merges: '/merges',
        milestones: '/milestones{/number}',
        notifications: '/notifications{?since,all,participating}',
        pulls: '/pulls{/number}',
        releases: '/releases{/id}',
        stargazers: '/stargazers',
        statuses: '/statuses/{sha}',
        subscribers: '/subscribers',
        subscription: '/subscription',
        tags: '/tags',
        teams: '/teams',
        trees: '/git/trees{/sha}',
      }).map(([k, tail]) => [`${k}_url`, `${api}${tail}`]),
    );
    return {
      id: 1296269,
      node_id: 'MDEwOlJlcG9zaXRvcnkxMjk2MjY5',
      name: this.repo,
      full_name: full,
      owner: {
        login: this.owner,
        id: 1,
        node_id: 'MDQ6VXNlcjE=',
        avatar_url: 'https://github.test/images/avatar.gif',
        gravatar_id: '',
        url: user,
        html_url: `https://github.test/${this.owner}`,
        followers_url: `${user}/followers`,
        following_url: `${user}/following{/other_user}`,
        gists_url: `${user}/gists{/gist_id}`,
        starred_url: `${user}/starred{/owner}{/repo}`,
        subscriptions_url: `${user}/subscriptions`,
        organizations_url: `${user}/orgs`,
        repos_url: `${user}/repos`,
        events_url: `${user}/events{/privacy}`,
        received_events_url: `${user}/received_events`,
        type: 'Organization',
        site_admin: false,
      },
      private: true,
      html_url: web,
      description: null,
      fork: false,
      url: api,
      ...urls,
      clone_url: `${web}.git`,
      git_url: `git://github.test/${full}.git`,
      ssh_url: `git@github.test:${full}.git`,
      svn_url: web,
      mirror_url: null,
      homepage: null,
      language: 'TypeScript',
      default_branch: this.defaultBranch,
      forks: 0,
      forks_count: 0,
      stargazers_count: 0,
      watchers: 0,
      watchers_count: 0,
      network_count: 0,
      subscribers_count: 0,
      open_issues: this.pulls.size,
      open_issues_count: this.pulls.size,
      size: 108,
      has_issues: true,
      has_projects: true,
      has_wiki: true,
      has_pages: false,
      has_discussions: false,
      archived: false,
      disabled: false,
      license: null,
      pushed_at: '2026-01-05T09:00:00Z',
      created_at: '2025-01-05T09:00:00Z',
      updated_at: '2026-01-05T09:00:00Z',
    };
  }

  /** A GitHub App JWT signed with the App's key, issued by the App id; an error response otherwise. */
  private checkJwt(auth: string | null): Response | null {
    const jwt = /^bearer (.+)$/i.exec(auth ?? '')?.[1];
    if (!jwt || !this.appPublicKey) return json(401, { message: 'A JSON web token could not be decoded' });
    const [h, p, s] = jwt.split('.');
    const ok = createVerify('RSA-SHA256').update(`${h}.${p}`).verify(this.appPublicKey, Buffer.from(s!, 'base64url'));
    const claims = JSON.parse(Buffer.from(p!, 'base64url').toString()) as { iss?: unknown; exp?: number };
    if (!ok || String(claims.iss) !== String(this.appId))
      return json(401, { message: "'Issuer' claim ('iss') must be an Integer" });
    return null;
  }
}

/** The lists GitHub pages inside an object answer (`{ total_count, check_runs: [...] }` and the like). */
const PAGED_KEYS = ['check_runs', 'check_suites', 'workflow_runs', 'statuses'];

/** One page of a list answer (`per_page` default 30, at most 100; `page` from 1) and the number of the last. */
function paginate(data: unknown, query: URLSearchParams): { data: unknown; page: number; last: number } {
  const perPage = Math.min(100, Number(query.get('per_page') ?? 30) || 30);
  const page = Math.max(1, Number(query.get('page') ?? 1) || 1);
  const cut = (all: unknown[]) => all.slice((page - 1) * perPage, page * perPage);
  const lastOf = (all: unknown[]) => Math.max(1, Math.ceil(all.length / perPage));
  if (Array.isArray(data)) return { data: cut(data), page, last: lastOf(data) };
  const o = data as Record<string, unknown>;
  const key = PAGED_KEYS.find((k) => Array.isArray(o?.[k]));
  if (!key) return { data, page: 1, last: 1 };
  const all = o[key] as unknown[];
  return { data: { ...o, total_count: all.length, [key]: cut(all) }, page, last: lastOf(all) };
}

/** GitHub's `Link` header: `<url?page=3>; rel="prev", <…>; rel="next", <…>; rel="last", <…>; rel="first"`. */
function linkHeader(base: string, query: URLSearchParams, page: number, last: number): string | null {
  const to = (n: number) => {
    const q = new URLSearchParams(query);
    q.set('page', String(n));
    return `<${base}?${q.toString()}>`;
  };
  const parts: string[] = [];
  if (page > 1) parts.push(`${to(page - 1)}; rel="prev"`);
  if (page < last) parts.push(`${to(page + 1)}; rel="next"`, `${to(last)}; rel="last"`);
  if (page > 1) parts.push(`${to(1)}; rel="first"`);
  return parts.length > 0 ? parts.join(', ') : null;
}

/**
 * The fake's answer over GitHub's documented example: every field GitHub sends is there, the fake's own
 * values win; each item of a list over the example's first item.
 */
function fullShape(example: unknown, own: unknown): unknown {
  if (own === undefined) return example;
  if (Array.isArray(own)) return Array.isArray(example) ? own.map((x) => fullShape(example[0], x)) : own;
  if (!isObject(own) || !isObject(example)) return own;
  const out: Record<string, unknown> = { ...example };
  for (const [k, v] of Object.entries(own)) out[k] = fullShape(example[k], v);
  return out;
}

/**
 * An answer filled from an example that its operation's description contradicts, as the description
 * says: `repos/get` says "The `parent` and `source` objects are present when the repository is a fork",
 * yet its example, of a repository that is not a fork (`"fork": false`), has both.
 */
function asDescribed(op: Operation, data: unknown): unknown {
  if (op.operationId !== 'repos/get' || !isObject(data) || data.fork !== false) return data;
  const { parent: _parent, source: _source, ...notAFork } = data;
  return notAFork;
}

/**
 * Operations whose answer is one of several shapes (`details` of an asynchronous merge's result:
 * pending, merged or failed): filled from the example of another shape, it would be none; the fake
 * answers them whole.
 */
const WHOLE_ANSWERS = new Set<string>(['pulls/merge-async', 'pulls/get-merge-async-result']);

const isObject = (x: unknown): x is Record<string, unknown> => typeof x === 'object' && x !== null && !Array.isArray(x);

/** Every fake made in a test file; a test after which any of them saw a violation fails. */
const made: FakeGitHubApi[] = [];
/** Webhook payloads the tests built that GitHub would not send. */
const deliveryViolations: Violation[] = [];

/** Checks a webhook payload a test delivers or reads against GitHub's schema of its event and action. */
export function checkDelivery(event: string, payload: unknown): void {
  for (const message of checkWebhook(event, payload))
    deliveryViolations.push({ method: 'WEBHOOK', path: event, message });
}

/** Throws, naming each, when any fake (or delivered payload) saw what GitHub would not take or give since last asked. */
export function expectNoViolations(): void {
  const seen = [...deliveryViolations.splice(0), ...made.flatMap((api) => api.violations.splice(0))];
  if (seen.length > 0)
    throw new Error(
      `GitHub would not have taken or answered this:\n${seen.map((v) => `  ${v.method} ${v.path}: ${v.message}`).join('\n')}`,
    );
}

// After every test (under vitest only: a benchmark or script may drive the fake outside a test run).
if (process.env.VITEST) afterEach(expectNoViolations);
