/**
 * A test harness that plays forge and CI for the engine (a fake, for tests only).
 *
 * The model forge: a commit is (root, ordered PR heads); its sha spells exactly that, so content is
 * never ambiguous. Roots are commits pushed from outside (always green). Building a test branch on
 * a base adds the PR heads to the base's content. A merge is a compare-and-swap of the target to the
 * test commit. Model CI fails a commit when it contains a head of a "bad" PR, or when told to flake;
 * a flaky forge reports a merge conflict instead of a built branch, or merges only half of a group.
 * With `cancels`, a flake of CI is a cancellation every other time instead of a failure. CI asked to
 * run again (`retryCi`) reports again on the same commit. With `namedStatuses`, CI has two required
 * statuses: `build` fails on a bad PR, `lint` is the one that flakes; a run's outcome leaves out the
 * statuses quarantined (as app/executor/ci-outcome.ts does) and names the failed ones.
 *
 * Effects are executed into a pool of pending reports (branch built, CI result, merge result,
 * wakeup); the test decides which report arrives next. Every decision is checked:
 * - the input snapshot is deep-frozen (decide must not mutate it) and unchanged entries keep identity;
 * - (1) every merge advances the target from exactly its expected sha to a commit that extends the
 *   target's content by exactly the merged PRs and (single mode) whose CI passed, and no bad PR merges;
 * - (2) every submitted PR keeps an entry; (3) no PR is merged twice;
 * - (5) parallel mode: a run includes only PRs whose targets overlap its group's, transitively;
 * - (6) no test branch is asked for a run that the same decision dropped.
 */
import {
  decide,
  gatingStatuses,
  newQueueSnapshot,
  quarantinedStatusesOf,
  type Effect,
  type EngineEvent,
  type Entry,
  type ImpactedTargets,
  type QueueConfig,
  type QueueSnapshot,
  type RunPr,
} from '../../src/engine/index.js';

export interface Content {
  root: string;
  prs: RunPr[];
}

export type Report =
  | { type: 'built'; runId: string; sha: string }
  | { type: 'ci'; runId: string; sha: string }
  | { type: 'merge'; effect: Extract<Effect, { kind: 'merge' }> }
  | { type: 'wake'; at: number };

const shaOf = (c: Content): string => `${c.root}|${c.prs.map((p) => `${p.number}@${p.headSha}`).join(',')}`;

function deepFreeze<T>(value: T): T {
  if (value && typeof value === 'object' && !Object.isFrozen(value)) {
    Object.freeze(value);
    for (const v of Object.values(value)) deepFreeze(v);
  }
  return value;
}

export class Harness {
  snapshot: QueueSnapshot;
  now = 1_000_000;
  pending: Report[] = [];
  readonly violations: string[] = [];
  readonly commits = new Map<string, Content>();
  target: string;
  readonly heads = new Map<number, string>();
  readonly mergedPrs = new Set<number>();
  readonly passedShas = new Set<string>();
  readonly submitted = new Set<number>();
  readonly rejections: string[] = [];
  /** CI runs started or run again, CI runs again, and runs that passed after a retry. */
  ciRuns = 0;
  ciRetries = 0;
  flakyPasses = 0;
  /** With named statuses: decisions that had a status quarantined. */
  quarantinedDecisions = 0;
  private ids = 0;
  private roots = 0;
  private flakes = 0;
  private readonly ctx = { newId: () => `r${++this.ids}` };

  constructor(
    config: Partial<QueueConfig>,
    readonly bad: ReadonlySet<number> = new Set(),
    readonly cancels = false,
    readonly namedStatuses = false,
  ) {
    this.snapshot = newQueueSnapshot({ host: 'github.com', owner: 'acme', name: 'app' }, 'main', config, 'gl');
    this.target = this.newRoot();
    this.send({ kind: 'targetMoved', at: this.now, sha: this.target });
  }

  private newRoot(): string {
    const c: Content = { root: `root${++this.roots}`, prs: [] };
    const sha = shaOf(c);
    this.commits.set(sha, c);
    return sha;
  }

  head(n: number): string {
    if (!this.heads.has(n)) this.heads.set(n, `h${n}.0`);
    return this.heads.get(n)!;
  }

  /** Applies one event; returns whether the engine accepted it. */
  send(ev: EngineEvent): boolean {
    const before = deepFreeze(this.snapshot);
    const d = decide(before, ev, this.ctx);
    if (!d.ok) {
      this.rejections.push(`${ev.kind}:${d.rejection.code}`);
      return false;
    }
    this.checkIdentity(before, d.snapshot);
    this.snapshot = d.snapshot;
    if (quarantinedStatusesOf(d.snapshot).length > 0) this.quarantinedDecisions++;
    for (const e of d.effects) this.execute(e);
    this.checkNoneLost();
    return true;
  }

