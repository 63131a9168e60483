/**
 * The working copy one `decide` call edits. The input snapshot is never mutated: entries and runs
 * are replaced by new objects when they change, so unchanged ones keep their identity (the store
 * writes only what changed, comparing identity).
 */
import { readInternal, type EngineInternal } from './internal.js';
import type {
  DecideContext, Effect, Entry, QueueConfig, QueueSnapshot, QueueState, TestRun,
} from './types.js';

export class Draft {
  state: QueueState;
  config: QueueConfig;
  targetSha: string | null;
  readonly internal: EngineInternal;
  readonly effects: Effect[] = [];
  /** Bumped on every change that can affect ordering, validity or scheduling. */
  version = 0;

  private readonly entries: Entry[];
  private readonly runs: TestRun[];
  private readonly entryIndex = new Map<number, number>();
  private readonly runIndex = new Map<string, number>();
  private readonly effectKeys = new Set<string>();

  constructor(readonly base: QueueSnapshot, readonly at: number, readonly ctx: DecideContext) {
    this.state = base.state;
    this.config = base.config;
    this.targetSha = base.targetSha;
    this.internal = readInternal(base);
    this.entries = [...base.entries];
    this.runs = [...base.runs];
    this.entries.forEach((e, i) => this.entryIndex.set(e.prNumber, i));
    this.runs.forEach((r, i) => this.runIndex.set(r.id, i));
  }

  entry(prNumber: number): Entry | undefined {
    const i = this.entryIndex.get(prNumber);
    return i === undefined ? undefined : this.entries[i];
  }

  putEntry(entry: Entry): void {
    const i = this.entryIndex.get(entry.prNumber);
    if (i === undefined) {
      this.entryIndex.set(entry.prNumber, this.entries.length);
      this.entries.push(entry);
    } else {
      this.entries[i] = entry;
    }
    this.version++;
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

  touch(): void {
    this.version++;
  }

  finish(): QueueSnapshot {
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
