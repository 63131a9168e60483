/**
 * `greenline notify add | list | remove | enable | test`: chat notification channels of organizations
 * (Slack, Microsoft Teams, generic chat webhooks), on the server's store directly
 * (docs/notifications.md). A running server picks up changes at the next event.
 */
import { Argument, Command } from 'commander';
import { ensureOrg } from '../app/admin/org-admin.js';
import { cliCaller } from './cli-caller.js';
import { systemClock } from '../lib/clock.js';
import { NotifyAdmin, type ChannelView } from '../notify/admin.js';
import { DEFAULT_NOTIFY_EVENTS, NOTIFY_EVENTS, NOTIFY_KINDS } from '../notify/events.js';
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

/** The admin over the store, with the URL allow-list of the server's configuration. */
const adminOf = (db: Db, flags: StoreFlags): NotifyAdmin =>
  new NotifyAdmin({ db, clock: systemClock, policy: urlPolicyOf(flags) });

/** One line per channel: id, org, kind, URL, scope, events, state, and how its latest message went. */
export function channelLine(c: ChannelView): string {
  const scope = c.queue ? `${c.queue.repo} (${c.queue.branch})` : 'all queues';
  const state = c.enabled
    ? c.failingSince !== null
      ? `failing since ${isoOrDash(c.failingSince)}`
      : 'enabled'
    : `disabled: ${c.disabledReason ?? ''}`;
  const last = c.lastMessage
    ? `  last: ${c.lastMessage.event} ${c.lastMessage.status}, ${c.lastMessage.attempts} attempt(s)${c.lastMessage.lastError ? `, ${c.lastMessage.lastError}` : ''}`
    : '';
  return `${c.id}  ${c.org}  ${c.kind}  ${c.url}  ${scope}  ${c.events.join(',')}  ${state}${last}`;
}

export function notifyCommand(): Command {
  const notify = new Command('notify')
    .description('send queue events, in words, to Slack, Microsoft Teams or a chat webhook')
    .addHelpText(
      'after',
      `
Examples:
  $ greenline notify add slack https://hooks.slack.com/services/T000/B000/XXXX --org acme
  $ greenline notify add teams https://prod.westus.logic.azure.com/workflows/… --org acme --repo github.com/acme/web --branch main
  $ greenline notify list --org acme
  $ greenline notify test 6f1c2a7e-…

Events: ${NOTIFY_EVENTS.join(', ')}.
Default: ${DEFAULT_NOTIFY_EVENTS.join(', ')}.
See docs/notifications.md for the messages and the retry schedule.`,
    );

  withStoreOptions(notify.command('add'))
    .description("send an organization's queue events to a chat channel (every queue, or one with --repo and --branch)")
    .addArgument(
      new Argument('<kind>', 'slack (incoming webhook), teams (workflow webhook) or chat (JSON { "text": … })').choices(
        NOTIFY_KINDS,
      ),
    )
    .argument('<url>', 'the webhook URL of the channel: an absolute http:// or https:// URL')
    .requiredOption('--org <org>', 'organization whose queue events to send (created if missing)')
    .option('--repo <repo>', 'only the queue of this repository, HOST/OWNER/NAME (with --branch)')
    .option('--branch <branch>', 'only the queue of this branch (with --repo)')
    .option('--events <events>', `comma-separated events (default: ${DEFAULT_NOTIFY_EVENTS.join(',')})`)
    .addHelpText(
      'after',
      `
Examples:
  $ greenline notify add slack https://hooks.slack.com/services/T000/B000/XXXX --org acme
  $ greenline notify add chat http://127.0.0.1:9000/chat --org acme --repo github.com/acme/web --branch main --events failed,merged`,
    )
    .action(
      async (
        kind: string,
        url: string,
        opts: StoreFlags & { org: string; repo?: string; branch?: string; events?: string },
      ) => {
        await withStore(opts, async (db) => {
          const org = await ensureOrg(db, opts.org, Date.now(), cliCaller());
          const c = await adminOf(db, opts).add(
            org,
            {
              kind,
              url,
              repo: opts.repo ?? null,
              branch: opts.branch ?? null,
              events: opts.events ?? null,
            },
            cliCaller(),
          );
          const scope = c.queue ? `the queue ${c.queue.repo} (${c.queue.branch})` : 'every queue';
          process.stdout.write(
            `Created ${c.kind} channel ${c.id} for ${scope} of organization ${org.name}: ${c.url} (${c.events.join(', ')}).\n`,
          );
        });
      },
    );

  withStoreOptions(notify.command('list'))
    .description('list chat channels, with how their latest message went (status, attempts, last error)')
    .option('--org <org>', 'only the channels of this organization')
    .addHelpText(
      'after',
      `
Examples:
  $ greenline notify list
  $ greenline notify list --org acme`,
    )
    .action(async (opts: StoreFlags & { org?: string }) => {
      await withStore(opts, async (db) => {
        const orgs = await orgsForListing(db, opts.org);
        const channels = await adminOf(db, opts).list(orgs.filter, orgs.nameOf);
        if (channels.length === 0) process.stdout.write('No notification channels.\n');
        for (const c of channels) process.stdout.write(`${channelLine(c)}\n`);
      });
    });

  const channelCommand = (name: string, description: string) =>
    idCommand(notify, name, description, 'channel id (see `notify list`)');

  channelCommand('remove', 'remove a channel and its messages (pending ones are not sent)').action(
    async (id: string, opts: StoreFlags) => {
      await withStore(opts, async (db) => {
        await adminOf(db, opts).remove(null, id, cliCaller());
        process.stdout.write(`Removed notification channel ${id}.\n`);
      });
    },
  );

  channelCommand('enable', 'enable a channel that was disabled after 3 days of failed messages').action(
    async (id: string, opts: StoreFlags) => {
      await withStore(opts, async (db) => {
        await adminOf(db, opts).enable(null, id, cliCaller());
        process.stdout.write(`Enabled notification channel ${id}.\n`);
      });
    },
  );

  channelCommand(
    'test',
    'send a test message to a channel now and say how it went (exit status 1 when it failed)',
  ).action(async (id: string, opts: StoreFlags) => {
    await withStore(opts, async (db) => {
      const r = await adminOf(db, opts).test(null, id);
      if (!r.ok) throw new Error(`The test message to channel ${id} failed: ${r.error ?? 'no answer'}`);
      process.stdout.write(`Test message sent to channel ${id} (HTTP ${r.statusCode ?? '-'}).\n`);
    });
  });
  return notify;
}
