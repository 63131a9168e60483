/**
 * `greenline webhook add | list | remove | rotate-secret | enable | deliveries | redeliver`: webhook
 * subscriptions of organizations, on the server's store directly (docs/webhooks.md). A running server
 * picks up changes within seconds.
 */
import { Command } from 'commander';
import { ensureOrg } from '../app/admin/org-admin.js';
import { cliCaller } from './cli-caller.js';
import { WebhookAdmin, viewOf, type DeliveryView } from '../webhooks/admin.js';
import { EVENT_TYPES, QUEUE_EVENT_TYPES } from '../webhooks/events.js';
import { systemClock } from '../lib/clock.js';
import type { Db } from '../store/connect.js';
import {
  idCommand,
  orgsForListing,
  withStore,
  withStoreOptions,
  type StoreFlags,
  urlPolicyOf,
} from './store-options.js';
import { isoOrDash } from './output.js';
import { findSubscription, listSubscriptions } from '../store/webhooks.js';

/** The admin over the store, with the URL allow-list of the server's configuration. */
const adminOf = (db: Db, flags: StoreFlags): WebhookAdmin =>
  new WebhookAdmin({ db, clock: systemClock, policy: urlPolicyOf(flags) });

function deliveryLines(d: DeliveryView): string {
  const head =
    `${d.id}  ${d.eventType}  ${d.status}  attempts ${d.attempts}  created ${isoOrDash(d.createdAt)}` +
    (d.status === 'pending' ? `  next ${isoOrDash(d.nextAttemptAt)}` : '') +
    (d.deliveredAt !== null ? `  delivered ${isoOrDash(d.deliveredAt)}` : '') +
    (d.waiting !== null ? `\n  ${d.waiting}` : '');
  const attempts = d.attemptLog.map(
    (a) =>
      `    ${isoOrDash(a.at)}  ${a.success ? 'ok' : 'failed'}  ${a.statusCode ?? '-'}  ${a.durationMs} ms` +
      `${a.manual ? '  (redelivery)' : ''}${a.error ? `  ${a.error}` : ''}`,
  );
  return [head, ...attempts].join('\n');
}

