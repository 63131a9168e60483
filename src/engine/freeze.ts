/**
 * Scheduled freezes and merge windows (greenline extension, queue setting `freezes`).
 *
 * A queue is frozen at time t when t falls in one of its freezes: a one-off freeze [from, until), a
 * weekly window (`days`, `start`–`end` in a time zone) or a cron window (from each time `cron` fires
 * in its time zone, for `durationMinutes`). Freezes that touch or overlap form one freeze: it lasts
 * until the last of them ends. Wall-clock times are resolved in the window's IANA time zone by Luxon
 * and cron expressions by croner, so daylight-saving changes move a window with the local clock
 * (a start in the skipped hour begins at the first valid local time after it).
 *
 * While frozen the queue starts no merge and, with `stopTesting`, no test run; exempt PRs (urgent
 * priority, or one of `exemptLabels`) do both as usual. A merge carries the PRs its test commit was
 * built on: it starts during a freeze only when every one of them is exempt, so a freeze never lets
 * another PR through. Urgent PRs go ahead of the PRs that have not started testing (ordering.ts).
 *
 * Time stays an input: everything here is a function of the settings and the time `at`. The engine
 * announces when a freeze starts and ends (`queue.frozen`, `queue.unfrozen`) and asks for a wakeup at
 * the next edge (timers.ts).
 */
import { Cron } from 'croner';
import { DateTime, IANAZone } from 'luxon';
import { MINUTE_MS } from '../lib/time.js';
import type { Draft } from './draft.js';
import { readInternal } from './working-state.js';
import { priorityNameOf } from './priority.js';
import { emitQueueEvent } from './transitions.js';
import {
  type Entry,
  type FreezeSettings,
  type PrInfo,
  type FreezeWindow,
  type QueueConfig,
  type QueueSnapshot,
  WEEKDAYS,
} from './types.js';

export const DEFAULT_FREEZE_REASON = 'scheduled freeze';

/** One freeze interval [from, until) in milliseconds. */
export interface FreezeInterval {
  from: number;
  until: number;
  reason: string;
}

export type FreezeStatus =
  | { frozen: true; reason: string; until: number }
  | { frozen: false; next: FreezeInterval | null };

/** How often touching freezes are joined before giving up (a queue frozen for good). */
const MAX_JOINS = 100;
/** Weekly windows are looked for this many days ahead. */
const LOOKAHEAD_DAYS = 8;
/** The longest cron window: 31 days. */
export const MAX_FREEZE_MINUTES = 31 * 24 * 60;

// ---------------------------------------------------------------- validation

const TIME = /^([01]\d|2[0-3]):[0-5]\d$|^24:00$/;

function cronProblem(expression: string, timeZone: string): string | null {
  try {
    new Cron(expression, { timezone: timeZone });
    return null;
  } catch (err) {
    return (err as Error).message;
  }
}

