/** The client config file (see client-options.ts): YAML with url, token, repo and branch, all optional. */
import { existsSync, readFileSync } from 'node:fs';
import { parse as parseYaml } from 'yaml';
import { UsageError } from './usage-error.js';

export interface ClientConfigFile {
  url?: string;
  token?: string;
  repo?: string;
  branch?: string;
}

const KEYS = ['url', 'token', 'repo', 'branch'] as const;

/** The file's settings; a missing file is empty unless `required` (it was named with --client-config). */
export function readClientConfigFile(path: string, required: boolean): ClientConfigFile {
  if (!existsSync(path)) {
    if (required) throw new UsageError(`Client config file ${path} does not exist`);
    return {};
  }
  let doc: unknown;
  try {
    doc = parseYaml(readFileSync(path, 'utf8'));
  } catch (err) {
    throw new UsageError(`Client config file ${path} is not valid YAML: ${(err as Error).message}`);
  }
  if (doc === null || doc === undefined) return {};
  if (typeof doc !== 'object' || Array.isArray(doc)) throw new UsageError(`Client config file ${path} must be a mapping, e.g. "url: http://127.0.0.1:8080"`);
  const out: ClientConfigFile = {};
  for (const [key, value] of Object.entries(doc)) {
    if (!(KEYS as readonly string[]).includes(key)) {
      throw new UsageError(`Unknown key "${key}" in client config file ${path}; known: ${KEYS.join(', ')}`);
    }
    if (typeof value !== 'string' || value === '') throw new UsageError(`"${key}" in client config file ${path} must be a non-empty string`);
    out[key as (typeof KEYS)[number]] = value;
  }
  return out;
}
