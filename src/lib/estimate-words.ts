/**
 * An estimated merge time in words, as the CLI and the forge's comments and checks say it: the range
 * the PR most likely merges in, and the most likely time ("between 2026-01-31 14:10 and 15:20 UTC,
 * most likely 14:40"). Every time is to the minute, in UTC; a time names its day when the time said
 * before it is on another day (the first always does).
 */

/** The estimate (epoch ms) and its p10–p90 range (epoch ms), as the engine's outlook gives them. */
export interface EstimateForWords {
  at: number;
  range: { p10: number; p90: number } | null;
}

const minuteOf = (ms: number): string => new Date(ms).toISOString().slice(0, 16);

/** Each time to the minute, its day named when it differs from the day of the time before it. */
function timesInWords(times: number[]): string[] {
  let day = '';
  return times.map((ms) => {
    const [d, hm] = minuteOf(ms).split('T') as [string, string];
    const said = d === day ? hm : `${d} ${hm}`;
    day = d;
    return said;
  });
}

/** `between … and … UTC, most likely …`, or `… UTC` alone when the range is that one minute. */
export function estimateInWords({ at, range }: EstimateForWords): string {
  if (range === null || minuteOf(range.p10) === minuteOf(range.p90)) return `${timesInWords([at])[0]} UTC`;
  const [p10, p90, likely] = timesInWords([range.p10, range.p90, at]);
  return `between ${p10} and ${p90} UTC, most likely ${likely}`;
}
