/** Durations in milliseconds. */
export const SECOND_MS = 1_000;
export const MINUTE_MS = 60 * SECOND_MS;
export const HOUR_MS = 60 * MINUTE_MS;
export const DAY_MS = 24 * HOUR_MS;

/** A time (milliseconds since the epoch) as the APIs write it: ISO-8601 in UTC. */
export const iso = (ms: number): string => new Date(ms).toISOString();
