/**
 * What a forge is to greenline: one description each adapter folder exports
 * (src/forge/<name>/definition.ts), listed once in src/forges.ts. The configuration, the server, the
 * HTTP app, the CLI and the links loop over that list; nothing outside the folder names the forge.
 *
 * A description says:
 * - its name (`RepoBinding['forge']`, `--forge <name>`) and its settings (config-schema entries, from
 *   which the configuration, its environment variables and docs/configuration.md are built);
 * - how its adapter is created from the resolved configuration and what every forge shares (the git
 *   forge, which builds, pushes and advances branches; the logger; the metrics), or null when the
 *   configuration does not set it up;
 * - its webhook, when it has one: the endpoint, the events it reads, the signature check, the
 *   translation of a delivery into observations, and what is logged when it is set up without one;
 * - where it shows a PR and a commit;
 * - what `greenline repo connect --forge <name>` checks before connecting a repository;
 * - settings it keeps in the data directory, and a command line of its own, when it has them.
 */
import type { Static, TObject, TProperties } from '@sinclair/typebox';
import type { Command } from 'commander';
import type { Logger } from 'pino';
import type { RepoSite } from './links.js';
import type { ForgeDelivery } from './observations.js';
import type { ForgePort, ForgeRepository, RepoBinding } from './port.js';

/** The values of a forge's settings, by their keys in the configuration. */
export type SettingValues<S extends TProperties> = Static<TObject<S>>;

/**
 * Settings that cannot work (an unreadable key file, a setting that needs another); the message says
 * which and what to do. The configuration reports it as a ConfigError.
 */
export class ForgeSettingsError extends Error {
  override name = 'ForgeSettingsError';
}

/** What a forge leaves to git: the git forge, on the repository's clone URL. */
export type GitOperations = Pick<ForgePort, 'getBranchSha' | 'createTestBranch' | 'deleteBranch' | 'advanceTarget'> &
  Required<Pick<ForgePort, 'listBranches' | 'changedFiles'>>;

/** One answer of a forge's API to its adapter, for the operator metrics (metrics/operator-metrics.ts). */
export interface ForgeApiAnswer {
  method: string;
  status: number;
  /** The client whose request budget it was: `installation <id>`, `token` or `app`. */
  client: string;
  /** The requests left in the client's budget, when the answer says. */
  remaining?: number;
}

/** What every forge is created with besides its settings. */
export interface ForgeContext {
  /** The server's data directory (git mirrors live under it). */
  dataDir: string;
  /** The forge's own logger (`part: <name>`). */
  logger: Logger;
  /** The git forge: what a forge that speaks an API leaves to git is handed to it, never imported. */
  git: ForgePort & GitOperations;
  /** Reports each answer of the forge's API, when operator metrics are on. */
  onApiAnswer?: (answer: ForgeApiAnswer) => void;
  /** The deadline of each request to the forge's API (forgeRequestTimeoutSeconds): every forge keeps it. */
  requestTimeoutMs: number;
}

/** A forge the configuration sets up: its adapter and what it hears of its own. */
export interface ConfiguredForge {
  port: ForgePort;
  /**
   * Its reading of a webhook delivery about its own access to repositories (GitHub: the App's
   * installations), which names no repository: true when the delivery was one.
   */
  observeAccess?(event: string, payload: unknown): boolean;
  /**
   * Its own translation of webhook deliveries, in place of its webhook's, when reading them needs
   * what only the configured adapter knows (GitLab: greenline's own user, an MR assigned to it being
   * a merge command).
   */
  translate?(event: string, payload: unknown): Promise<ForgeDelivery | null>;
}

/** A webhook delivery as it reached the server: its headers and the exact bytes of its body. */
export interface WebhookRequest {
  /** A header's value (the first, when repeated); undefined when absent or empty. */
  header(name: string): string | undefined;
  body: Buffer;
}

/**
 * What a forge read of a delivery: its id, event and JSON text (the body itself, or the `payload` of a
 * form), or why it is refused: an unsigned or tampered delivery (401 WEBHOOK_SIGNATURE_INVALID, with
 * the sentence that follows "the signature"), or one without a header the forge always sends.
 */
export type WebhookReading =
  | { ok: true; id: string; event: string; json: string }
  | { ok: false; refused: 'signature'; message: string }
  | { ok: false; refused: 'headers'; headers: string };

/** A forge's webhook: served at `path` when its secret is set (api/forge-webhook.ts). */
export interface ForgeWebhook<S extends TProperties = TProperties> {
  /** The endpoint, e.g. `/webhooks/github`. */
  path: string;
  /** The forge as its deliveries' senders know it, for the answers: GitHub, Gitea. */
  sender: string;
  /** The events greenline reads (X-…-Event): another is answered `ignored`, saying so. */
  events: readonly string[];
  /** The webhook's secret in the configuration; null = no webhook (changes are polled). */
  secretOf(values: SettingValues<S>): string | null;
  /** Logged at start when the forge is set up without its webhook secret: what is not received then. */
  withoutSecret: string;
  /** Verifies the signature over the raw body and reads the delivery's id, event and JSON text. */
  read(request: WebhookRequest, secret: string): Promise<WebhookReading>;
  /** The delivery as observations of a repository; null when it names none. */
  translate(event: string, payload: unknown): ForgeDelivery | null;
}