export function webhookCommand(): Command {
  const webhook = new Command('webhook')
    .description('subscribe URLs to queue events, and inspect and resend deliveries')
    .addHelpText(
      'after',
      `
Examples:
  $ greenline webhook add https://hooks.example.com/greenline --org acme
  $ greenline webhook list --org acme
  $ greenline webhook deliveries 6f1c2a7e-…

Events: ${EVENT_TYPES.join(', ')} (the default: all of these);
and, only when named with --events: ${QUEUE_EVENT_TYPES.join(', ')}.
See docs/webhooks.md for payloads, signatures and the retry schedule.`,
    );

  withStoreOptions(webhook.command('add'))
    .description(
      "subscribe a URL to the events of an organization's queues; the signing secret is printed once, alone on the last line",
    )
    .argument('<url>', 'an absolute http:// or https:// URL')
    .requiredOption('--org <org>', 'organization whose queue events to send (created if missing)')
    .option('--events <types>', 'comma-separated event types to send (default: all)')
    .addHelpText(
      'after',
      `
Examples:
  $ greenline webhook add https://hooks.example.com/greenline --org acme
  $ greenline webhook add http://127.0.0.1:9000/hook --org acme --events pull_request.merged,pull_request.failed
  $ SECRET=$(greenline webhook add https://hooks.example.com/x --org acme | tail -n 1)`,
    )
    .action(async (url: string, opts: StoreFlags & { org: string; events?: string }) => {
      await withStore(opts, async (db) => {
        const org = await ensureOrg(db, opts.org, Date.now(), cliCaller());
        const events = opts.events === undefined ? null : opts.events.split(',');
        const { webhook: w, secret } = await adminOf(db, opts).create(org, url, events, cliCaller());
        process.stdout.write(
          `Created webhook ${w.id} for organization ${org.name}: ${w.url} (${w.events?.join(', ') ?? 'all events'}).\n` +
            `Its signing secret is shown only this once:\n${secret}\n`,
        );
      });
    });

  withStoreOptions(webhook.command('list'))
    .description('list webhook subscriptions (never their secrets)')
    .option('--org <org>', 'only the subscriptions of this organization')
    .addHelpText(
      'after',
      `
Examples:
  $ greenline webhook list
  $ greenline webhook list --org acme`,
    )
    .action(async (opts: StoreFlags & { org?: string }) => {
      await withStore(opts, async (db) => {
        const orgs = await orgsForListing(db, opts.org);
        const rows = await listSubscriptions(db, orgs.filter);
        if (rows.length === 0) process.stdout.write('No webhooks.\n');
        for (const r of rows) {
          const w = viewOf(r, await orgs.nameOf(r.org_id));
          const state = w.enabled ? 'enabled' : `disabled: ${w.disabledReason ?? ''}`;
          process.stdout.write(
            `${w.id}  ${w.org}  ${w.url}  ${w.events?.join(',') ?? 'all events'}  created ${isoOrDash(w.createdAt)}  ${state}\n`,
          );
        }
      });
    });

  const subscriptionCommand = (name: string, description: string, exampleFlags = '') =>
    idCommand(webhook, name, description, 'subscription id (see `webhook list`)', exampleFlags);

  subscriptionCommand('remove', 'remove a subscription and its deliveries (pending ones are not sent)').action(
    async (id: string, opts: StoreFlags) => {
      await withStore(opts, async (db) => {
        await adminOf(db, opts).remove(null, id, cliCaller());
        process.stdout.write(`Removed webhook ${id}.\n`);
      });
    },
  );

  subscriptionCommand(
    'rotate-secret',
    "replace a subscription's signing secret; the new one is printed once, alone on the last line, and the old one stops at once",
  ).action(async (id: string, opts: StoreFlags) => {
    await withStore(opts, async (db) => {
      const secret = await adminOf(db, opts).rotateSecret(null, id, cliCaller());
      process.stdout.write(`New signing secret of webhook ${id}, shown only this once:\n${secret}\n`);
    });
  });

  subscriptionCommand('enable', 'enable a subscription that was disabled after 5 days of failed deliveries').action(
    async (id: string, opts: StoreFlags) => {
      await withStore(opts, async (db) => {
        await adminOf(db, opts).enable(null, id, cliCaller());
        process.stdout.write(`Enabled webhook ${id}.\n`);
      });
    },
  );

  subscriptionCommand(
    'deliveries',
    "list a subscription's latest deliveries, newest first, with every attempt (time, result, HTTP status, duration, error)",
    '--limit 5',
  )
    .option('--limit <n>', 'at most this many deliveries', '20')
    .action(async (id: string, opts: StoreFlags & { limit: string }) => {
      const limit = Number(opts.limit);
      if (!Number.isInteger(limit) || limit < 1 || limit > 1000)
        throw new Error(`--limit must be an integer from 1 to 1000, got ${opts.limit}`);
      await withStore(opts, async (db) => {
        if (!(await findSubscription(db, id)))
          throw new Error(`No webhook has id ${id}; see \`greenline webhook list\``);
        const deliveries = await adminOf(db, opts).deliveries(null, id, limit);
        if (deliveries.length === 0) process.stdout.write('No deliveries.\n');
        for (const d of deliveries) process.stdout.write(`${deliveryLines(d)}\n`);
      });
    });

  withStoreOptions(webhook.command('redeliver'))
    .description('send a delivery again with the same webhook-id and body (a running server sends it within seconds)')
    .argument('<delivery-id>', 'the delivery id, msg_… (see `webhook deliveries`)')
    .addHelpText(
      'after',
      `
Example:
  $ greenline webhook redeliver msg_2f0c9d1e8b7a4c3d9e1f0a2b3c4d5e6f`,
    )
    .action(async (deliveryId: string, opts: StoreFlags) => {
      await withStore(opts, async (db) => {
        await adminOf(db, opts).redeliver(null, deliveryId, cliCaller());
        process.stdout.write(`Delivery ${deliveryId} will be sent again.\n`);
      });
    });
  return webhook;
}
