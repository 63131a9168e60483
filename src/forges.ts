/**
 * The list of forges: the one place that names every forge adapter (src/forge/<name>/). The
 * configuration's settings, the server's adapters and webhook routes, `repo connect --forge` and the
 * links to PRs and commits loop over it; adding a forge is its folder and one line here
 * (ARCHITECTURE.md, "Adding a forge").
 */
import type { Logger } from 'pino';
import type { ForgeApiAnswer, ForgeContext, ForgeDefinition, SettingValues } from './forge/definition.js';
import type { ForgeName } from './forge/port.js';
import { createGitForge, gitForge } from './forge/git/index.js';
import type { SigningKey } from './git/signing.js';
import { giteaForge } from './forge/gitea/index.js';
import { githubForge } from './forge/github/index.js';
import { gitlabForge } from './forge/gitlab/index.js';
import { type RepoSite, repoWebUrl } from './forge/links.js';

export type { ForgeName } from './forge/port.js';

/** The forges, in the order their settings are listed (docs/configuration.md) and their adapters created. */
export const FORGES = [gitForge, githubForge, giteaForge, gitlabForge] as const;

/**
 * Every forge with a folder is listed: each folder adds its name to `ForgeName` (forge/port.ts), and
 * this fails to compile when one is not in the list.
 */
type Unlisted = Exclude<ForgeName, (typeof FORGES)[number]['name']>;
true satisfies [Unlisted] extends [never] ? true : { unlisted: Unlisted };

export const FORGE_NAMES: readonly ForgeName[] = FORGES.map((f) => f.name);

/** The forge of that name (a repository's `forge`). */
export const forgeNamed = (name: ForgeName): ForgeDefinition => FORGES.find((f) => f.name === name)!;

type AllOf<T> = (T extends unknown ? (x: T) => void : never) extends (x: infer I) => void ? I : never;

/** Every forge's settings, in the list's order. */
export type ForgeSettings = AllOf<(typeof FORGES)[number]['settings']>;
export const FORGE_SETTINGS = Object.assign({}, ...FORGES.map((f) => f.settings)) as ForgeSettings;
export type ForgeSettingValues = SettingValues<ForgeSettings>;

/**
 * What every forge is created with besides its settings: the git forge (created here, the one
 * instance every forge is handed, signing what it writes with `signingKey`), the logger and the
 * metrics hook. `logger` is the forge's own.
 */
export function forgeContext(
  dataDir: string,
  requestTimeoutMs: number,
  logger: Logger,
  onApiAnswer?: (answer: ForgeApiAnswer) => void,
  signingKey: SigningKey | null = null,
): (name: ForgeName) => ForgeContext {
  const git = createGitForge({ dataDir, logger: logger.child({ part: 'git' }), signingKey });
  return (name) => ({
    dataDir,
    git,
    requestTimeoutMs,
    logger: logger.child({ part: name }),
    ...(onApiAnswer ? { onApiAnswer } : {}),
  });
}

/** The PR's web address: the repository's template, else the forge's own form; null when none is known. */
export function prWebUrl(r: RepoSite, n: number): string | null {
  if (r.pr_url_template) return r.pr_url_template.replaceAll('{n}', String(n));
  return forgeNamed(r.forge).links.pr(r, n);
}

/**
 * The PR's web address for the fields Trunk's contract types as strings: as `prWebUrl`, with
 * GitHub's form where no address is known (what Trunk's clients expect of every repository).
 */
export const prWebUrlOrGitHubForm = (r: RepoSite, n: number): string => prWebUrl(r, n) ?? `${repoWebUrl(r)}/pull/${n}`;

/** `{ url }` with the PR's web address, or nothing where none is known (v2's optional `url` fields). */
export const prUrlField = (r: RepoSite, n: number): { url?: string } => {
  const url = prWebUrl(r, n);
  return url === null ? {} : { url };
};

/** The commit's web address in the forge's own form; null when none is known. */
export const commitWebUrl = (r: RepoSite, sha: string): string | null => forgeNamed(r.forge).links.commit(r, sha);
