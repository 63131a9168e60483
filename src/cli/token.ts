/** `greenline token create | list | revoke`: API tokens of organizations. */
import { Command } from 'commander';
import { ensureOrg } from '../app/admin/org-admin.js';
import { createApiToken, revokeToken } from '../app/admin/tokens.js';
import { listApiTokens } from '../store/api-tokens.js';
import { cliCaller } from './cli-caller.js';
import { existingOrg, orgsForListing, withStore, withStoreOptions, type StoreFlags } from './store-options.js';

export function tokenCommand(): Command {
  const token = new Command('token').description('create, list and revoke API tokens').addHelpText(
    'after',
    `
Examples:
  $ greenline token create --org acme --name ci
  $ greenline token list --org acme
  $ greenline token revoke 6f1c2a7e-…`,
  );

  withStoreOptions(token.command('create'))
    .description('create an API token for an organization; the token is printed once, alone on the last line')
    .requiredOption('--org <org>', 'organization the token belongs to (it must exist, unless --create-org)')
    .option('--create-org', 'create the organization when it does not exist yet')
    .option('--name <label>', 'a label to recognise the token by', 'cli')
    .addHelpText(
      'after',
      `
An unknown organization is an error that lists the existing ones, so a typo never creates one.

Examples:
  $ greenline token create --org acme --name ci
  $ greenline token create --org newteam --create-org --name ci
  $ TOKEN=$(greenline token create --org acme --name deploy | tail -n 1)`,
    )
    .action(async (opts: StoreFlags & { org: string; name: string; createOrg?: boolean }) => {
      await withStore(opts, async (db) => {
        const org = opts.createOrg
          ? await ensureOrg(db, opts.org, Date.now(), cliCaller())
          : await existingOrg(
              db,
              opts.org,
              `pass --create-org to create it (greenline token create --org ${opts.org} --create-org)`,
            );
        const { id, token: secret } = await createApiToken(db, org.id, opts.name, Date.now(), {}, cliCaller());
        process.stdout.write(
          `Created token ${id} "${opts.name}" for organization ${org.name}. It is shown only this once:\n${secret}\n`,
        );
      });
    });

  withStoreOptions(token.command('list'))
    .description('list tokens (never their secrets)')
    .option('--org <org>', 'only the tokens of this organization')
    .addHelpText(
      'after',
      `
Examples:
  $ greenline token list
  $ greenline token list --org acme --data-dir /var/lib/greenline`,
    )
    .action(async (opts: StoreFlags & { org?: string }) => {
      await withStore(opts, async (db) => {
        const orgs = await orgsForListing(db, opts.org);
        const rows = await listApiTokens(db, orgs.filter);
        if (rows.length === 0) process.stdout.write('No tokens.\n');
        for (const r of rows) {
          const orgName = await orgs.nameOf(r.org_id);
          const state = r.revoked_at === null ? 'active' : `revoked ${new Date(r.revoked_at).toISOString()}`;
          process.stdout.write(
            `${r.id}  ${orgName}  ${r.name}  created ${new Date(r.created_at).toISOString()}  ${state}\n`,
          );
        }
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
