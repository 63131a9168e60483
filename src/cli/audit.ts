/** `greenline audit`: the audit log of an organization, read from the server's store (docs/audit-log.md). */
import { Command } from 'commander';
import { AUDIT_ACTIONS } from '../audit/audit-log.js';
import { readAuditLog, type AuditEventView, type AuditQuery } from '../audit/audit-read.js';
import { ServiceError } from '../lib/errors.js';
import { existingOrg, withStore, withStoreOptions, type StoreFlags } from './store-options.js';

interface AuditFlags extends StoreFlags {
  org: string;
  repo?: string;
  targetBranch?: string;
  actor?: string;
  action?: string;
  from?: string;
  to?: string;
  take?: string;
  cursor?: string;
  json?: boolean;
}

/** The flag each filter is given by, to name it in an error. */
const FLAGS: Record<keyof AuditQuery, string> = {
  repo: '--repo',
  targetBranch: '--target-branch',
  actor: '--actor',
  action: '--action',
  from: '--from',
  to: '--to',
  cursor: '--cursor',
  take: '--take',
};

/** One line: time, actor, action, target, then the changes and where from. */
export function auditLine(e: AuditEventView): string {
  const what = Object.entries(e.target)
    .map(([k, v]) => `${k}=${typeof v === 'string' ? v : JSON.stringify(v)}`)
    .join(' ');
  const changes = e.changes
    ? Object.entries(e.changes)
        .map(([k, c]) => `${k}: ${JSON.stringify(c.from)} → ${JSON.stringify(c.to)}`)
        .join(', ')
    : '';
  const from = e.source ? [e.source.address, e.source.xSource ?? e.source.userAgent].filter(Boolean).join(' ') : '';
  return [
    e.at,
    `${e.actor.kind}:${e.actor.name}${e.actor.id !== e.actor.name ? ` (${e.actor.id})` : ''}`,
    e.action,
    what,
    changes && `[${changes}]`,
    from && `from ${from}`,
  ]
    .filter((part) => part !== '')
    .join('  ');
}

export function auditCommand(): Command {
  return withStoreOptions(new Command('audit'))
    .description('show the audit log of an organization: who changed what, when and from where, newest first')
    .requiredOption('--org <org>', 'the organization')
    .option('--repo <host/owner/name>', 'only changes of this repository')
    .option('--target-branch <branch>', 'only changes of the queue of this branch')
    .option(
      '--actor <id-or-name>',
      "only changes by this actor: a token's id or name, a forge login, an OS user, system",
    )
    .option('--action <action>', `only this action (${Object.keys(AUDIT_ACTIONS).join(', ')})`)
    .option('--from <time>', 'only changes at or after this ISO-8601 time')
    .option('--to <time>', 'only changes at or before this ISO-8601 time')
    .option('--take <n>', 'at most this many entries (1-100)', '50')
    .option('--cursor <cursor>', 'the next page: the cursor the previous page printed')
    .option('--json', 'print { "events": [...], "nextCursor" } as the API answers it')
    .addHelpText(
      'after',
      `
Examples:
  $ greenline audit --org acme
  $ greenline audit --org acme --repo github.com/acme/web --target-branch main --action queue.update
  $ greenline audit --org acme --actor ci-uploader --from 2026-01-01T00:00:00Z --json
  $ greenline audit --org acme --take 20 --cursor 1234`,
    )
    .action(async (opts: AuditFlags) => {
      await withStore(opts, async (db) => {
        const org = await existingOrg(db, opts.org);
        const take = Number(opts.take);
        const query: AuditQuery = {
          take: Number.isInteger(take) ? take : Number.NaN,
          ...(opts.repo !== undefined ? { repo: opts.repo } : {}),
          ...(opts.targetBranch !== undefined ? { targetBranch: opts.targetBranch } : {}),
          ...(opts.actor !== undefined ? { actor: opts.actor } : {}),
          ...(opts.action !== undefined ? { action: opts.action } : {}),
          ...(opts.from !== undefined ? { from: opts.from } : {}),
          ...(opts.to !== undefined ? { to: opts.to } : {}),
          ...(opts.cursor !== undefined ? { cursor: opts.cursor } : {}),
        };
        const page = await readAuditLog(db, org.id, query, (name) => FLAGS[name]).catch((err: unknown) => {
          // The filters are the user's: say what is wrong with them, without the API's wording.
          throw err instanceof ServiceError ? new Error(err.message.replace(/^Invalid request: /, '')) : err;
        });
        if (opts.json) {
          process.stdout.write(`${JSON.stringify(page, null, 2)}\n`);
          return;
        }
        if (page.events.length === 0) process.stdout.write('No audit log entries match.\n');
        for (const e of page.events) process.stdout.write(`${auditLine(e)}\n`);
        if (page.nextCursor)
          process.stdout.write(`More: greenline audit --org ${org.name} … --cursor ${page.nextCursor}\n`);
      });
    });
}
