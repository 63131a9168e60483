/**
 * One serial executor per queue. Events for a queue are applied one at a time (an in-process promise
 * chain per queue id; on PostgreSQL also a row lock on the queue, so several instances never decide for
 * the same queue at once). Each event: load the snapshot, `decide`, and write the changed entries and
 * runs, the queue row, the transitions and the effects (outbox) in ONE transaction. A crash anywhere
 * before the commit leaves nothing half-written.
 *
 * Concurrent API requests for a queue (submit, cancel, restart) are decided together and committed in
 * one transaction (group commit): under load, one pass over the queue and one commit serve many.
 *
 * The last written snapshot is cached per queue together with the queue row's version; the database
 * stays the truth: a cached snapshot is used only while the row still has that version.
 */
import type { Kysely, Transaction } from 'kysely';
import type { Logger } from 'pino';
import { setImmediate } from 'node:timers/promises';
import { decide, decideAll, groupKey, type GroupableEvent } from '../../engine/index.js';
import type { Effect, EngineEvent, QueueSnapshot, Rejection } from '../../engine/types.js';
import { ServiceError, type ServiceErrorCode } from '../../lib/errors.js';
import { KeyedSerial } from '../../lib/keyed-serial.js';
import type { Database, NewTransition, QueueRow } from '../../store/database.js';
import { notifyEffects } from '../../store/effects.js';
import { findQueueVersion, lockQueue } from '../../store/queues.js';
import { findRepoById } from '../../store/repos.js';
import { recordAudit } from '../../audit/audit-log.js';
import { recordQueueDecisions, type AuditNote } from './queue-audit.js';
import { loadSnapshot, pruneSnapshot, withPreviousTrip, writeDecision } from './snapshot-io.js';

export type ApplyResult = { ok: true; snapshot: QueueSnapshot } | { ok: false; rejection: Rejection };

export interface ApplyOptions {
  /** Extra writes committed atomically with the decision (e.g. marking the effect that caused it done). */
  alsoInTransaction?: (trx: Transaction<Database>) => Promise<void>;
  /** The caller's change as the audit log records it, written with the decision when the event is applied. */
  audit?: AuditNote;
}

/**
 * An event, or a function of the current snapshot that returns one (null = nothing to do). It runs
 * inside the queue's transaction: any query it makes must use `trx`.
 */
export type EventSource =
  | EngineEvent
  | ((snapshot: QueueSnapshot, trx: Transaction<Database>) => EngineEvent | null | Promise<EngineEvent | null>);

interface GroupItem {
  event: GroupableEvent;
  audit: AuditNote | undefined;
  resolve: (result: ApplyResult) => void;
  reject: (err: unknown) => void;
}

interface OpenGroup {
  key: string;
  items: GroupItem[];
}

/** A committed decision, published once the transaction has committed. */
interface Committed {
  version: number;
  snapshot: QueueSnapshot;
  wroteEffects: boolean;
  transitions: NewTransition[];
}

export interface QueueExecutorDeps {
  db: Kysely<Database>;
  newId: () => string;
  logger?: Logger;
  /** Called after a commit that wrote effects (the effect runner's wake-up). */
  onEffects?: () => void;
  /** Called after each commit that changed a queue (the forge poller's wake-up of a queue that backed off). */
  onChange?: (queueId: string) => void;
}

export class QueueExecutor {
  private readonly chains = new KeyedSerial();
  private readonly cache = new Map<string, { version: number; snapshot: QueueSnapshot }>();
  /** Per queue, the group of events still taking members (see `enqueue`). */
  private readonly open = new Map<string, OpenGroup>();
  /** Listeners told after each commit that changed a queue (the dashboard's live stream). */
  private readonly watchers = new Map<string, Set<() => void>>();

  constructor(private readonly deps: QueueExecutorDeps) {}

  /** Runs `work` after every earlier piece of work of the same queue has finished. */
  serial<T>(queueId: string, work: () => Promise<T>): Promise<T> {
    return this.chains.run(queueId, work);
  }

  /** Applies one event to a queue. Rejections are returned, never thrown; store errors are thrown. */
  apply(queueId: string, source: EventSource, opts: ApplyOptions = {}): Promise<ApplyResult> {
    const key = typeof source === 'object' && !opts.alsoInTransaction ? groupKey(source) : null;
    if (key !== null) return this.enqueue(queueId, source as EngineEvent, key, opts.audit);
    this.open.delete(queueId);
    return this.serial(queueId, () => this.applyNow(queueId, source, opts));
  }