  private checkIdentity(before: QueueSnapshot, after: QueueSnapshot): void {
    const old = new Map(before.entries.map((e) => [e.prNumber, e]));
    for (const e of after.entries) {
      const o = old.get(e.prNumber);
      if (o && o !== e && JSON.stringify(o) === JSON.stringify(e))
        this.violations.push(`entry ${e.prNumber} replaced without change`);
    }
  }

  private checkNoneLost(): void {
    for (const n of this.submitted) {
      if (!this.snapshot.entries.some((e) => e.prNumber === n)) this.violations.push(`PR ${n} lost`);
    }
  }

  private execute(e: Effect): void {
    switch (e.kind) {
      case 'createTestBranch': {
        const base = this.commits.get(e.baseSha);
        if (!base) {
          this.violations.push(`test branch ${e.runId} built on unknown sha ${e.baseSha}`);
          return;
        }
        const dropped = this.snapshot.runs.find((r) => r.id === e.runId && r.status === 'cancelled');
        if (dropped) this.violations.push(`test branch asked for run ${e.runId}, which the same decision dropped`);
        const content: Content = { root: base.root, prs: [...base.prs, ...e.prs] };
        const sha = shaOf(content);
        this.commits.set(sha, content);
        this.checkParallelRun(e.runId);
        this.pending.push({ type: 'built', runId: e.runId, sha });
        return;
      }
      case 'startCi':
      case 'retryCi':
        this.ciRuns++;
        if (e.kind === 'retryCi') this.ciRetries++;
        this.pending.push({ type: 'ci', runId: e.runId, sha: e.sha });
        return;
      case 'cancelCi':
        this.pending = this.pending.filter((r) => !(r.type === 'ci' && r.runId === e.runId));
        return;
      case 'merge':
        this.pending.push({ type: 'merge', effect: e });
        return;
      case 'scheduleWakeup':
        this.pending.push({ type: 'wake', at: e.at });
        return;
      case 'deleteTestBranch':
      case 'emitEvent':
        return;
    }
  }

  /** (5) Everything a parallel-mode run includes overlaps its group through PRs of the run. */
  private checkParallelRun(runId: string): void {
    if (this.snapshot.config.mode !== 'parallel') return;
    const run = this.snapshot.runs.find((r) => r.id === runId);
    if (!run) return;
    const targetsOf = (n: number): ImpactedTargets =>
      this.snapshot.entries.find((x) => x.prNumber === n)?.impactedTargets ?? 'ALL';
    const overlap = (a: ImpactedTargets, b: ImpactedTargets): boolean =>
      a.length > 0 &&
      b.length > 0 &&
      (a === 'ALL' || b === 'ALL' || a.some((t) => (b as readonly string[]).includes(t)));
    // Reachability through every PR still in the queue: a run may include an ancestor of an
    // ancestor that it left out itself (one known to be failing).
    const live = this.snapshot.entries
      .filter((e) => !['MERGED', 'FAILED', 'CANCELLED', 'NOT_READY'].includes(e.state))
      .map((e) => e.prNumber);
    const reached = new Set(run.prNumbers);
    let grew = true;
    while (grew) {
      grew = false;
      for (const n of live) {
        if (reached.has(n)) continue;
        if ([...reached].some((m) => overlap(targetsOf(n), targetsOf(m)))) {
          reached.add(n);
          grew = true;
        }
      }
    }
    for (const n of run.dependentPrs) {
      if (!reached.has(n)) this.violations.push(`run ${runId} of ${run.prNumbers} includes non-overlapping PR ${n}`);
    }
  }

