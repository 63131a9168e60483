/**
 * The configuration references against the schemas they describe. docs/configuration.md is written by
 * `npm run docs:config` from the server's schema: the committed page must be what the script writes
 * now, and its table must have one row per setting with the setting's environment variable, flag and
 * default (both directions). docs/cli.md's table of the client settings is written by hand and held to
 * the client schema the same way.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { CONFIGURATION_DOC, configurationDoc } from '../../scripts/configuration-doc.js';
import { CLIENT_KEYS, clientSettingOf, CONFIG_KEYS, settingOf } from '../../src/config/schema.js';

/** The rows of the first table after `heading` in a Markdown text, as lists of cells. */
function tableAfter(text: string, heading: string): string[][] {
  const lines = text.slice(text.indexOf(heading)).split('\n');
  const start = lines.findIndex((l) => l.startsWith('|'));
  const end = lines.findIndex((l, i) => i > start && !l.startsWith('|'));
  return lines.slice(start + 2, end).map((l) =>
    l
      .split(/(?<!\\)\|/)
      .slice(1, -1)
      .map((c) => c.trim()),
  );
}

const read = (file: string): string => readFileSync(new URL(`../../${file}`, import.meta.url), 'utf8');

/** `` `a`, `b` `` → ['a', 'b']; `—` → []. */
const names = (cell: string): string[] => [...cell.matchAll(/`([^`]+)`/g)].map((m) => m[1]!);

/** How a table states a default: its text, else the value in backquotes. */
const defaultCell = (s: { default?: unknown; defaultText?: string }): string =>
  s.defaultText ?? `\`${String(s.default)}\``;

describe('docs/configuration.md', () => {
  it('is what `npm run docs:config` writes from the schema now', () => {
    expect(
      readFileSync(CONFIGURATION_DOC, 'utf8') === configurationDoc(),
      'docs/configuration.md differs from the schema: run `npm run docs:config` and commit the page',
    ).toBe(true);
  });

  it('has one row per setting of the server schema, with its environment variable, flag, default and meaning', () => {
    const rows = tableAfter(configurationDoc(), '| Key');
    const documented = rows.map(([key, env, flag, byDefault, , meaning]) => ({
      key: names(key!)[0],
      env: names(env!)[0],
      flag: names(flag!)[0] ?? null,
      byDefault: byDefault!,
      meaning: meaning!,
    }));
    expect(documented.map((d) => d.key)).toEqual(CONFIG_KEYS);
    for (const d of documented) {
      const s = settingOf(d.key as (typeof CONFIG_KEYS)[number]);
      expect({ key: d.key, env: d.env, flag: d.flag, meaning: d.meaning }).toEqual({
        key: d.key,
        env: s.env,
        flag: s.flag?.split(' ')[0] ?? null,
        meaning: s.description,
      });
      expect(d.byDefault, d.key).toBe(defaultCell(s));
    }
  });
});

describe("docs/cli.md's table of the client settings", () => {
  const rows = tableAfter(read('docs/cli.md'), '## Connecting to a server');

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
