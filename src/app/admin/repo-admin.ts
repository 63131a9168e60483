/**
 * Connecting repositories to an organization: shared by the CLI and tests. A repository's name is
 * case-insensitive (one repository, whatever the letter case); it is stored as its forge spells it.
 */
import { randomUUID } from 'node:crypto';
import path from 'node:path';
import type { Kysely } from 'kysely';
import { isLocalPath } from '../../git/remote-path.js';
import { TERMINAL_STATES } from '../../engine/types.js';
import type { Spelling } from '../../forge/definition.js';
import type { ForgePort, RepoBinding } from '../../forge/port.js';
import { forgeNamed } from '../../forges.js';
import { inTransaction } from '../../store/transaction.js';
import type { Database, RepoRow } from '../../store/database.js';
import { listActivePrNumbers } from '../../store/entries.js';
import { listQueuesOfRepos } from '../../store/queues.js';
import { forgeDataColumns } from '../repo-binding.js';
import { deleteRepo, findRepo, insertRepo } from '../../store/repos.js';
import { recordAudit, SYSTEM, type AuditCaller } from '../../audit/audit-log.js';
import { ensureOrg } from './org-admin.js';

export const DEFAULT_PR_REF_PATTERN = 'refs/pull/{n}/head';
export const DEFAULT_TEST_BRANCH_PREFIX = 'greenline-merge';

export interface ConnectRepoRequest {
  org: string;
  /** `host/owner/name`, e.g. `github.com/acme/web`. */
  slug: string;
  forge: RepoBinding['forge'];
  remote?: string | null;
  ciCommand?: string | null;
  prRefPattern?: string;
  testBranchPrefix?: string;
  requiredStatuses?: string[];
  /** What only the forge reads (RepoBinding.forgeData), e.g. the github forge's `{ installationId }`. */
  forgeData?: Record<string, unknown>;
  /** Where a PR is shown on its forge, `{n}` = PR number; absent = the forge's own form (src/forge/links.ts). */
  prUrlTemplate?: string;
}

const SEGMENT = /^[A-Za-z0-9._-]+$/;

/**
 * Splits `host/owner/name`; the owner may be a path of groups (GitLab's subgroups:
 * `gitlab.example.com/group/sub/project` is owner `group/sub`). Throws a message saying what a valid
 * one looks like.
 */
export function parseRepoSlug(slug: string): { host: string; owner: string; name: string } {
  const parts = slug.split('/');
  if (parts.length < 3 || !parts.every((p) => SEGMENT.test(p) && p !== '.' && p !== '..')) {
    throw new Error(
      `Invalid repository "${slug}": write it as HOST/OWNER/NAME, e.g. github.com/acme/web (a GitLab subgroup's project as HOST/GROUP/SUBGROUP/NAME)`,
    );
  }
  return { host: parts[0]!, owner: parts.slice(1, -1).join('/'), name: parts[parts.length - 1]! };
}

/**
 * The repository of `req` as its forge spells it, asked of the forge before connecting: `slug` is what
 * to connect (the forge's own owner/name, e.g. GitHub's `Acme/Web` for `acme/web`), `respelled` a
 * sentence for the user when that differs from the name given (null otherwise). Names are
 * case-insensitive, but the forge's webhook payloads and links carry its own spelling. A forge that
 * cannot describe repositories keeps the name given; a repository the forge does not show is refused.
 */
export async function forgeSpelling(forge: ForgePort, req: ConnectRepoRequest): Promise<Spelling> {
  if (!forge.describeRepository) return { slug: req.slug, respelled: null, defaultBranch: null };
  return spellingOf(req, await forge.describeRepository(pendingBinding(req)));
}

/** The binding the repository of `req` will have, before it is stored (so without an id). */
export function pendingBinding(req: ConnectRepoRequest): RepoBinding {
  return {
    id: '',
    org: req.org,
    repo: parseRepoSlug(req.slug),
    forge: req.forge,
    remote: req.remote ?? null,
    prRefPattern: req.prRefPattern ?? DEFAULT_PR_REF_PATTERN,
    ciCommand: req.ciCommand ?? null,
    testBranchPrefix: req.testBranchPrefix ?? DEFAULT_TEST_BRANCH_PREFIX,
    forgeData: req.forgeData ?? null,
  };
}

/** forgeSpelling of what the forge described (null: it has no such repository greenline may read). */
export function spellingOf(
  req: ConnectRepoRequest,
  described: { owner: string; name: string; defaultBranch: string | null } | null,
): Spelling {
  const { host, owner, name } = parseRepoSlug(req.slug);
  // How the forge is named to the user, and where greenline's access to a repository is given.
  const { title: forgeName, accessHint, namesServer } = forgeNamed(req.forge).connect;
  if (!described) {
    throw new Error(
      `${forgeName}${namesServer && req.remote ? ` at ${req.remote}` : ''} has no repository ${owner}/${name} that greenline may read: check the name, and greenline's access to it${accessHint}`,
    );
  }
  const slug = `${host}/${described.owner}/${described.name}`;
  const respelled =
    slug === req.slug ? null : `${forgeName} spells it ${described.owner}/${described.name}; connected as ${slug}`;
  return { slug, respelled, defaultBranch: described.defaultBranch };
}

