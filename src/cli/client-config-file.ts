/** The client config file (see client-options.ts): YAML with url, token, repo and branch, all optional. */
import { readConfigFile } from '../config-file.js';
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
  const doc = readConfigFile(path, {
    title: 'Client config file', required, keys: KEYS, mappingHint: 'e.g. "url: http://127.0.0.1:8080"', error: UsageError,
  });
  const out: ClientConfigFile = {};
  for (const [key, value] of Object.entries(doc)) {
    if (typeof value !== 'string' || value === '') throw new UsageError(`"${key}" in client config file ${path} must be a non-empty string`);
    out[key as (typeof KEYS)[number]] = value;
  }
  return out;
}