  /**
   * Delivers the i-th pending report other than a wakeup (modulo their number); a wakeup only when
   * `i` is a multiple of 10 or nothing else is pending, since a wakeup jumps the clock forward.
   */
  deliver(i: number, flake = false): void {
    if (this.pending.length === 0) return;
    const others = this.pending.filter((r) => r.type !== 'wake');
    const pool = others.length > 0 && i % 10 !== 0 ? others : this.pending;
    const report = pool[i % pool.length];
    this.pending.splice(this.pending.indexOf(report), 1);
    this.now += 1_000;
    switch (report.type) {
      case 'built':
        if (flake)
          this.send({
            kind: 'testBranchFailed',
            at: this.now,
            runId: report.runId,
            reason: 'START_TEST_RUN_MERGE_CONFLICT',
          });
        else this.send({ kind: 'testBranchCreated', at: this.now, runId: report.runId, sha: report.sha });
        return;
      case 'ci': {
        const content = this.commits.get(report.sha)!;
        const badCode = content.prs.some((p) => this.bad.has(p.number));
        let ok = !flake && !badCode;
        const cancelled = flake && this.cancels && this.flakes++ % 2 === 0;
        const retried = this.snapshot.runs.find((r) => r.id === report.runId);
        let failedStatuses: string[] | undefined;
        if (this.namedStatuses && !cancelled) {
          const required = ['build', 'lint'];
          if (retried?.status === 'in_progress' && retried.requiredStatuses === undefined)
            this.send({ kind: 'ciStarted', at: this.now, runId: report.runId, requiredStatuses: required });
          const failing = [...(badCode ? ['build'] : []), ...(flake ? ['lint'] : [])];
          const gating = gatingStatuses(required, quarantinedStatusesOf(this.snapshot));
          ok = !failing.some((s) => gating.includes(s));
          if (failing.length > 0) failedStatuses = failing;
        }
        const accepted = this.send({
          kind: 'ciResult',
          at: this.now,
          runId: report.runId,
          outcome: ok ? 'success' : cancelled ? 'cancelled' : 'failure',
          ...(failedStatuses ? { failedStatuses } : {}),
        });
        if (accepted && ok) this.passedShas.add(report.sha);
        if (accepted && ok && retried && (retried.failedRetries ?? 0) + (retried.cancelledRetries ?? 0) > 0)
          this.flakyPasses++;
        return;
      }
      case 'merge':
        if (flake) this.failMergeHalfway(report.effect);
        else this.applyMerge(report.effect);
        return;
      case 'wake':
        this.now = Math.max(this.now, report.at);
        this.send({ kind: 'tick', at: this.now });
        return;
    }
  }

  private applyMerge(m: Extract<Effect, { kind: 'merge' }>): void {
    const prNumbers = m.prs.map((p) => p.number);
    if (this.target !== m.expectedTargetSha) {
      this.expectAccepted({
        kind: 'mergeFailed',
        at: this.now,
        runId: m.runId,
        prNumbers,
        reason: 'TARGET_MOVED',
        newTargetSha: this.target,
      });
      return;
    }
    if (m.prs.some((p) => this.heads.get(p.number) !== p.headSha)) {
      this.expectAccepted({
        kind: 'mergeFailed',
        at: this.now,
        runId: m.runId,
        prNumbers,
        reason: 'PR_UPDATED_AT_MERGE_TIME',
        mergedPrNumbers: [],
      });
      return;
    }
    const from = this.commits.get(this.target)!;
    const to = this.commits.get(m.testSha);
    const extends_ =
      to !== undefined &&
      to.root === from.root &&
      to.prs.length === from.prs.length + m.prs.length &&
      from.prs.every((p, i) => p.number === to.prs[i].number && p.headSha === to.prs[i].headSha) &&
      m.prs.every(
        (p, i) => p.number === to.prs[from.prs.length + i].number && p.headSha === to.prs[from.prs.length + i].headSha,
      );
    if (!extends_)
      this.violations.push(
        `merge of run ${m.runId} (${prNumbers}) from ${this.target} to ${m.testSha} is not the target plus exactly its PRs`,
      );
    if (this.snapshot.config.mode === 'single' && !this.passedShas.has(m.testSha)) {
      this.violations.push(`merge of run ${m.runId} to ${m.testSha}, a commit no succeeded run tested`);
    }
    for (const n of prNumbers) {
      if (this.bad.has(n)) this.violations.push(`bad PR ${n} merged by run ${m.runId}`);
      if (this.mergedPrs.has(n)) this.violations.push(`PR ${n} merged twice`);
      this.mergedPrs.add(n);
    }
    this.target = m.testSha;
    this.expectAccepted({ kind: 'merged', at: this.now, runId: m.runId, prNumbers, newTargetSha: m.testSha });
  }

  /** The forge merged the first half of the PRs, then refused the next one. */
  private failMergeHalfway(m: Extract<Effect, { kind: 'merge' }>): void {
    const prNumbers = m.prs.map((p) => p.number);
    if (this.target !== m.expectedTargetSha) {
      this.expectAccepted({
        kind: 'mergeFailed',
        at: this.now,
        runId: m.runId,
        prNumbers,
        reason: 'TARGET_MOVED',
        newTargetSha: this.target,
      });
      return;
    }
    const done = m.prs.slice(0, Math.floor(m.prs.length / 2));
    const from = this.commits.get(this.target)!;
    const content: Content = { root: from.root, prs: [...from.prs, ...done] };
    const sha = shaOf(content);
    this.commits.set(sha, content);
    for (const p of done) {
      if (this.mergedPrs.has(p.number)) this.violations.push(`PR ${p.number} merged twice`);
      this.mergedPrs.add(p.number);
    }
    this.target = sha;
    this.expectAccepted({
      kind: 'mergeFailed',
      at: this.now,
      runId: m.runId,
      prNumbers,
      reason: 'MERGE_REFUSED',
      mergedPrNumbers: done.map((p) => p.number),
      newTargetSha: sha,
    });
  }

