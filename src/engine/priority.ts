import { DEFAULT_PRIORITY, PRIORITY_VALUES, type PriorityName } from './types.js';

export type ParsedPriority =
  | { ok: true; value: number; name: PriorityName; usedDefault: boolean }
  | { ok: false; message: string };

const NAMES = Object.keys(PRIORITY_VALUES) as PriorityName[];

/**
 * The name reported for a priority value (contract §6.8). A value that matches no name gets the name
 * of the bucket it falls in: the named value nearest below it (42 → `high`, 150 → `medium`,
 * 255 → `low`). Only the value orders the queue; the name is a label (contract §11 question 5).
 */
export function priorityNameOf(value: number): PriorityName {
  let best: PriorityName = 'urgent';
  for (const name of NAMES)
    if (PRIORITY_VALUES[name] <= value && PRIORITY_VALUES[name] >= PRIORITY_VALUES[best]) best = name;
  return best;
}

/**
 * Parses a submission's priority (contract §2.1, §3 #10): an integer 0–255 (0 is the highest), a
 * decimal string of one, or a name (`urgent`, `high`, `medium`, `low`, any case). Null or absent means
 * the default, `medium`. Anything else is refused with a message naming the value.
 */
export function parsePriority(p: number | string | null | undefined): ParsedPriority {
  if (p === null || p === undefined) {
    return { ok: true, value: PRIORITY_VALUES[DEFAULT_PRIORITY], name: DEFAULT_PRIORITY, usedDefault: true };
  }
  if (typeof p === 'number') return fromNumber(p, String(p));
  if (typeof p === 'string') {
    const text = p.trim().toLowerCase();
    if (Object.hasOwn(PRIORITY_VALUES, text)) {
      const name = text as PriorityName;
      return { ok: true, value: PRIORITY_VALUES[name], name, usedDefault: false };
    }
    if (/^\d+$/.test(text)) return fromNumber(Number(text), JSON.stringify(p));
    return {
      ok: false,
      message: `priority ${JSON.stringify(p)} is not one of urgent, high, medium, low or an integer 0-255`,
    };
  }
  return {
    ok: false,
    message: `priority must be an integer 0-255 or a name (urgent, high, medium, low), got ${typeof p}`,
  };
}

function fromNumber(value: number, shown: string): ParsedPriority {
  if (!Number.isInteger(value) || value < 0 || value > 255) {
    return {
      ok: false,
      message: `priority ${shown} is out of range: use an integer 0-255 (0 is the highest) or a name`,
    };
  }
  return { ok: true, value, name: priorityNameOf(value), usedDefault: false };
}
