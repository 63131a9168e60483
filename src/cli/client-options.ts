/**
 * Options of the commands that act as a client of a running server (`pr`, `queue`, `targets`,
 * `metrics`, `test-run`, `health`), and where their settings come from. Later wins:
 *
 *   default (url http://127.0.0.1:8080) ← client config file ← GREENLINE_URL / GREENLINE_TOKEN ← flags
 *
 * Each setting (flag, environment variable, default, help) is described once in ClientConfigSchema
 * (src/config/schema.ts). The client config file is YAML with the keys `url`, `token`, `repo` and
 * `branch` (defaults for --repo and --branch); it is `--client-config FILE`, else
 * `$XDG_CONFIG_HOME/greenline/client.yaml`, else `~/.config/greenline/client.yaml`, and may be absent. These settings are not the server's
 * (src/config.ts): a client does not read greenline.yaml.
 */
import { homedir } from 'node:os';
import { join } from 'node:path';
import type { Command } from 'commander';
import { GreenlineClient } from '../client/index.js';
import { describeClientError } from './client-errors.js';
import { readClientConfigFile, type ClientConfigFile } from './client-config-file.js';
import { clientSettingOf, type ClientKey } from '../config/schema.js';
import { UsageError } from './usage-error.js';

export { DEFAULT_URL } from '../config/schema.js';

const option = (key: ClientKey): [string, string] => [clientSettingOf(key).flag, clientSettingOf(key).description];

export interface ClientFlags {
  url?: string;
  token?: string;
  clientConfig?: string;
  json?: boolean;
}

/** The commands on one queue add its address. */
export interface QueueFlags extends ClientFlags {
  repo?: string;
  branch?: string;
}

export interface ClientSettings {
  url: string;
  token: string | undefined;
  repo: string | undefined;
  branch: string | undefined;
}

export function withClientOptions(cmd: Command): Command {
  return cmd
    .option(...option('url'))
    .option(...option('token'))
    .option('--client-config <file>', 'client config file (default: ~/.config/greenline/client.yaml)')
    .option('--json', 'print the answer as JSON, for scripts');
}

export function withQueueOptions(cmd: Command): Command {
  return withClientOptions(cmd)
    .option(...option('repo'))
    .option(...option('branch'));
}

/** Where the client config file is looked for when --client-config is not given. */
export function defaultClientConfigPath(env: NodeJS.ProcessEnv): string {
  const base = env.XDG_CONFIG_HOME || join(env.HOME || homedir(), '.config');
  return join(base, 'greenline', 'client.yaml');
}

/** The settings of a client command (pure: reads only its arguments). */
export function resolveClientSettings(
  flags: QueueFlags,
  env: NodeJS.ProcessEnv,
  file: ClientConfigFile,
): ClientSettings {
  const pick = (flag: string | undefined, envValue: string | undefined, fileValue: string | undefined) =>
    flag ?? (envValue || undefined) ?? fileValue;
  const setting = (key: ClientKey): string | undefined => {
    const { env: name, default: byDefault } = clientSettingOf(key);
    return pick(flags[key], name === undefined ? undefined : env[name], file[key]) ?? byDefault;
  };
  return { url: setting('url')!, token: setting('token'), repo: setting('repo'), branch: setting('branch') };
}

export interface ClientContext {
  client: GreenlineClient;
  settings: ClientSettings;
}

/**
 * Runs a command's work with a client built from its flags, the environment and the config file.
 * Errors of the API or the network become one line saying what to do (client-errors.ts).
 */
/** `hints`: what to try next for error codes of this command, added to the server's message. */
export async function withClient(
  flags: QueueFlags,
  work: (ctx: ClientContext) => Promise<void>,
  opts: { needsToken?: boolean; hints?: (settings: ClientSettings) => Record<string, string> } = {},
): Promise<void> {
  const explicit = flags.clientConfig !== undefined;
  const file = readClientConfigFile(explicit ? flags.clientConfig! : defaultClientConfigPath(process.env), explicit);
  const settings = resolveClientSettings(flags, process.env, file);
  if ((opts.needsToken ?? true) && !settings.token) {
    throw new UsageError(
      'No API token: pass --token, set GREENLINE_TOKEN, or add "token:" to the client config file ' +
        '(create one with `greenline token create --org ORG`)',
    );
  }
  let client: GreenlineClient;
  try {
    client = new GreenlineClient({ url: settings.url, ...(settings.token ? { token: settings.token } : {}) });
  } catch (err) {
    throw new UsageError((err as Error).message);
  }
  try {
    await work({ client, settings });
  } catch (err) {
    throw describeClientError(err, client.url, opts.hints?.(settings));
  }
}
