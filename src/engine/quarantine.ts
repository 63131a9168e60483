/**
 * Flaky is a property of a check (greenline extensions, all off by default):
 *
 * - Per required status (check name) the queue counts its results and its flaky passes: a run whose
 *   status failed and that then passed when CI was run again on the same commit (`ciRetries`;
 *   TEST_RUN_PASSED_AFTER_RETRY). Each status keeps its last STATUS_RESULTS_KEPT results, 1 for a
 *   flaky one, 0 for a clean pass or a failure that held on retry: its flaky rate is their mean.
 * - `quarantinedStatuses`: required statuses that no longer gate. Their failure neither fails a run
 *   nor blocks its merge (app/executor/ci-outcome.ts leaves them out of the run's outcome); it is
 *   still reported and counted. While quarantined a status cannot be retried (its failure decides
 *   nothing), so a failure of it on a run that passed counts as a flaky result: evidence that it
 *   still fails where the code is good.
 * - `autoQuarantine: "on"`: a status whose flaky rate over at least `autoQuarantineMinResults` recent
 *   results reaches `autoQuarantineThreshold` is quarantined; its window then starts afresh, and the
 *   quarantine is lifted once at least `autoQuarantineMinResults` newer results show a rate under half
 *   the threshold. Turning the mode off lifts every automatic quarantine.
 * - At least one status keeps gating: the mode never quarantines the last known required status of
 *   the queue that is not quarantined (statuses quarantined at once are taken most flaky first), and
 *   a run whose required statuses are all quarantined is decided by all of them (`gatingStatuses`).
 *
 * Each quarantine and lift, manual or automatic, is announced once (`queue.status_quarantined`,
 * `queue.status_quarantine_lifted`, with the status and why in words).
 */
import type { Draft } from './draft.js';
import { eventPayload } from './transitions.js';
import type { QueueConfig, QueueEventPayload, QueueSnapshot, TestRun } from './types.js';
import { readInternal, type AutoQuarantine, type StatusStats } from './working-state.js';

/** How many recent results of a status its flaky rate is measured over. */
export const STATUS_RESULTS_KEPT = 50;
export const DEFAULT_AUTO_QUARANTINE_THRESHOLD = 0.1;
export const DEFAULT_AUTO_QUARANTINE_MIN_RESULTS = 20;

const thresholdOf = (c: QueueConfig): number => c.autoQuarantineThreshold ?? DEFAULT_AUTO_QUARANTINE_THRESHOLD;
const minResultsOf = (c: QueueConfig): number => c.autoQuarantineMinResults ?? DEFAULT_AUTO_QUARANTINE_MIN_RESULTS;
const rateOf = (recent: readonly number[]): number =>
  recent.length === 0 ? 0 : recent.reduce((a, b) => a + b, 0) / recent.length;
const pct = (x: number): string => `${Math.round(x * 1000) / 10}%`;

/** The statuses quarantined now: the setting's, then the automatic ones. */
export function quarantinedNow(config: QueueConfig, auto: Readonly<Record<string, AutoQuarantine>>): string[] {
  const manual = config.quarantinedStatuses ?? [];
  return [...new Set([...manual, ...Object.keys(auto).sort()])];
}

/**
 * The statuses that decide a run whose required statuses are `required`: those not quarantined, or
 * all of them when every one is quarantined (at least one status keeps gating).
 */
export function gatingStatuses(required: readonly string[], quarantined: readonly string[]): string[] {
  const q = new Set(quarantined);
  const gating = required.filter((s) => !q.has(s));
  return gating.length > 0 ? gating : [...required];
}

/** Remembers the required statuses that failed in an attempt of `run` that will be retried or fail it. */
export function noteFailedStatuses(run: TestRun, failed: readonly string[] | undefined): TestRun {
  if (!failed || failed.length === 0) return run;
  const all = [...new Set([...(run.failedStatuses ?? []), ...failed])];
  return { ...run, failedStatuses: all };
}

function push(stats: StatusStats, flaky: 0 | 1): void {
  stats.results++;
  stats.recent.push(flaky);
  if (stats.recent.length > STATUS_RESULTS_KEPT) stats.recent.splice(0, stats.recent.length - STATUS_RESULTS_KEPT);
}

