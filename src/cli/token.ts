/** `greenline token create | list | revoke`: API tokens of organizations, their scopes, repositories and expiry. */
import { Command } from 'commander';
import { ensureOrg } from '../app/admin/org-admin.js';
import { createApiToken, revokeToken } from '../app/admin/tokens.js';
import { repoSlug } from '../app/repo-binding.js';
import { SCOPE_DESCRIPTIONS, SCOPES, parseScopes, type Scope } from '../app/scopes.js';
import { DAY_MS, HOUR_MS, MINUTE_MS, SECOND_MS } from '../lib/time.js';
import { listApiTokens } from '../store/api-tokens.js';
import type { ApiTokenRow } from '../store/database.js';
import { listRepos } from '../store/repos.js';
import { cliCaller } from './cli-caller.js';
import { existingOrg, orgsForListing, withStore, withStoreOptions, type StoreFlags } from './store-options.js';

const UNIT_MS = { s: SECOND_MS, m: MINUTE_MS, h: HOUR_MS, d: DAY_MS } as const;

/** A duration such as `45s`, `30m`, `12h` or `90d`, in ms; throws saying what is accepted. */
export function parseDuration(text: string): number {
  const match = /^([1-9]\d{0,5})([smhd])$/.exec(text.trim());
  if (!match)
    throw new Error(
      `--expires-in ${JSON.stringify(text)} is not a duration; give a whole number and a unit: 45s, 30m, 12h or 90d`,
    );
  return Number(match[1]) * UNIT_MS[match[2] as keyof typeof UNIT_MS];
}

const SCOPE_HELP = SCOPES.map((s) => `  ${s.padEnd(28)}${SCOPE_DESCRIPTIONS[s]}`).join('\n');

const collect = (value: string, previous: string[]): string[] => [...previous, value];

const when = (ms: number | null, never: string): string => (ms === null ? never : new Date(ms).toISOString());

/** One line of `token list`. */
function tokenLine(r: ApiTokenRow, orgName: string): string {
  const scopes = r.scopes === null ? 'every scope' : (JSON.parse(r.scopes) as Scope[]).join(',');
  const repos = r.repos === null ? 'every repository' : (JSON.parse(r.repos) as string[]).join(',');
  const state = r.revoked_at === null ? 'active' : `revoked ${when(r.revoked_at, '')}`;
  return [
    r.id,
    orgName,
    r.name,
    `scopes ${scopes}`,
    `repos ${repos}`,
    `created ${when(r.created_at, '')}`,
    `last used ${when(r.last_used_at, 'never')}`,
    `expires ${when(r.expires_at, 'never')}`,
    state,
  ].join('  ');
}

