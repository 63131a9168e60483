/** The client config file (see client-options.ts): YAML with the keys of ClientConfigSchema, all optional. */
import { Value } from '@sinclair/typebox/value';
import { CLIENT_KEYS, ClientConfigSchema, type ClientConfigFile, type ClientKey } from '../config/schema.js';
import { readConfigFile } from '../config/file.js';
import { UsageError } from './usage-error.js';

export type { ClientConfigFile } from '../config/schema.js';

/** The file's settings; a missing file is empty unless `required` (it was named with --client-config). */
export function readClientConfigFile(path: string, required: boolean): ClientConfigFile {
  const doc = readConfigFile(path, {
    title: 'Client config file',
    required,
    keys: CLIENT_KEYS,
    mappingHint: 'e.g. "url: http://127.0.0.1:8080"',
    error: UsageError,
  });
  for (const [key, value] of Object.entries(doc)) {
    if (!Value.Check(ClientConfigSchema.properties[key as ClientKey], value)) {
      throw new UsageError(`"${key}" in client config file ${path} must be a non-empty string`);
    }
  }
  return doc as ClientConfigFile;
}
