/**
 * The working copy one `decide` call edits. The input snapshot is never mutated: entries and runs
 * are replaced by new objects when they change, so unchanged ones keep their identity (the store
 * writes only what changed, comparing identity).
 */
import { readInternal, type EngineInternal } from './working-state.js';
import {
  isTerminal,
  type DecideContext,
  type Effect,
  type Entry,
  type QueueConfig,
  type QueueSnapshot,
  type QueueState,
  type TestRun,
} from './types.js';

/**
 * Entry positions by PR number, per entries array of a snapshot a decision returned (the input of the
 * next one). Snapshots are never mutated, so an array's index stays right; a draft adds to it only
 * the entries it appends.
 */
const ENTRY_INDEXES = new WeakMap<readonly Entry[], ReadonlyMap<number, number>>();

function entryIndexOf(entries: readonly Entry[]): ReadonlyMap<number, number> {
  let index = ENTRY_INDEXES.get(entries);
  if (!index) {
    const built = new Map<number, number>();
    entries.forEach((e, i) => built.set(e.prNumber, i));
    ENTRY_INDEXES.set(entries, (index = built));
  }
  return index;
}

const admitted = (e: Entry): boolean => e.state !== 'NOT_READY' && !isTerminal(e.state);

function shapeChanged(a: Entry, b: Entry): boolean {
  return (
    admitted(a) !== admitted(b) ||
    a.impactedTargets !== b.impactedTargets ||
    a.priorityValue !== b.priorityValue ||
    a.admittedAt !== b.admittedAt ||
    a.submittedAt !== b.submittedAt
  );
}

export class Draft {
  state: QueueState;
  config: QueueConfig;
  targetSha: string | null;
  readonly internal: EngineInternal;
  readonly effects: Effect[] = [];
  /** Called with the output entries when the decision is final (topology.ts keeps its index). */
  onFinish: ((entries: readonly Entry[]) => void) | null = null;
  /** Bumped on every change that can affect ordering, validity or scheduling. */
  version = 0;
  /**
   * Bumped only when the queue's shape changes: which entries are admitted, their order (priority,
   * admission, pinned positions) or their impacted targets. Topology is rebuilt only then.
   */
  structure = 0;
  /** Bumped when admission, priority keys or targets change (reordering the pinned part does not). */
  membership = 0;
  /** Bumped when some entry's impacted targets change. */
  targets = 0;
  /** Caches of topology.ts, keyed by the counters above. */
  readonly topologyCache: {
    structure: number;
    topology: unknown;
    membership: number;
    sorted: Entry[] | null;
    targets: number;
    index: unknown;
  } = { structure: -1, topology: null, membership: -1, sorted: null, targets: -1, index: null };
  /** Entries added or whose sort keys changed since topology.ts last sorted (it clears this). */
  readonly resortPending = new Set<number>();

  /** PR numbers of the entries this decision put (added or replaced). */
  readonly changedEntries = new Set<number>();

  private readonly entries: Entry[];
  private readonly runs: TestRun[];
  /** Positions of the input's entries; `addedIndex`: of the entries this decision appended. */
  private readonly baseIndex: ReadonlyMap<number, number>;
  private readonly addedIndex = new Map<number, number>();
  private readonly runIndex = new Map<string, number>();
  private readonly effectKeys = new Set<string>();

  /** `at`: the time of the event being applied (decideAll moves it forward event by event). */
  constructor(
    readonly base: QueueSnapshot,
    public at: number,
    readonly ctx: DecideContext,
  ) {
    this.state = base.state;
    this.config = base.config;
    this.targetSha = base.targetSha;
    this.internal = readInternal(base);
    this.entries = [...base.entries];
    this.runs = [...base.runs];
    this.baseIndex = entryIndexOf(base.entries);
    this.runs.forEach((r, i) => this.runIndex.set(r.id, i));
  }

  entry(prNumber: number): Entry | undefined {
    const i = this.baseIndex.get(prNumber) ?? this.addedIndex.get(prNumber);
    return i === undefined ? undefined : this.entries[i];
  }

  /** The PR's entry in the input snapshot, if it had one. */
  baseEntry(prNumber: number): Entry | undefined {
    const i = this.baseIndex.get(prNumber);
    return i === undefined ? undefined : this.base.entries[i];
  }

  putEntry(entry: Entry): void {
    const i = this.baseIndex.get(entry.prNumber) ?? this.addedIndex.get(entry.prNumber);
    this.changedEntries.add(entry.prNumber);
    if (i === undefined) {
      this.addedIndex.set(entry.prNumber, this.entries.length);
      this.entries.push(entry);
      this.structure++;
      this.membership++;
      this.resortPending.add(entry.prNumber);
    } else {
      if (shapeChanged(this.entries[i], entry)) {
        this.structure++;
        this.membership++;
        this.resortPending.add(entry.prNumber);
      }
      if (this.entries[i].impactedTargets !== entry.impactedTargets) this.targets++;
      this.entries[i] = entry;
    }
    this.version++;
  }

  /** The pinned order (`internal.order`) was changed. */
  reordered(): void {
    this.structure++;
    this.version++;
  }

  /** Something every cache depends on changed (the mode). */
  reshaped(): void {
    this.membership++;
    this.targets++;
    this.reordered();
  }

  allEntries(): readonly Entry[] {
    return this.entries;
  }

  run(id: string | null): TestRun | undefined {
    if (id === null) return undefined;
    const i = this.runIndex.get(id);
    return i === undefined ? undefined : this.runs[i];
  }

  putRun(run: TestRun): void {
    const i = this.runIndex.get(run.id);
    if (i === undefined) {
      this.runIndex.set(run.id, this.runs.length);
      this.runs.push(run);
    } else {
      this.runs[i] = run;
    }
    this.version++;
  }

  allRuns(): readonly TestRun[] {
    return this.runs;
  }

  /** Adds an effect once per key within this decision. */
  emit(effect: Effect): void {
    if (this.effectKeys.has(effect.key)) return;
    this.effectKeys.add(effect.key);
    this.effects.push(effect);
  }

  /** Takes back the effects about a run that this decision created and then dropped. */
  withdraw(runId: string): void {
    const kept = this.effects.filter(
      (e) => !((e.kind === 'createTestBranch' || e.kind === 'cancelCi') && e.runId === runId),
    );
    this.effects.splice(0, this.effects.length, ...kept);
  }

  touch(): void {
    this.version++;
  }

  finish(): QueueSnapshot {
    this.onFinish?.(this.entries);
    if (this.addedIndex.size === 0) ENTRY_INDEXES.set(this.entries, this.baseIndex);
    return {
      ...this.base,
      state: this.state,
      config: this.config,
      targetSha: this.targetSha,
      entries: this.entries,
      runs: this.runs,
      internal: { ...this.internal },
    };
  }
}