function windowProblem(w: unknown, at: string): string | null {
  if (!w || typeof w !== 'object' || Array.isArray(w)) return `${at} must be an object`;
  const win = w as Record<string, unknown>;
  const known = ['days', 'start', 'end', 'cron', 'durationMinutes', 'timeZone', 'reason'];
  const extra = Object.keys(win).find((k) => !known.includes(k));
  if (extra)
    return `${at}.${extra} is not a window field: use days, start, end, cron, durationMinutes, timeZone, reason`;
  if (typeof win.timeZone !== 'string' || !IANAZone.isValidZone(win.timeZone)) {
    return `${at}.timeZone ${JSON.stringify(win.timeZone)} is not a known IANA time zone: use a name like Europe/Berlin or UTC`;
  }
  if (win.reason !== undefined && (typeof win.reason !== 'string' || win.reason.trim() === '')) {
    return `${at}.reason must be a non-empty string when given`;
  }
  if (win.cron !== undefined) {
    if (win.days !== undefined || win.start !== undefined || win.end !== undefined) {
      return `${at} has both cron and days/start/end: give either a cron expression with durationMinutes or days with start and end`;
    }
    if (typeof win.cron !== 'string') return `${at}.cron must be a cron expression string, e.g. "0 18 * * 5"`;
    const bad = cronProblem(win.cron, win.timeZone);
    if (bad)
      return `${at}.cron ${JSON.stringify(win.cron)} is not a valid cron expression (${bad}): use five fields, minute hour day-of-month month day-of-week, e.g. "0 18 * * 5"`;
    const d = win.durationMinutes;
    if (typeof d !== 'number' || !Number.isInteger(d) || d < 1 || d > MAX_FREEZE_MINUTES) {
      return `${at}.durationMinutes must be an integer from 1 to ${MAX_FREEZE_MINUTES}: how long each freeze lasts after the cron time`;
    }
    return null;
  }
  if (win.durationMinutes !== undefined) return `${at}.durationMinutes goes with cron; a days window ends at end`;
  if (
    !Array.isArray(win.days) ||
    win.days.length === 0 ||
    !win.days.every((d) => typeof d === 'string' && (WEEKDAYS as readonly string[]).includes(d.toLowerCase()))
  ) {
    return `${at}.days must be a non-empty list of ${WEEKDAYS.join(', ')} (or give cron with durationMinutes instead)`;
  }
  for (const field of ['start', 'end'] as const) {
    const v = win[field];
    if (typeof v !== 'string' || !TIME.test(v))
      return `${at}.${field} must be a local time HH:MM (00:00 to 24:00), got ${JSON.stringify(v)}`;
  }
  if (win.start === '24:00') return `${at}.start must be before 24:00: use 00:00 of the next day`;
  if (win.start === win.end) return `${at}.start equals end: use 00:00 to 24:00 for a whole day`;
  return null;
}

const isoTime = (v: unknown): number | null =>
  typeof v === 'string' && /^\d{4}-\d\d-\d\dT/.test(v) && Number.isFinite(Date.parse(v)) ? Date.parse(v) : null;

function oneOffProblem(f: unknown, at: string): string | null {
  if (!f || typeof f !== 'object' || Array.isArray(f)) return `${at} must be an object with from, until and reason`;
  const o = f as Record<string, unknown>;
  const extra = Object.keys(o).find((k) => !['from', 'until', 'reason'].includes(k));
  if (extra) return `${at}.${extra} is not a one-off freeze field: use from, until, reason`;
  const from = isoTime(o.from);
  if (from === null) return `${at}.from must be an ISO-8601 time, e.g. 2026-03-28T18:00:00Z`;
  const until = isoTime(o.until);
  if (until === null) return `${at}.until must be an ISO-8601 time, e.g. 2026-03-30T06:00:00Z`;
  if (until <= from) return `${at}.until must be after from: the freeze would end before it starts`;
  if (typeof o.reason !== 'string' || o.reason.trim() === '') return `${at}.reason must say why, e.g. "release 2.4"`;
  return null;
}

/** Why a `freezes` setting is not valid, naming the field (`freezes.windows[0].timeZone`); null if valid. */
export function freezeProblem(value: unknown): string | null {
  if (!value || typeof value !== 'object' || Array.isArray(value)) {
    return 'freezes must be an object with windows, oneOff, exemptLabels and stopTesting';
  }
  const s = value as Record<string, unknown>;
  const extra = Object.keys(s).find((k) => !['windows', 'oneOff', 'exemptLabels', 'stopTesting'].includes(k));
  if (extra) return `freezes.${extra} is not a freeze setting: use windows, oneOff, exemptLabels, stopTesting`;
  if (!Array.isArray(s.windows)) return 'freezes.windows must be a list of recurring windows ([] for none)';
  if (!Array.isArray(s.oneOff)) return 'freezes.oneOff must be a list of one-off freezes ([] for none)';
  if (!Array.isArray(s.exemptLabels) || !s.exemptLabels.every((l) => typeof l === 'string' && l.trim() !== '')) {
    return 'freezes.exemptLabels must be a list of non-empty label names ([] for none)';
  }
  if (typeof s.stopTesting !== 'boolean') return 'freezes.stopTesting must be true or false';
  for (const [i, w] of s.windows.entries()) {
    const bad = windowProblem(w, `freezes.windows[${i}]`);
    if (bad) return bad;
  }
  for (const [i, f] of s.oneOff.entries()) {
    const bad = oneOffProblem(f, `freezes.oneOff[${i}]`);
    if (bad) return bad;
  }
  return null;
}

