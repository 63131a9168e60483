/**
 * The temporary directories a test file made (test/helpers/temp-dir.ts registers them), and what the
 * leak check found in those already removed. Kept on `globalThis`: the setup module and the test
 * file must see one registry even if the module is loaded twice.
 */
export interface Registry {
  /** Directories made and not removed yet. */
  live: Set<string>;
  /** Every directory made during the file: processes working inside one are the file's. */
  all: Set<string>;
  /** Leftovers found in directories as they were removed. */
  found: string[];
}

const KEY = Symbol.for('greenline.leakCheck.registry');

export function registry(): Registry {
  const g = globalThis as { [KEY]?: Registry };
  g[KEY] ??= { live: new Set(), all: new Set(), found: [] };
  return g[KEY];
}

export function resetRegistry(): void {
  const r = registry();
  r.live.clear();
  r.all.clear();
  r.found.length = 0;
}