function statsOf(d: Draft, status: string): StatusStats {
  let s = d.internal.statusStats[status];
  if (!s) {
    s = { results: 0, flakyPasses: 0, ignoredFailures: 0, recent: [] };
    d.internal.statusStats[status] = s;
  }
  return s;
}

/**
 * Counts a concluded run's results per required status. Passed: a status that failed in an earlier
 * attempt is a flaky pass; one that failed now but did not gate (quarantined) is an ignored failure
 * (flaky too); the others are clean. Failed: each gating status that failed is a failure that held.
 * Runs whose required statuses are not known (no `ciStarted`) count nothing.
 */
export function countStatusResults(
  d: Draft,
  run: TestRun,
  outcome: 'passed' | 'failed',
  failedNow: readonly string[] = [],
): void {
  const required = run.requiredStatuses ?? [];
  if (required.length === 0) return;
  const before = new Set(run.failedStatuses ?? []);
  const now = new Set(failedNow);
  if (outcome === 'passed') {
    for (const status of required) {
      const s = statsOf(d, status);
      if (before.has(status)) {
        s.flakyPasses++;
        push(s, 1);
      } else if (now.has(status)) {
        s.ignoredFailures++;
        push(s, 1);
      } else push(s, 0);
    }
  } else {
    const gating = new Set(gatingStatuses(required, quarantinedNow(d.config, d.internal.autoQuarantined)));
    for (const status of required) if (now.has(status) && gating.has(status)) push(statsOf(d, status), 0);
  }
}

/** Quarantines and lifts what the evidence says (automatic mode), then announces what changed. */
export function reviewQuarantine(d: Draft): void {
  const auto = d.internal.autoQuarantined;
  const idle =
    d.config.autoQuarantine !== 'on' &&
    (d.config.quarantinedStatuses ?? []).length === 0 &&
    d.internal.quarantineAnnounced.length === 0 &&
    Object.keys(auto).length === 0;
  if (idle) return;
  const manual = new Set(d.config.quarantinedStatuses ?? []);
  if (d.config.autoQuarantine === 'on') {
    const threshold = thresholdOf(d.config);
    const min = minResultsOf(d.config);
    for (const status of Object.keys(auto)) {
      const s = d.internal.statusStats[status];
      const recent = s?.recent ?? [];
      if (recent.length >= min && rateOf(recent) < threshold / 2) {
        delete auto[status];
        const flaky = recent.reduce((a, b) => a + b, 0);
        d.internal.quarantineLifts[status] =
          `flaky in ${flaky} of its ${recent.length} results since it was quarantined (${pct(rateOf(recent))}), ` +
          `under half the threshold of ${pct(threshold)}`;
      }
    }
    const known = new Set([...Object.keys(d.internal.statusStats), ...(d.config.requiredStatuses ?? [])]);
    const candidates = Object.entries(d.internal.statusStats)
      .filter(([status]) => !manual.has(status) && !auto[status])
      .filter(([, s]) => s.recent.length >= min && rateOf(s.recent) >= threshold)
      .sort(([a, x], [b, y]) => rateOf(y.recent) - rateOf(x.recent) || (a < b ? -1 : 1));
    for (const [status, s] of candidates) {
      const quarantined = new Set([...manual, ...Object.keys(auto)]);
      const stillGating = [...known].filter((k) => !quarantined.has(k) && k !== status);
      if (stillGating.length === 0) break;
      const flaky = s.recent.reduce((a, b) => a + b, 0);
      auto[status] = {
        since: d.at,
        flaky,
        results: s.recent.length,
        reason:
          `flaky in ${flaky} of its last ${s.recent.length} results (${pct(rateOf(s.recent))}), ` +
          `at or over the threshold of ${pct(threshold)}`,
      };
      s.recent = [];
    }
  } else {
    for (const status of Object.keys(auto)) {
      delete auto[status];
      d.internal.quarantineLifts[status] = 'automatic quarantine was turned off';
    }
  }
  announce(d);
}