/** Where a forge shows a PR and a commit, in its own form; null = none known. */
export interface ForgeLinks {
  pr(site: RepoSite, n: number): string | null;
  commit(site: RepoSite, sha: string): string | null;
}

/** `greenline repo connect`'s flags (undefined = not given). */
export interface ConnectFlags {
  /** --remote made absolute (a local path resolved against the current directory). */
  remote?: string;
  /** --remote as typed. */
  remoteGiven?: string;
  ciCommand?: string;
  installationId?: string;
  giteaUrl?: string;
  gitlabUrl?: string;
  /** false with --no-remote-check. */
  remoteCheck: boolean;
}

/** What the forge makes of the connect flags: the binding's fields it sets. */
export interface ConnectPlan {
  remote: string | null;
  /** What only this forge reads of the binding (RepoBinding.forgeData), e.g. GitHub's installation id. */
  forgeData?: Readonly<Record<string, unknown>>;
  /** Where the forge shows the PRs of the repository connected as `slug`, unless --pr-url-template says. */
  prUrlTemplate?: (slug: string) => string;
}

/** The repository as its forge spells it (app/admin/repo-admin.ts: spellingOf). */
export interface Spelling {
  slug: string;
  /** A sentence for the user when the forge spells it otherwise than given; null when not. */
  respelled: string | null;
  defaultBranch: string | null;
}

/** What the connect check has at hand; the configuration is read only when asked for. */
export interface ConnectCheck<S extends TProperties> {
  flags: ConnectFlags;
  binding: RepoBinding;
  settings(): SettingValues<S>;
  context(): Promise<ForgeContext>;
  /** The spelling of what the forge described; throws, saying so, when it described nothing (null). */
  spell(described: ForgeRepository | null): Spelling;
}

/** What `greenline repo connect --forge <name>` checks and says. */
export interface ForgeConnect<S extends TProperties = TProperties> {
  /** How messages name the forge: `GitHub`, `The git forge`. */
  title: string;
  /** Where greenline's access to a repository is given, for the message saying it has none. */
  accessHint: string;
  /** The message saying the forge has no such repository names the server (the binding's remote). */
  namesServer?: true;
  /** The connect flags only this forge takes: another forge refuses them, naming this one. */
  ownFlags?: readonly (keyof ConnectFlags)[];
  /**
   * The flags checked for this forge (a ForgeSettingsError names the one that does not fit) and what
   * the binding gets from them; `settings` is read only when needed.
   */
  plan(flags: ConnectFlags, host: string, settings: () => SettingValues<S>): ConnectPlan;
  /**
   * Reads the repository before connecting (not with --no-remote-check): its spelling, if the forge
   * told it, and sentences saying what was found; a ForgeSettingsError when it cannot be reached or
   * refuses, saying what to do.
   */
  check(check: ConnectCheck<S>): Promise<{ spelled: Spelling | null; said: string[] }>;
  /** Where the repository is reached, for the line saying it was connected. */
  where(row: { remote: string | null }, flags: ConnectFlags, plan: ConnectPlan, spelled: Spelling | null): string;
}

/** What a forge's own command line is given by the CLI. */
export interface ForgeCommandContext {
  /** The server's settings a command reads, as `serve` reads them with these flags and the environment. */
  config(flags: { dataDir?: string; config?: string }): {
    dataDir: string;
    publicUrl: string | null;
    forgeRequestTimeoutSeconds: number;
  };
  /** A mistake in how the command was called: the message says what to do (exit code 2). */
  usage(message: string): Error;
  /** Where the command writes what it says. */
  out(text: string): void;
}

export interface ForgeDefinition<Name extends string = string, S extends TProperties = TProperties> {
  readonly name: Name;
  /** Its settings, each with its environment variable and meaning (lib/settings.ts). */
  readonly settings: S;
  /**
   * greenline.yaml's mapping of its settings by their short names (`github: { appId }` is
   * `githubAppId`): the mapping's key, and how messages call its contents.
   */
  readonly settingsBlock?: { key: string; of: string };
  /** Settings that only work together: a ForgeSettingsError says what is missing. */
  checkSettings?(values: SettingValues<S>): void;
  /** Its adapter, or null when the configuration does not set it up; a ForgeSettingsError for settings that cannot work. */
  create(values: SettingValues<S>, context: ForgeContext): ConfiguredForge | null;
  readonly webhook?: ForgeWebhook<S>;
  readonly links: ForgeLinks;
  readonly connect: ForgeConnect<S>;
  /**
   * A file of the data directory holding settings greenline wrote itself (its settingsBlock's mapping,
   * paths relative to the data directory), read beneath greenline.yaml: e.g. the GitHub App that
   * `greenline github app create` registered.
   */
  readonly storedSettingsFile?: string;
  /** Its own command line, `greenline <name> …`, for what is done on the forge itself. */
  command?(cli: ForgeCommandContext): Command;
}

/** The JSON text of a body: itself, or its `payload` field when the forge posts it form-encoded. */
export function jsonTextOf(request: WebhookRequest, text: string): string {
  const type = request.header('content-type') ?? '';
  return type.startsWith('application/x-www-form-urlencoded') ? (new URLSearchParams(text).get('payload') ?? '') : text;
}
