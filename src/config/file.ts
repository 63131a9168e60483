/**
 * The one reader of greenline's YAML config files (the server's greenline.yaml and the client's
 * config file): a mapping of known keys, every mistake named with the file's path.
 */
import { existsSync, readFileSync } from 'node:fs';
import { parse as parseYaml } from 'yaml';

export interface ConfigFileOptions {
  /** How messages name the file, capitalised: "Config file", "Client config file". */
  title: string;
  /** A missing file is an error (the file was named explicitly), else it reads as empty. */
  required: boolean;
  /** The top-level keys the file may hold. */
  keys: readonly string[];
  /** How the message names an unknown key (default "key"). */
  keyLabel?: string;
  /** What a mapping looks like, for the message when the file holds something else. */
  mappingHint: string;
  /** The error class the caller reports (its message is shown as is). */
  error: new (
    message: string,
  ) => Error;
}

/** The file's top-level mapping; a missing optional or empty file is `{}`. */
export function readConfigFile(path: string, opts: ConfigFileOptions): Record<string, unknown> {
  const fail = (message: string) => new opts.error(message);
  if (!existsSync(path)) {
    if (opts.required) throw fail(`${opts.title} ${path} does not exist`);
    return {};
  }
  let doc: unknown;
  try {
    doc = parseYaml(readFileSync(path, 'utf8'));
  } catch (err) {
    throw fail(`${opts.title} ${path} is not valid YAML: ${(err as Error).message}`);
  }
  if (doc === null || doc === undefined) return {};
  if (typeof doc !== 'object' || Array.isArray(doc))
    throw fail(`${opts.title} ${path} must be a mapping, ${opts.mappingHint}`);
  for (const key of Object.keys(doc)) {
    if (!opts.keys.includes(key)) {
      throw fail(
        `Unknown ${opts.keyLabel ?? 'key'} "${key}" in ${opts.title.toLowerCase()} ${path}; known: ${opts.keys.join(', ')}`,
      );
    }
  }
  return doc as Record<string, unknown>;
}