function announce(d: Draft): void {
  const now = quarantinedNow(d.config, d.internal.autoQuarantined);
  const was = d.internal.quarantineAnnounced;
  if (now.length === was.length && now.every((s, i) => s === was[i])) {
    if (Object.keys(d.internal.quarantineLifts).length > 0) d.internal.quarantineLifts = {};
    return;
  }
  const nowSet = new Set(now);
  const wasSet = new Set(was);
  for (const status of now.filter((s) => !wasSet.has(s))) {
    const auto = d.internal.autoQuarantined[status];
    const manual = (d.config.quarantinedStatuses ?? []).includes(status);
    emit(d, 'queue.status_quarantined', {
      status,
      automatic: !manual && auto !== undefined,
      reason: manual || !auto ? "listed in the queue's quarantinedStatuses setting" : auto.reason,
    });
  }
  for (const status of was.filter((s) => !nowSet.has(s))) {
    const lift = d.internal.quarantineLifts[status];
    emit(d, 'queue.status_quarantine_lifted', {
      status,
      automatic: lift !== undefined,
      reason: lift ?? "removed from the queue's quarantinedStatuses setting",
    });
  }
  d.internal.quarantineAnnounced = now;
  d.internal.quarantineLifts = {};
}

function emit(
  d: Draft,
  type: 'queue.status_quarantined' | 'queue.status_quarantine_lifted',
  quarantine: NonNullable<QueueEventPayload['quarantine']>,
): void {
  d.emit({
    kind: 'emitEvent',
    key: `queue:${type}:${quarantine.status}:${d.at}`,
    event: { ...eventPayload(d, type, [], undefined, null), quarantine },
  });
}

/** One required status as getQueue and the metrics show it. */
export interface StatusFlakiness {
  status: string;
  /** Results counted since the queue was created, and among them flaky passes (passed on retry). */
  results: number;
  flakyPasses: number;
  /** Failures that did not gate while it was quarantined. */
  ignoredFailures: number;
  /** Flaky share of its recent results (STATUS_RESULTS_KEPT at most; since its quarantine if quarantined). */
  recentFlakyRate: number;
  recentResults: number;
  quarantined: boolean;
  /** How: the setting, or automatically; null when not quarantined. */
  quarantinedBy: 'setting' | 'automatic' | null;
  /** Since when an automatic quarantine holds; null otherwise. */
  quarantinedSince: number | null;
  /** Why, in words, with the figures; null when not quarantined. */
  quarantineReason: string | null;
}

/** Every status the queue counted or quarantined, by name. */
export function statusFlakiness(snapshot: QueueSnapshot): StatusFlakiness[] {
  const internal = readInternal(snapshot);
  const manual = new Set(snapshot.config.quarantinedStatuses ?? []);
  const names = [
    ...new Set([...Object.keys(internal.statusStats), ...manual, ...Object.keys(internal.autoQuarantined)]),
  ];
  return names.sort().map((status) => {
    const s = internal.statusStats[status] ?? { results: 0, flakyPasses: 0, ignoredFailures: 0, recent: [] };
    const auto = internal.autoQuarantined[status];
    const by = manual.has(status) ? 'setting' : auto ? 'automatic' : null;
    return {
      status,
      results: s.results,
      flakyPasses: s.flakyPasses,
      ignoredFailures: s.ignoredFailures,
      recentFlakyRate: rateOf(s.recent),
      recentResults: s.recent.length,
      quarantined: by !== null,
      quarantinedBy: by,
      quarantinedSince: by === 'automatic' && auto ? auto.since : null,
      quarantineReason:
        by === 'setting'
          ? "listed in the queue's quarantinedStatuses setting"
          : by === 'automatic'
            ? auto!.reason
            : null,
    };
  });
}

/** The statuses quarantined now for a stored snapshot (what ci-outcome.ts leaves out of a run's outcome). */
export const quarantinedStatusesOf = (snapshot: QueueSnapshot): string[] =>
  quarantinedNow(snapshot.config, readInternal(snapshot).autoQuarantined);

/** The statuses quarantined automatically now, with the figures and why (the audit log records each change). */
export const autoQuarantinedOf = (snapshot: QueueSnapshot): Readonly<Record<string, AutoQuarantine>> =>
  readInternal(snapshot).autoQuarantined;
