/**
 * Risk-aware batching (`riskAwareBatching`, greenline extension, absent = 'on'; it acts in queues that
 * batch). A PR whose author's recent PRs failed in this queue far more often than everyone else's is
 * tested on its own first, on the bisection budget, before it joins the queue's batches: if it is bad
 * it fails there, alone, and no batch of others fails with it, goes to bisection or restarts the runs
 * behind it; if it passes it comes back as a cleared PR (bisection.ts `readmit`, policy 4), whose run
 * counts as its test when it still holds, and is batched as any other PR otherwise.
 *
 * What the queue observes: the outcome of every PR that concluded in it (FAILED or MERGED), by author,
 * the latest AUTHOR_OUTCOMES_KEPT per author (`internal.authors`, 1 = failed). An author's failure
 * rate is estimated as (failures + PRIOR_PRS · rest) / (outcomes + PRIOR_PRS), pulled towards `rest`,
 * the share of failures among everyone else's recent PRs. A PR is screened when its author failed at
 * least MIN_FAILURES times (one failure singles nobody out) and that estimate is at least RISKY_RATE and at least RISKY_RATIO times
 * `rest` (a batch of four at 7% each fails a quarter of the time), and its head has not passed a run
 * yet. With one author only, or too little known of the others (fewer than MIN_OTHER_OUTCOMES
 * outcomes), nobody stands out and nothing changes.
 *
 * The PR's reason says why when its run starts ("tested on its own before it joins a batch: 4 of its
 * author's last 20 PRs in this queue failed, against 3% of the others'").
 */
import { bisectingSet } from './bisection-state.js';
import { passedBefore } from './blame.js';
import type { Draft } from './draft.js';
import type { QueueConfig } from './types.js';

export const AUTHOR_OUTCOMES_KEPT = 20;
/** Authors remembered; the one whose PR concluded least recently is forgotten beyond it. */
const AUTHORS_KEPT = 1000;
const PRIOR_PRS = 10;
const RISKY_RATE = 0.07;
const RISKY_RATIO = 2;
const MIN_OTHER_OUTCOMES = 20;
const MIN_FAILURES = 2;

export const riskAware = (c: QueueConfig): boolean => c.batch && c.riskAwareBatching !== 'off';

/** A PR of `author` concluded: FAILED (`failed`) or MERGED. */
export function recordOutcome(d: Draft, author: string, failed: boolean): void {
  const authors = d.internal.authors;
  const recent = [...(authors[author] ?? []), failed ? 1 : 0].slice(-AUTHOR_OUTCOMES_KEPT);
  delete authors[author]; // re-inserted last: the keys stay in order of their latest conclusion
  authors[author] = recent;
  const names = Object.keys(authors);
  for (let i = 0; names.length - i > AUTHORS_KEPT; i++) delete authors[names[i]];
}

/** What the queue knows of an author who stands out as risky. */
export interface AuthorRisk {
  failed: number;
  outcomes: number;
  /** The estimated failure rate of the author's PRs. */
  rate: number;
  /** The share of failures among the other authors' recent PRs. */
  rest: number;
}

/** Failures and outcomes over every author's recent PRs. */
function totalsOf(authors: Readonly<Record<string, readonly number[]>>): { failed: number; outcomes: number } {
  let failed = 0;
  let outcomes = 0;
  for (const recent of Object.values(authors)) {
    outcomes += recent.length;
    for (const x of recent) failed += x;
  }
  return { failed, outcomes };
}

/**
 * The record of `author` when it stands out as risky against the others' (see above); null otherwise.
 * `totals`: the queue's, when already counted.
 */
export function riskyAuthor(
  authors: Readonly<Record<string, readonly number[]>>,
  author: string,
  totals = totalsOf(authors),
): AuthorRisk | null {
  const recent = authors[author] ?? [];
  const failed = recent.reduce((a, x) => a + x, 0);
  if (failed < MIN_FAILURES) return null;
  const otherOutcomes = totals.outcomes - recent.length;
  if (otherOutcomes < MIN_OTHER_OUTCOMES) return null;
  const rest = (totals.failed - failed) / otherOutcomes;
  const rate = (failed + PRIOR_PRS * rest) / (recent.length + PRIOR_PRS);
  return rate >= RISKY_RATE && rate >= RISKY_RATIO * rest ? { failed, outcomes: recent.length, rate, rest } : null;
}

/** Why a PR of an author with record `r` is tested on its own first, in words. */
export function whyScreened(r: AuthorRisk): string {
  const pct = Math.round(100 * r.rest);
  return `tested on its own before it joins a batch: ${r.failed} of its author's last ${r.outcomes} PRs in this queue failed, against ${pct}% of the others', so a batch with it would likely fail`;
}

/** PRs under a screening (tested on their own before they join a batch). */
export function screenedSet(d: Draft): Set<number> {
  const out = new Set<number>();
  for (const b of d.internal.bisections) if (b.screening !== undefined) for (const n of b.members) out.add(n);
  return out;
}

/**
 * Puts every risky PR that waits for its first run this trip, and whose head has not passed a run,
 * under a screening: a bisection of one part, itself (bisection.ts tests it, on the bisection budget).
 */
export function screenRiskyPrs(d: Draft): void {
  if (!riskAware(d.config)) return;
  const started = new Set(d.internal.order);
  const bisecting = bisectingSet(d);
  const risks = new Map<string, AuthorRisk | null>();
  let totals: { failed: number; outcomes: number } | null = null;
  for (const e of d.allEntries()) {
    if (e.state !== 'PENDING' || e.noBatch || started.has(e.prNumber) || bisecting.has(e.prNumber)) continue;
    if (passedBefore(e)) continue;
    if (!risks.has(e.author)) {
      totals ??= totalsOf(d.internal.authors);
      risks.set(e.author, riskyAuthor(d.internal.authors, e.author, totals));
    }
    const risk = risks.get(e.author);
    if (!risk) continue;
    d.internal.bisections.push({
      id: `screen-${e.id}-${e.trip}`,
      members: [e.prNumber],
      failedKeys: [],
      parts: [{ prNumbers: [e.prNumber], runId: null }],
      overtakenBy: [],
      screening: whyScreened(risk),
    });
    d.touch();
  }
}