  private expectAccepted(ev: EngineEvent): void {
    if (!this.send(ev)) this.violations.push(`${ev.kind} for run ${'runId' in ev ? ev.runId : ''} was refused`);
  }

  // ------------------------------------------------------------ outside actions

  submit(n: number, opts: { priority?: number | string; noBatch?: boolean; ready?: boolean } = {}): void {
    if (this.mergedPrs.has(n)) return;
    this.now += 100;
    const accepted = this.send({
      kind: 'submit',
      at: this.now,
      entryId: `entry-${n}`,
      reason: 'API_REQUESTED',
      pr: {
        number: n,
        headSha: this.head(n),
        baseBranch: 'main',
        title: `PR ${n}`,
        author: 'dev',
        mergeability: opts.ready === false ? 'in_progress' : 'mergeable',
      },
      ...(opts.priority !== undefined ? { priority: opts.priority as never } : {}),
      ...(opts.noBatch !== undefined ? { noBatch: opts.noBatch } : {}),
    });
    if (accepted) this.submitted.add(n);
  }

  observe(n: number): void {
    this.now += 100;
    this.send({
      kind: 'prObserved',
      at: this.now,
      pr: {
        number: n,
        headSha: this.head(n),
        baseBranch: 'main',
        title: `PR ${n}`,
        author: 'dev',
        mergeability: 'mergeable',
      },
    });
  }

  pushPr(n: number): void {
    if (this.mergedPrs.has(n)) return;
    const [, v] = this.head(n).split('.');
    this.heads.set(n, `h${n}.${Number(v) + 1}`);
    this.observe(n);
  }

  pushTarget(): void {
    this.target = this.newRoot();
    this.now += 100;
    this.send({ kind: 'targetMoved', at: this.now, sha: this.target });
  }

  mergeOutside(n: number): void {
    const e = this.entry(n);
    if (!e || this.mergedPrs.has(n) || e.state === 'MERGED' || e.state === 'FAILED' || e.state === 'CANCELLED') return;
    this.now += 100;
    if (!this.send({ kind: 'prMergedOutside', at: this.now, prNumber: n })) return;
    this.mergedPrs.add(n);
    this.pushTarget();
  }

  uploadTargets(n: number, targets: ImpactedTargets): void {
    this.now += 100;
    this.send({ kind: 'impactedTargets', at: this.now, prNumber: n, headSha: this.head(n), targets });
  }

  entry(n: number): Entry | undefined {
    return this.snapshot.entries.find((e) => e.prNumber === n);
  }

  /**
   * Lets everything finish: queue running, every queued PR ready, every report delivered in order
   * with no flakes, in an order taken from `picks`. Returns false if the engine stopped making
   * progress with work left.
   */
  drain(targetsFor: (n: number) => ImpactedTargets = () => ['t'], picks: number[] = [1]): boolean {
    if (this.snapshot.state === 'PAUSED' || this.snapshot.state === 'DRAINING') {
      this.send({ kind: 'setState', at: this.now, state: 'RUNNING' });
    }
    for (const e of this.snapshot.entries) {
      if (e.state !== 'NOT_READY') continue;
      this.observe(e.prNumber);
      if (e.impactedTargets === null) this.uploadTargets(e.prNumber, targetsFor(e.prNumber));
    }
    for (let steps = 0; steps < 5_000; steps++) {
      const live = this.snapshot.entries.some((e) => !['MERGED', 'FAILED', 'CANCELLED'].includes(e.state));
      if (!live) return true;
      if (this.pending.length === 0) {
        if (this.snapshot.state === 'SWITCHING_MODES' || this.snapshot.entries.some((e) => e.state === 'NOT_READY')) {
          // The switch completed or admission waits on the mode: make the remaining ones ready again.
          if (this.snapshot.state !== 'RUNNING') return false;
          for (const e of this.snapshot.entries) {
            if (e.state === 'NOT_READY') {
              if (e.impactedTargets === null) this.uploadTargets(e.prNumber, targetsFor(e.prNumber));
              this.observe(e.prNumber);
            }
          }
          if (this.pending.length === 0) return false;
          continue;
        }
        return false;
      }
      this.deliver(picks[steps % picks.length] * 10 + 1);
    }
    return false;
  }
}