  /** Like `apply`, but a rejection becomes the matching ServiceError (for the service's callers). */
  async applyOrThrow(queueId: string, event: EngineEvent, opts: ApplyOptions = {}): Promise<QueueSnapshot> {
    const r = await this.apply(queueId, event, opts);
    if (!r.ok) throw rejectionToServiceError(r.rejection);
    return r.snapshot;
  }

  /**
   * The queue's current snapshot (non-terminal entries). `version`: the version of the queue row as
   * the caller has just read it, if it has; otherwise it is read here.
   */
  async read(queueId: string, version?: number): Promise<QueueSnapshot> {
    // The cached snapshot is the last committed state while the row still has its version: a read
    // needs no turn and no transaction then.
    const cached = this.cache.get(queueId);
    if (cached && (version ?? (await findQueueVersion(this.deps.db, queueId))) === cached.version)
      return cached.snapshot;
    return this.serial(queueId, () =>
      this.deps.db.transaction().execute(async (trx) => (await this.current(trx, queueId)).snapshot),
    );
  }

  /** Calls `listener` after every committed change of the queue; returns the function that stops it. */
  watch(queueId: string, listener: () => void): () => void {
    let set = this.watchers.get(queueId);
    if (!set) {
      set = new Set();
      this.watchers.set(queueId, set);
    }
    set.add(listener);
    return () => {
      set.delete(listener);
      if (set.size === 0 && this.watchers.get(queueId) === set) this.watchers.delete(queueId);
    };
  }

  /** Forgets the cached snapshot (e.g. after the queue was deleted). */
  forget(queueId: string): void {
    this.cache.delete(queueId);
  }

  private async current(
    trx: Transaction<Database>,
    queueId: string,
  ): Promise<{ row: QueueRow; snapshot: QueueSnapshot }> {
    const row = await lockQueue(trx, queueId);
    if (!row) throw new ServiceError('NOT_FOUND', `The queue ${queueId} no longer exists`);
    const cached = this.cache.get(queueId);
    if (cached && cached.version === row.version) return { row, snapshot: cached.snapshot };
    const repo = await findRepoById(trx, row.repo_id);
    if (!repo) throw new ServiceError('NOT_FOUND', `The repository of queue ${queueId} no longer exists`);
    const snapshot = await loadSnapshot(trx, row, repo);
    this.cache.set(queueId, { version: row.version, snapshot });
    return { row, snapshot };
  }

  /**
   * Groupable events (`groupKey`) that arrive while the queue is busy, or in the same turn of the event
   * loop, are decided together and committed in one transaction (group commit); each caller still gets
   * its own result. Anything else queued in between closes the open group, so order is kept.
   */
  private enqueue(
    queueId: string,
    event: EngineEvent,
    key: string,
    audit: AuditNote | undefined,
  ): Promise<ApplyResult> {
    let group = this.open.get(queueId);
    if (!group || group.key !== key) {
      const fresh: OpenGroup = { key, items: [] };
      this.open.set(queueId, fresh);
      void this.serial(queueId, async () => {
        // Let the requests that are already readable join before the group closes.
        await setImmediate();
        if (this.open.get(queueId) === fresh) this.open.delete(queueId);
        await this.applyGroup(queueId, fresh.items);
      });
      group = fresh;
    }
    const items = group.items;
    return new Promise((resolve, reject) => items.push({ event: event as GroupableEvent, audit, resolve, reject }));
  }

  private async applyGroup(queueId: string, items: GroupItem[]): Promise<void> {
    const done: Committed[] = [];
    try {
      const results = await this.deps.db.transaction().execute(async (trx): Promise<ApplyResult[]> => {
        const { row, snapshot: current } = await this.current(trx, queueId);
        let before = current;
        for (const { event } of items) {
          if (event.kind === 'submit') before = await withPreviousTrip(trx, queueId, before, event.pr.number);
        }
        const group = decideAll(
          before,
          items.map((i) => i.event),
          { newId: this.deps.newId },
        );
        group.rejections.forEach((rejection, i) => {
          if (rejection) this.deps.logger?.debug({ queueId, event: items[i].event.kind, rejection }, 'event rejected');
        });
        const at = Math.max(...items.map((i) => i.event.at).filter(Number.isFinite));
        const snapshot =
          group.snapshot === before
            ? current
            : await this.write(trx, row, before, group.snapshot, group.effects, at, done, null);
        for (const [i, item] of items.entries())
          if (!group.rejections[i]) await recordNote(trx, item.audit, before, group.snapshot);
        return group.rejections.map((rejection) => (rejection ? { ok: false, rejection } : { ok: true, snapshot }));
      });
      this.published(queueId, done);
      items.forEach((item, i) => {
        item.resolve(results[i]);
      });
    } catch (err) {
      this.cache.delete(queueId);
      for (const item of items) item.reject(err);
    }
  }

