/**
 * Who waits on whom. Single mode is one line: an entry waits on every admitted entry ahead of it.
 * Parallel mode waits only on graph ancestors (parallel-graph.ts). Everything else in the engine
 * asks this one question through `Topology`, so both modes share one scheduling, failure and merge
 * logic.
 */
import type { Draft } from './draft.js';
import { admittedOrder } from './ordering.js';
import { TargetGraph } from './parallel-graph.js';
import type { Entry } from './types.js';

export class Topology {
  readonly order: Entry[];
  private readonly pos = new Map<number, number>();
  private graph: TargetGraph | null = null;

  constructor(private readonly parallel: boolean, order: Entry[]) {
    this.order = order;
    order.forEach((e, i) => this.pos.set(e.prNumber, i));
  }

  static of(d: Draft): Topology {
    const order = admittedOrder(d.allEntries(), d.internal.order, (n) => d.entry(n));
    return new Topology(d.config.mode === 'parallel', order);
  }

  position(prNumber: number): number {
    return this.pos.get(prNumber) ?? -1;
  }

  /** Admitted entries `prNumber` waits on, in queue order (not including itself). */
  ancestors(prNumber: number): Entry[] {
    const i = this.position(prNumber);
    if (i < 0) return [];
    if (!this.parallel) return this.order.slice(0, i);
    return this.targetGraph().ancestors(i).map((j) => this.order[j]);
  }

  /** Admitted entries waiting on `prNumber` within `levels` levels of groups, in queue order. */
  successors(prNumber: number, levels: number, groupOf: (e: Entry) => string): Entry[] {
    const i = this.position(prNumber);
    if (i < 0 || levels <= 0) return [];
    if (this.parallel) return this.targetGraph().descendants(i, levels).map((j) => this.order[j]);
    const own = groupOf(this.order[i]);
    const seen = new Set<string>();
    const out: Entry[] = [];
    for (let j = i + 1; j < this.order.length; j++) {
      const g = groupOf(this.order[j]);
      if (g === own) continue;
      if (!seen.has(g)) {
        if (seen.size === levels) break;
        seen.add(g);
      }
      out.push(this.order[j]);
    }
    return out;
  }

  private targetGraph(): TargetGraph {
    this.graph ??= new TargetGraph(this.order);
    return this.graph;
  }
}
