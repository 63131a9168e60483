// @ts-check
// The queue's freezes as the settings page changes them: the one-off freezes in effect, a recurring
// window in words, the updateQueue `freezes` that add a one-off freeze from now or end those in effect,
// and which field of the freeze form a refusal names. No Preact, no DOM.

/** @typedef {import('../../src/client/index.js').Queue} Queue */
/** @typedef {NonNullable<Queue['freezes']>} Freezes */
/** @typedef {Freezes['oneOff'][number]} OneOff */

/** A queue's freezes when getQueue answers none. @type {Freezes} */
export const NO_FREEZES = { windows: [], oneOff: [], exemptLabels: [], stopTesting: false };

/** The one-off freezes in effect at `now`. @param {Freezes | undefined} f @param {number} now */
export const inEffect = (f, now) =>
  (f?.oneOff ?? []).filter((o) => Date.parse(o.from) <= now && now < Date.parse(o.until));

/** "cron 0 18 * * 5, 60 min (Europe/Paris): weekend", "Sat, Sun 00:00–23:59 (UTC)". @param {Freezes['windows'][number]} w */
export const windowText = (w) =>
  `${w.cron ? `cron ${w.cron}, ${w.durationMinutes} min` : `${(w.days ?? []).join(', ')} ${w.start}–${w.end}`} (${w.timeZone})${w.reason ? `: ${w.reason}` : ''}`;

/**
 * A one-off freeze from `now` until `until` as typed in a datetime-local field (the browser's time
 * zone); what cannot be read as a time is sent as typed, for the server to refuse.
 * @param {string} until @param {string} reason @param {number} now
 * @returns {OneOff}
 */
export function oneOffFreeze(until, reason, now) {
  const ends = Date.parse(until);
  return {
    from: new Date(now).toISOString(),
    until: Number.isFinite(ends) ? new Date(ends).toISOString() : until,
    reason,
  };
}

/** updateQueue's `freezes` with `entry` added. @param {Freezes} current @param {OneOff} entry */
export const withFreeze = (current, entry) => ({ freezes: { ...current, oneOff: [...current.oneOff, entry] } });

/** updateQueue's `freezes` without the one-off freezes `ending`; recurring ones stay. @param {Freezes} current @param {OneOff[]} ending */
export const withoutFreezes = (current, ending) => ({
  freezes: { ...current, oneOff: current.oneOff.filter((o) => !ending.includes(o)) },
});

/** The field of the freeze form a refusal names: "reason" when it names only that, else "until". @param {string} text */
export const refusedFreezeField = (text) =>
  /\buntil\b/.test(text) ? 'until' : /\breason\b/.test(text) ? 'reason' : 'until';
