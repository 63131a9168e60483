/**
 * The configuration tables of the docs against the schemas they describe, in both directions: every
 * setting has its row and every row its setting, with the same environment variable, flag and default.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { CLIENT_KEYS, clientSettingOf, CONFIG_KEYS, settingOf } from '../../src/config-schema.js';

/** The rows of the first table after `heading` in a Markdown file, as lists of cells. */
function tableAfter(file: string, heading: string): string[][] {
  const text = readFileSync(new URL(`../../${file}`, import.meta.url), 'utf8');
  const lines = text.slice(text.indexOf(heading)).split('\n');
  const start = lines.findIndex((l) => l.startsWith('|'));
  const end = lines.findIndex((l, i) => i > start && !l.startsWith('|'));
  return lines.slice(start + 2, end).map((l) =>
    l
      .split('|')
      .slice(1, -1)
      .map((c) => c.trim()),
  );
}

/** `` `a`, `b` `` → ['a', 'b']; `—` → []. */
const names = (cell: string): string[] => [...cell.matchAll(/`([^`]+)`/g)].map((m) => m[1]!);

/** How a table states a default: its text, else the value in backquotes. */
const defaultCell = (s: { default?: unknown; defaultText?: string }): string =>
  s.defaultText ?? `\`${String(s.default)}\``;

describe("README.md's configuration table", () => {
  const rows = tableAfter('README.md', '## Configuration');

  it('has one row per setting of the server schema, with its environment variable, flag and default', () => {
    const documented = rows.flatMap(([keys, envs, flags, byDefault]) =>
      names(keys!).map((key, i) => ({
        key,
        env: names(envs!)[i],
        flag: names(flags!)[i] ?? null,
        byDefault: byDefault!,
      })),
    );
    expect(documented.map((d) => d.key)).toEqual(CONFIG_KEYS);
    for (const d of documented) {
      const s = settingOf(d.key as (typeof CONFIG_KEYS)[number]);
      expect({ key: d.key, env: d.env, flag: d.flag }).toEqual({
        key: d.key,
        env: s.env,
        flag: s.flag?.split(' ')[0] ?? null,
      });
      expect(
        d.byDefault.startsWith(defaultCell(s)),
        `${d.key}: "${d.byDefault}" states the default ${defaultCell(s)}`,
      ).toBe(true);
    }
  });
});

describe("docs/cli.md's table of the client settings", () => {
  const rows = tableAfter('docs/cli.md', '## Connecting to a server');

  it('has one row per setting of the client schema, with its flag, environment variable, file key and default', () => {
    const documented = rows.map(([, flag, env, fileKey, byDefault]) => ({
      key: names(fileKey!)[0]!.replace(/:$/, ''),
      flag: names(flag!)[0]!.split(' ')[0],
      env: names(env!)[0],
      byDefault: byDefault!,
    }));
    expect(documented.map((d) => d.key)).toEqual(CLIENT_KEYS);
    for (const d of documented) {
      const s = clientSettingOf(d.key as (typeof CLIENT_KEYS)[number]);
      expect({ key: d.key, flag: d.flag, env: d.env }).toEqual({ key: d.key, flag: s.flag.split(' ')[0], env: s.env });
      expect(
        d.byDefault.startsWith(defaultCell(s)),
        `${d.key}: "${d.byDefault}" states the default ${defaultCell(s)}`,
      ).toBe(true);
    }
  });
});