// ---------------------------------------------------------------- intervals

/** `HH:MM` on a local day, in the day's zone; 24:00 is the start of the next day. */
function localTime(day: DateTime, hhmm: string): DateTime {
  if (hhmm === '24:00') return day.plus({ days: 1 });
  const [hour, minute] = hhmm.split(':').map(Number);
  return DateTime.fromObject({ year: day.year, month: day.month, day: day.day, hour, minute }, { zone: day.zone });
}

/** A weekly window's intervals that end after `at`, up to and including the first that starts after it. */
function weeklyIntervals(w: FreezeWindow, at: number): FreezeInterval[] {
  const days = new Set((w.days ?? []).map((d) => WEEKDAYS.indexOf(d.toLowerCase() as never) + 1));
  const start = w.start ?? '00:00';
  const end = w.end ?? '24:00';
  const overnight = end !== '24:00' && end <= start;
  const reason = w.reason ?? DEFAULT_FREEZE_REASON;
  const out: FreezeInterval[] = [];
  let day = DateTime.fromMillis(at, { zone: w.timeZone }).startOf('day').minus({ days: 1 });
  for (let i = 0; i <= LOOKAHEAD_DAYS; i++, day = day.plus({ days: 1 })) {
    if (!days.has(day.weekday)) continue;
    const from = localTime(day, start).toMillis();
    const until = localTime(overnight ? day.plus({ days: 1 }) : day, end).toMillis();
    if (until <= at) continue;
    out.push({ from, until, reason });
    if (from > at) break;
  }
  return out;
}

/** A cron window's earliest interval containing `at` (if any) and the first one starting after it. */
function cronIntervals(w: FreezeWindow, at: number): FreezeInterval[] {
  const cron = new Cron(w.cron!, { timezone: w.timeZone });
  const length = (w.durationMinutes ?? 1) * MINUTE_MS;
  const reason = w.reason ?? DEFAULT_FREEZE_REASON;
  const out: FreezeInterval[] = [];
  const first = cron.nextRun(new Date(at - length));
  if (first && first.getTime() <= at) out.push({ from: first.getTime(), until: first.getTime() + length, reason });
  const next = cron.nextRun(new Date(at));
  if (next) out.push({ from: next.getTime(), until: next.getTime() + length, reason });
  return out;
}

/** Every freeze interval that ends after `at` and starts at or before it, or is the next of its kind. */
function intervalsAround(s: FreezeSettings, at: number): FreezeInterval[] {
  const out: FreezeInterval[] = [];
  for (const f of s.oneOff) {
    const from = Date.parse(f.from);
    const until = Date.parse(f.until);
    if (until > at) out.push({ from, until, reason: f.reason });
  }
  for (const w of s.windows) out.push(...(w.cron !== undefined ? cronIntervals(w, at) : weeklyIntervals(w, at)));
  return out;
}

const containing = (list: FreezeInterval[], at: number): FreezeInterval[] =>
  list.filter((i) => i.from <= at && at < i.until);