export async function connectRepo(
  db: Kysely<Database>,
  req: ConnectRepoRequest,
  at: number,
  by: AuditCaller = SYSTEM,
): Promise<RepoRow> {
  const { host, owner, name } = parseRepoSlug(req.slug);
  if (req.prRefPattern !== undefined && !req.prRefPattern.includes('{n}')) {
    throw new Error(`Invalid PR ref pattern "${req.prRefPattern}": it must contain {n}, e.g. refs/pull/{n}/head`);
  }
  if (req.prUrlTemplate !== undefined && !/^https?:\/\/[^/]+.*\{n\}/.test(req.prUrlTemplate)) {
    throw new Error(
      `Invalid PR URL template "${req.prUrlTemplate}": an http(s) URL containing {n}, e.g. https://git.example.com/acme/web/pulls/{n}`,
    );
  }
  // git runs in a mirror under the data dir: a relative path would name a place there.
  if (req.remote && isLocalPath(req.remote) && !path.isAbsolute(req.remote)) {
    throw new Error(
      `Remote "${req.remote}" is a relative path: give it absolute (greenline repo connect resolves it against the current directory)`,
    );
  }
  const prefix = req.testBranchPrefix ?? DEFAULT_TEST_BRANCH_PREFIX;
  if (!/^[A-Za-z0-9._-]+(\/[A-Za-z0-9._-]+)*$/.test(prefix)) {
    throw new Error(`Invalid test branch prefix "${prefix}": use a branch-name path such as greenline-merge`);
  }
  const connected = await findRepo(db, host, owner, name);
  if (connected) {
    const as = `${connected.host}/${connected.owner}/${connected.name}`;
    throw new Error(
      as === req.slug
        ? `Repository ${req.slug} is already connected; disconnect it first to change its settings`
        : `Repository ${req.slug} is already connected as ${as} (names are case-insensitive: both name one repository); disconnect ${as} first to change its settings`,
    );
  }
  const org = await ensureOrg(db, req.org, at, by);
  const row: RepoRow = {
    id: randomUUID(),
    org_id: org.id,
    host,
    owner,
    name,
    forge: req.forge,
    remote: req.remote ?? null,
    pr_ref_pattern: req.prRefPattern ?? DEFAULT_PR_REF_PATTERN,
    ci_command: req.ciCommand ?? null,
    test_branch_prefix: prefix,
    required_statuses:
      req.requiredStatuses && req.requiredStatuses.length > 0 ? JSON.stringify(req.requiredStatuses) : null,
    created_at: at,
    ...forgeDataColumns(req.forgeData),
    ...(req.prUrlTemplate !== undefined ? { pr_url_template: req.prUrlTemplate } : {}),
  };
  await inTransaction(db, async (trx) => {
    await insertRepo(trx, row);
    await recordAudit(trx, {
      orgId: org.id,
      at,
      by,
      action: 'repo.connect',
      target: { org: org.name, repo: `${host}/${owner}/${name}`, forge: req.forge },
    });
  });
  return row;
}

/**
 * Disconnects a repository and deletes its queues. Refuses while any queue still holds a PR, so that
 * no submission is silently dropped.
 */
export async function disconnectRepo(
  db: Kysely<Database>,
  slug: string,
  by: AuditCaller = SYSTEM,
  at = Date.now(),
): Promise<void> {
  const { host, owner, name } = parseRepoSlug(slug);
  const repo = await findRepo(db, host, owner, name);
  if (!repo) throw new Error(`Repository ${slug} is not connected`);
  for (const q of await listQueuesOfRepos(db, [repo.id])) {
    const prs = await listActivePrNumbers(db, q.id, TERMINAL_STATES);
    if (prs.length > 0) {
      throw new Error(
        `The queue for branch "${q.target_branch}" of ${slug} still holds ${prs.map((n) => `#${n}`).join(', ')}; cancel them first (greenline pr cancel ${prs[0]} --repo ${slug} --branch ${q.target_branch}, or the dashboard), then disconnect it`,
      );
    }
  }
  await inTransaction(db, async (trx) => {
    await deleteRepo(trx, repo.id);
    await recordAudit(trx, {
      orgId: repo.org_id,
      at,
      by,
      action: 'repo.disconnect',
      target: { repo: `${repo.host}/${repo.owner}/${repo.name}` },
    });
  });
}
