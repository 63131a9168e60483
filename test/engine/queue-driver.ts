/**
 * A small driver for table tests: holds a snapshot, sends events with a fake clock and predictable
 * run ids (r1, r2, …), and keeps the effects of the last decision for assertions.
 */
import { expect } from 'vitest';
import {
  decide,
  newQueueSnapshot,
  type Effect,
  type EngineEvent,
  type Entry,
  type PrInfo,
  type QueueConfig,
  type QueueEventPayload,
  type QueueSnapshot,
  type Rejection,
  type TestRun,
} from '../../src/engine/index.js';

type EventInput = EngineEvent extends infer E
  ? E extends EngineEvent
    ? Omit<E, 'at'> & { at?: number }
    : never
  : never;

export function prInfo(n: number, over: Partial<PrInfo> = {}): PrInfo {
  return {
    number: n,
    headSha: `h${n}`,
    baseBranch: 'main',
    title: `PR ${n}`,
    author: 'dev',
    mergeability: 'mergeable',
    ...over,
  };
}

export class QueueDriver {
  snapshot: QueueSnapshot;
  now = 1_000;
  effects: Effect[] = [];
  private ids = 0;
  readonly ctx = { newId: () => `r${++this.ids}` };

  constructor(config: Partial<QueueConfig> = {}, targetSha: string | null = 'S0') {
    this.snapshot = newQueueSnapshot(
      { host: 'github.com', owner: 'acme', name: 'app' },
      'main',
      config,
      'greenline-merge',
    );
    if (targetSha) this.send({ kind: 'targetMoved', sha: targetSha });
  }

  /** Sends an event; fails the test if it is rejected. */
  send(ev: EventInput): Effect[] {
    const d = this.decideRaw(ev);
    if (!d.ok) throw new Error(`rejected ${ev.kind}: ${d.rejection.code} ${d.rejection.message}`);
    return this.effects;
  }

  /** Sends an event that must be rejected; the snapshot must stay the same. */
  reject(ev: EventInput): Rejection {
    const before = this.snapshot;
    const d = decide(before, { ...ev, at: ev.at ?? this.tick() } as EngineEvent, this.ctx);
    expect(d.ok).toBe(false);
    expect(this.snapshot).toBe(before);
    return (d as { rejection: Rejection }).rejection;
  }

  decideRaw(ev: EventInput) {
    const d = decide(this.snapshot, { ...ev, at: ev.at ?? this.tick() } as EngineEvent, this.ctx);
    if (d.ok) {
      this.snapshot = d.snapshot;
      this.effects = d.effects;
    }
    return d;
  }

  tick(ms = 1): number {
    this.now += ms;
    return this.now;
  }

  submit(
    n: number,
    over: { priority?: number | string | null; noBatch?: boolean; pr?: Partial<PrInfo>; forceEnqueued?: boolean } = {},
  ): Effect[] {
    return this.send({
      kind: 'submit',
      entryId: `entry-${n}`,
      pr: prInfo(n, over.pr),
      reason: 'API_REQUESTED',
      ...(over.priority !== undefined ? { priority: over.priority as never } : {}),
      ...(over.noBatch !== undefined ? { noBatch: over.noBatch } : {}),
      ...(over.forceEnqueued !== undefined ? { forceEnqueued: over.forceEnqueued } : {}),
    });
  }

  /** The forge built the run's test branch. */
  built(runId: string): Effect[] {
    return this.send({ kind: 'testBranchCreated', runId, sha: `t-${runId}` });
  }

  pass(runId: string): Effect[] {
    return this.send({ kind: 'ciResult', runId, outcome: 'success' });
  }

  fail(runId: string, reason?: 'TEST_RUN_REQUIRED_STATUS_FAILED' | 'TEST_RUN_TIMEOUT'): Effect[] {
    return this.send({ kind: 'ciResult', runId, outcome: 'failure', ...(reason ? { reason } : {}) });
  }

  /** Answers the merge effect of the last decision (or the given one) with success. */
  merged(merge = this.effect('merge')): Effect[] {
    return this.send({
      kind: 'merged',
      runId: merge.runId,
      prNumbers: merge.prs.map((p) => p.number),
      newTargetSha: `m-${merge.runId}`,
    });
  }

  entry(n: number): Entry {
    const e = this.snapshot.entries.find((x) => x.prNumber === n);
    if (!e) throw new Error(`no entry for PR ${n}`);
    return e;
  }

  state(n: number): string {
    return this.entry(n).state;
  }

  run(id: string): TestRun {
    const r = this.snapshot.runs.find((x) => x.id === id);
    if (!r) throw new Error(`no run ${id}`);
    return r;
  }

  /** The run an entry currently refers to. */
  runOf(n: number): TestRun {
    return this.run(this.entry(n).runId!);
  }

  effect<K extends Effect['kind']>(kind: K): Extract<Effect, { kind: K }> {
    const found = this.effects.filter((e) => e.kind === kind);
    expect(found.length, `expected one ${kind} effect in ${this.describe()}`).toBe(1);
    return found[0] as Extract<Effect, { kind: K }>;
  }

  effectsOf<K extends Effect['kind']>(kind: K): Extract<Effect, { kind: K }>[] {
    return this.effects.filter((e) => e.kind === kind) as Extract<Effect, { kind: K }>[];
  }

  /** Webhook-shaped events of the last decision. */
  events(): QueueEventPayload[] {
    return this.effectsOf('emitEvent').map((e) => e.event);
  }

  eventTypes(): string[] {
    return this.events().map((e) => `${e.type}:${e.prNumbers.join(',')}`);
  }

  describe(): string {
    return this.effects
      .map((e) => (e.kind === 'emitEvent' ? `${e.event.type}(${e.event.prNumbers})` : e.kind))
      .join(', ');
  }

  /** Submit a ready PR and build its test branch: it ends TESTING in its own run. Returns the run id. */
  startTesting(n: number): string {
    this.submit(n);
    const create = this.effect('createTestBranch');
    this.built(create.runId);
    return create.runId;
  }

  /** Last timeline item of an entry. */
  last(n: number) {
    const t = this.entry(n).timeline;
    return t[t.length - 1];
  }
}