/** Whether the queue is frozen at `at`, why and until when; if not, the next freeze. */
export function freezeStatus(s: FreezeSettings | null | undefined, at: number): FreezeStatus {
  if (!s || (s.windows.length === 0 && s.oneOff.length === 0)) return { frozen: false, next: null };
  const around = intervalsAround(s, at);
  const now = containing(around, at);
  if (now.length === 0) {
    const upcoming = around.filter((i) => i.from > at).sort((a, b) => a.from - b.from)[0];
    if (!upcoming) return { frozen: false, next: null };
    const then = freezeStatus(s, upcoming.from);
    return { frozen: false, next: then.frozen ? { ...upcoming, until: then.until, reason: then.reason } : upcoming };
  }
  let until = Math.max(...now.map((i) => i.until));
  for (let i = 0; i < MAX_JOINS; i++) {
    const touching = containing(intervalsAround(s, until), until);
    if (touching.length === 0) break;
    until = Math.max(...touching.map((t) => t.until));
  }
  return { frozen: true, reason: now[0].reason, until };
}

/** Urgent PRs and PRs with an exempt label test and merge during a freeze. */
export function isFreezeExempt(config: QueueConfig, e: Entry): boolean {
  if (priorityNameOf(e.priorityValue) === 'urgent') return true;
  const exempt = (config.freezes?.exemptLabels ?? []).map((l) => l.toLowerCase());
  return exempt.length > 0 && (e.labels ?? []).some((l) => exempt.includes(l.toLowerCase()));
}

/** Whether the forge reports labels other than the entry's (absent = the forge does not tell). */
export function labelsChanged(e: Entry, pr: PrInfo): boolean {
  if (pr.labels === undefined) return false;
  const had = e.labels ?? [];
  return had.length !== pr.labels.length || had.some((l, i) => l !== pr.labels![i]);
}

// ---------------------------------------------------------------- the engine's view

const STATUS = new WeakMap<Draft, { at: number; config: QueueConfig; status: FreezeStatus }>();

/** The freeze status at the draft's time (cached per draft, time and settings). */
export function freezeNow(d: Draft): FreezeStatus {
  const cached = STATUS.get(d);
  if (cached && cached.at === d.at && cached.config === d.config) return cached.status;
  const status = freezeStatus(d.config.freezes, d.at);
  STATUS.set(d, { at: d.at, config: d.config, status });
  return status;
}

/** Whether the queue may merge these entries (every PR that becomes MERGED) now. */
export function mayMerge(d: Draft, merging: readonly Entry[]): boolean {
  return !freezeNow(d).frozen || merging.every((e) => isFreezeExempt(d.config, e));
}

/** Whether the queue may start testing this entry now. */
export function mayTest(d: Draft, e: Entry): boolean {
  return !(freezeNow(d).frozen && d.config.freezes?.stopTesting) || isFreezeExempt(d.config, e);
}

/** When the freeze status changes next (the wakeup the queue needs), or null. */
export function nextFreezeEdge(d: Draft): number | null {
  const s = freezeNow(d);
  return s.frozen ? s.until : (s.next?.from ?? null);
}

/**
 * Announces a freeze that started (`queue.frozen`, with its reason and end) or ended
 * (`queue.unfrozen`, with the reason it had) since the last decision.
 */
export function announceFreeze(d: Draft): void {
  const s = freezeNow(d);
  const was = d.internal.freeze;
  if (s.frozen && was === null) {
    d.internal.freeze = { reason: s.reason, until: s.until, since: d.at };
    emitQueueEvent(d, 'queue.frozen', { reason: s.reason, until: s.until });
  } else if (s.frozen && was !== null && (was.reason !== s.reason || was.until !== s.until)) {
    d.internal.freeze = { reason: s.reason, until: s.until, since: was.since };
    d.touch();
  } else if (!s.frozen && was !== null) {
    d.internal.freeze = null;
    d.internal.frozenMs += Math.max(0, d.at - was.since);
    emitQueueEvent(d, 'queue.unfrozen', { reason: was.reason, until: d.at });
  }
}

/** Seconds the queue has spent frozen up to `now`: ended freezes, and the one in effect. */
export function frozenSeconds(snapshot: QueueSnapshot, now: number): number {
  const internal = readInternal(snapshot);
  const current = internal.freeze ? Math.max(0, now - internal.freeze.since) : 0;
  return (internal.frozenMs + current) / 1000;
}
