/** The client config file (see client-options.ts): YAML with the keys of ClientConfigSchema, all optional. */
import { existsSync, readFileSync } from 'node:fs';
import { Value } from '@sinclair/typebox/value';
import { parse as parseYaml } from 'yaml';
import { CLIENT_KEYS, ClientConfigSchema, type ClientConfigFile, type ClientKey } from '../config-schema.js';
import { UsageError } from './usage-error.js';

export type { ClientConfigFile } from '../config-schema.js';

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
  for (const [key, value] of Object.entries(doc)) {
    if (!CLIENT_KEYS.includes(key as ClientKey)) {
      throw new UsageError(`Unknown key "${key}" in client config file ${path}; known: ${CLIENT_KEYS.join(', ')}`);
    }
    if (!Value.Check(ClientConfigSchema.properties[key as ClientKey], value)) {
      throw new UsageError(`"${key}" in client config file ${path} must be a non-empty string`);
    }
  }
  return doc as ClientConfigFile;
}
