/**
 * Command-line options generated from the server's request schemas (src/api/v1/schemas/queue.ts), so
 * `queue create` and `queue update` offer exactly the settings the API takes, with its descriptions:
 * `testingTimeoutMinutes` is `--testing-timeout-minutes <n>`, a boolean `batch` is `--batch` /
 * `--no-batch`, a list is `--required-statuses <name...>`, an object (`freezes`) is JSON text. Ranges and enum values are checked by the
 * server, whose 400 names the field.
 */
import { Option, type Command } from 'commander';
import type { TSchema } from '@sinclair/typebox';
import { UsageError } from './usage-error.js';

/** Settings that are an action rather than a value: only the positive flag makes sense. */
const ACTIONS = new Set(['deleteRequiredStatuses']);

/** Help texts written for the command line where the schema's speaks of the request body. */
const HELP: Record<string, string> = {
  state: 'RUNNING, PAUSED or DRAINING (the same as queue resume | pause | drain)',
  requiredStatuses:
    "checks a test commit must pass, replacing the repository's (remove the override with --delete-required-statuses)",
  deleteRequiredStatuses: 'remove the --required-statuses override: the checks come from the repository again',
};

const kebab = (name: string): string => name.replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`);

/** The JSON types a schema takes; of a union (`testingTimeoutMinutes`: a number or "auto"), its members'. */
const typesOf = (schema: TSchema): string[] =>
  schema.anyOf
    ? (schema.anyOf as TSchema[]).flatMap(typesOf)
    : [(schema.type as string | string[] | undefined) ?? []].flat();

function describe(name: string, schema: TSchema): string {
  const values = schema['x-enum-any-case'] as string[] | undefined;
  const text = HELP[name] ?? (schema.description as string | undefined) ?? '';
  return values ? `${text}${text ? ' ' : ''}(${values.join(' | ')}, any case)` : text;
}

export function addSettingOptions(cmd: Command, properties: Record<string, TSchema>): Command {
  for (const [name, schema] of Object.entries(properties)) {
    const flag = `--${kebab(name)}`;
    const types = typesOf(schema);
    if (types.includes('boolean')) {
      cmd.addOption(new Option(flag, describe(name, schema) || `set ${name} to true`));
      if (!ACTIONS.has(name)) cmd.addOption(new Option(`--no-${kebab(name)}`, `set ${name} to false`));
    } else if (types.includes('object')) {
      cmd.addOption(new Option(`${flag} <json>`, `${describe(name, schema)} (JSON text; null removes it)`));
    } else if (types.includes('array')) {
      cmd.addOption(new Option(`${flag} <name...>`, describe(name, schema)));
    } else if (types.includes('string') && types.includes('integer')) {
      cmd.addOption(new Option(`${flag} <value>`, describe(name, schema)));
    } else if (types.includes('integer') || types.includes('number')) {
      cmd.addOption(new Option(`${flag} <n>`, describe(name, schema)));
    } else {
      cmd.addOption(new Option(`${flag} <value>`, describe(name, schema)));
    }
  }
  return cmd;
}

/** The request fields set by the options of addSettingOptions (absent when the option was not given). */
export function settingsFrom(
  opts: Record<string, unknown>,
  properties: Record<string, TSchema>,
): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [name, schema] of Object.entries(properties)) {
    const value = opts[name];
    if (value === undefined) continue;
    const types = typesOf(schema);
    const numeric = types.includes('integer') || types.includes('number');
    if (numeric && types.includes('string') && typeof value === 'string' && !/^\s*-?[0-9.]+\s*$/.test(value)) {
      out[name] = value; // a number or a word ("auto")
    } else if (numeric && typeof value === 'string') {
      const n = Number(value);
      if (value.trim() === '' || !Number.isFinite(n))
        throw new UsageError(`--${kebab(name)} takes a number, got "${value}"`);
      out[name] = n;
    } else if (types.includes('object') && typeof value === 'string') {
      try {
        out[name] = JSON.parse(value);
      } catch {
        throw new UsageError(`--${kebab(name)} takes JSON text, e.g. '{"windows": []}', got ${JSON.stringify(value)}`);
      }
    } else {
      out[name] = value;
    }
  }
  return out;
}