export function tokenCommand(): Command {
  const token = new Command('token').description('create, list and revoke API tokens').addHelpText(
    'after',
    `
Examples:
  $ greenline token create --org acme --name ci-uploader --scopes impacted_targets:write --repo github.com/acme/web
  $ greenline token list --org acme
  $ greenline token revoke 6f1c2a7e-…`,
  );

  withStoreOptions(token.command('create'))
    .description('create an API token for an organization; the token is printed once, alone on the last line')
    .requiredOption('--org <org>', 'organization the token belongs to (it must exist, unless --create-org)')
    .option('--create-org', 'create the organization when it does not exist yet')
    .option('--name <label>', 'a label to recognise the token by', 'cli')
    .option('--scopes <list>', 'comma-separated scopes the token has (default: every scope); read comes with each')
    .option(
      '--repo <host/owner/name>',
      'limit the token to this repository, connected to the organization (repeatable; default: all of them)',
      collect,
      [],
    )
    .option('--expires-in <duration>', 'the token expires after this long: 45s, 30m, 12h, 90d (default: never)')
    .addHelpText(
      'after',
      `
Scopes:
${SCOPE_HELP}

A token created without --scopes has every scope (the command says so). An unknown organization is
an error that lists the existing ones, so a typo never creates one. See docs/security.md.

Examples:
  $ greenline token create --org acme --name ci
  $ greenline token create --org acme --name ci-uploader --scopes impacted_targets:write --repo github.com/acme/web
  $ greenline token create --org acme --name ci-status --scopes test_runs:report --expires-in 90d
  $ greenline token create --org acme --name viewer --scopes read
  $ greenline token create --org newteam --create-org --name ci
  $ TOKEN=$(greenline token create --org acme --name deploy --scopes pull_requests:write | tail -n 1)`,
    )
    .action(
      async (
        opts: StoreFlags & {
          org: string;
          name: string;
          createOrg?: boolean;
          scopes?: string;
          repo: string[];
          expiresIn?: string;
        },
      ) => {
        // Checked before the store is opened: a typo changes nothing.
        const scopes = opts.scopes === undefined ? undefined : parseScopes(opts.scopes);
        const lifetime = opts.expiresIn === undefined ? undefined : parseDuration(opts.expiresIn);
        await withStore(opts, async (db) => {
          const org = opts.createOrg
            ? await ensureOrg(db, opts.org, Date.now(), cliCaller())
            : await existingOrg(
                db,
                opts.org,
                `pass --create-org to create it (greenline token create --org ${opts.org} --create-org)`,
              );
          const repos = opts.repo.map((r) => r.trim().toLowerCase());
          if (repos.length > 0) {
            const connected = (await listRepos(db, org.id)).map((r) => repoSlug(r).toLowerCase());
            const unknown = repos.filter((r) => !connected.includes(r));
            if (unknown.length > 0)
              throw new Error(
                `--repo ${unknown.join(', ')}: not connected to organization ${org.name} (${
                  connected.length === 0
                    ? 'it has no repository yet; see greenline repo add'
                    : `its repositories: ${connected.join(', ')}`
                })`,
              );
          }
          const now = Date.now();
          const expiresAt = lifetime === undefined ? undefined : now + lifetime;
          const { id, token: secret } = await createApiToken(
            db,
            org.id,
            opts.name,
            now,
            {
              ...(scopes ? { scopes } : {}),
              ...(repos.length > 0 ? { repos } : {}),
              ...(expiresAt !== undefined ? { expiresAt } : {}),
            },
            cliCaller(),
          );
          const what = [
            scopes
              ? `scopes ${['read', ...scopes.filter((s) => s !== 'read')].join(', ')}`
              : 'every scope (no --scopes given; pass --scopes to limit it)',
            repos.length > 0 ? `repositories ${repos.join(', ')}` : 'every repository of the organization',
            expiresAt !== undefined ? `expires ${new Date(expiresAt).toISOString()}` : 'never expires',
          ];
          process.stdout.write(
            `Created token ${id} "${opts.name}" for organization ${org.name}: ${what.join('; ')}. It is shown only this once:\n${secret}\n`,
          );
        });
      },
    );

  withStoreOptions(token.command('list'))
    .description('list tokens (never their secrets): name, scopes, repositories, created, last used, expires')
    .option('--org <org>', 'only the tokens of this organization')
    .addHelpText(
      'after',
      `
Last use is recorded to the minute.

Examples:
  $ greenline token list
  $ greenline token list --org acme --data-dir /var/lib/greenline`,
    )
    .action(async (opts: StoreFlags & { org?: string }) => {
      await withStore(opts, async (db) => {
        const orgs = await orgsForListing(db, opts.org);
        const rows = await listApiTokens(db, orgs.filter);
        if (rows.length === 0) process.stdout.write('No tokens.\n');
        for (const r of rows) process.stdout.write(`${tokenLine(r, await orgs.nameOf(r.org_id))}\n`);
      });
    });

  withStoreOptions(token.command('revoke'))
    .description(
      'revoke a token by its id (see `token list`); a running server refuses it within a second (it remembers valid tokens for 1 s)',
    )
    .argument('<id>', 'token id')
    .addHelpText(
      'after',
      `
Example:
  $ greenline token revoke 6f1c2a7e-0b6d-4f5e-9a1c-3d2b8e7f6a5c`,
    )
    .action(async (id: string, opts: StoreFlags) => {
      await withStore(opts, async (db) => {
        if (!(await revokeToken(db, id, Date.now(), cliCaller())))
          throw new Error(`No active token has id ${id}; see \`greenline token list\``);
        process.stdout.write(`Revoked token ${id}.\n`);
      });
    });
  return token;
}