  private async applyNow(queueId: string, source: EventSource, opts: ApplyOptions): Promise<ApplyResult> {
    const done: Committed[] = [];
    const result = await this.deps.db
      .transaction()
      .execute(async (trx): Promise<ApplyResult> => {
        const { row, snapshot: current } = await this.current(trx, queueId);
        const event = typeof source === 'function' ? await source(current, trx) : source;
        if (!event) {
          await opts.alsoInTransaction?.(trx);
          return { ok: true, snapshot: current };
        }
        const before =
          event.kind === 'submit' ? await withPreviousTrip(trx, queueId, current, event.pr.number) : current;
        const decision = decide(before, event, { newId: this.deps.newId });
        if (!decision.ok) {
          this.deps.logger?.debug({ queueId, event: event.kind, rejection: decision.rejection }, 'event rejected');
          return decision;
        }
        const snapshot = await this.write(
          trx,
          row,
          before,
          decision.snapshot,
          decision.effects,
          event.at,
          done,
          event.kind,
        );
        await recordNote(trx, opts.audit, before, decision.snapshot);
        await opts.alsoInTransaction?.(trx);
        return { ok: true, snapshot };
      })
      .catch((err: unknown) => {
        this.cache.delete(queueId);
        throw err;
      });
    this.published(queueId, done);
    return result;
  }

  /** Writes a decision in the queue's transaction; `done` collects what to publish after the commit. */
  private async write(
    trx: Transaction<Database>,
    row: QueueRow,
    before: QueueSnapshot,
    after: QueueSnapshot,
    effects: Effect[],
    at: number,
    done: Committed[],
    cause: EngineEvent['kind'] | null,
  ): Promise<QueueSnapshot> {
    const { version, transitions } = await writeDecision(trx, row, before, after, effects, at);
    await recordQueueDecisions(trx, row, before, after, transitions, at, cause);
    // The queue's holder may be another instance: on PostgreSQL it hears of the effects at commit.
    if (effects.length > 0) await notifyEffects(trx, row.id);
    const snapshot = pruneSnapshot(after);
    done.push({ version, snapshot, wroteEffects: effects.length > 0, transitions });
    return snapshot;
  }

  /** After the commit: the cache, the transition log, the effect runner's wake-up and the watchers. */
  private published(queueId: string, done: Committed[]): void {
    for (const { version, snapshot, wroteEffects, transitions } of done) {
      this.cache.set(queueId, { version, snapshot });
      for (const t of transitions) {
        this.deps.logger?.info(
          {
            queue: `${snapshot.repo.owner}/${snapshot.repo.name}:${snapshot.targetBranch}`,
            pr: t.pr_number,
            from: t.from_state,
            to: t.to_state,
            reason: t.reason,
            runId: t.run_id ?? undefined,
          },
          'transition',
        );
      }
      if (wroteEffects) this.deps.onEffects?.();
    }
    if (done.length === 0) return;
    this.deps.onChange?.(queueId);
    for (const listener of this.watchers.get(queueId) ?? []) listener();
  }
}

/** Writes the caller's change to the audit log, as its note describes it. */
async function recordNote(
  trx: Transaction<Database>,
  note: AuditNote | undefined,
  before: QueueSnapshot,
  after: QueueSnapshot,
): Promise<void> {
  const entry = note?.(before, after);
  if (entry) await recordAudit(trx, entry);
}

/** The service error of each engine refusal: the same cause under the domain's code. */
const REFUSALS: Record<Rejection['code'], ServiceErrorCode> = {
  PR_NOT_IN_QUEUE: 'PR_NOT_IN_QUEUE',
  RESTART_NOT_ALLOWED: 'RESTART_NOT_ALLOWED',
  PR_ALREADY_MERGED: 'PR_ALREADY_MERGED',
  SWITCHING_MODES: 'SWITCHING_MODES',
  PR_BEING_MERGED: 'PR_BEING_MERGED',
  INVALID_CONFIG: 'INVALID_CONFIG',
  // The service sends no run events: from it, these would be malformed events too.
  RUN_NOT_FOUND: 'INVALID_EVENT',
  STALE_RUN_EVENT: 'INVALID_EVENT',
  INVALID_EVENT: 'INVALID_EVENT',
};

export function rejectionToServiceError(r: Rejection): ServiceError {
  return new ServiceError(REFUSALS[r.code], r.message);
}
