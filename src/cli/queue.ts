/**
 * `greenline queue create | get | update | pause | resume | drain | freeze | unfreeze | delete`: queues,
 * over HTTP.
 */
import { Command } from 'commander';
import { CreateQueueRequest, QueueSettingsInput } from '../api/v1/schemas/queue.js';
import type { CreateQueueRequest as CreateBody, QueueSettings, UpdateQueueRequest } from '../client/index.js';
import { withClient, withQueueOptions, type QueueFlags } from './client-options.js';
import { printJson, printLine } from './output.js';
import { formatNotes, formatQueue, formatSettings } from './queue-format.js';
import { describeQueue, queueAddress } from './queue-address.js';
import { addSettingOptions, settingsFrom } from './queue-settings-options.js';
import { UsageError } from './usage-error.js';
import { formatTable } from './output.js';
import { queueIdOf } from './v2-ids.js';

const CREATE_SETTINGS = {
  mode: CreateQueueRequest.properties.mode,
  concurrency: CreateQueueRequest.properties.concurrency,
};

/** pause, resume and drain: updateQueue with a state. */
const STATE_COMMANDS = [
  {
    name: 'pause',
    state: 'PAUSED',
    description:
      'pause the queue: nothing starts testing or merges until it is resumed (results of running tests are kept)',
  },
  { name: 'resume', state: 'RUNNING', description: 'resume a paused or draining queue' },
  {
    name: 'drain',
    state: 'DRAINING',
    description:
      'drain the queue: admit nothing new, finish testing and merging what is admitted (before deleting it, or for a code freeze)',
  },
] as const;

type Freezes = NonNullable<QueueSettings['freezes']>;

/** The queue's freezes, or none. */
const freezesOf = (q: QueueSettings): Freezes =>
  q.freezes ?? { windows: [], oneOff: [], exemptLabels: [], stopTesting: false };

/** "is frozen until … (reason)." or "is not frozen." */
const frozenLine = (q: QueueSettings): string =>
  q.frozen ? `is frozen until ${q.frozenUntil}: ${q.frozenReason}.` : 'is not frozen.';

export function queueCommand(): Command {
  const queue = new Command('queue')
    .description('create, inspect, change, pause and delete merge queues (talks to a running server)')
    .addHelpText(
      'after',
      `
Examples:
  $ greenline queue create --repo github.com/acme/web --branch main --concurrency 3
  $ greenline queue get --repo github.com/acme/web --branch main
  $ greenline queue update --repo github.com/acme/web --branch main --batch --batching-min-size 4
  $ greenline queue pause --repo github.com/acme/web --branch main
  $ greenline queue freeze --repo github.com/acme/web --branch main --until 2026-03-30T06:00:00Z --reason "release 2.4"

The server and token come from --url/--token, GREENLINE_URL/GREENLINE_TOKEN, or ~/.config/greenline/client.yaml.`,
    );

  addSettingOptions(withQueueOptions(queue.command('create')), CREATE_SETTINGS)
    .description('create a queue for a target branch (RUNNING); set everything else with `queue update` afterwards')
    .addHelpText(
      'after',
      `
Examples:
  $ greenline queue create --repo github.com/acme/web --branch main
  $ greenline queue create --repo github.com/acme/web --branch release --mode parallel --concurrency 5`,
    )
    .action((flags: QueueFlags & Record<string, unknown>) =>
      withClient(flags, async ({ client, settings }) => {
        const address = queueAddress(settings);
        await client.createQueue({ ...address, ...settingsFrom(flags, CREATE_SETTINGS) } as CreateBody);
        if (flags.json) printJson({});
        else printLine(`Created queue ${describeQueue(address)}.`);
      }),
    );

  withQueueOptions(queue.command('get'))
    .description(
      'show a queue: whether Terraform manages it, state, every setting, and its pull requests in queue order with why each is there (NOT_READY ones last)',
    )
    .addHelpText(
      'after',
      `
Examples:
  $ greenline queue get --repo github.com/acme/web --branch main
  $ greenline queue get --repo github.com/acme/web --branch main --json | jq .state`,
    )
    .action((flags: QueueFlags) =>
      withClient(flags, async ({ client, settings }) => {
        const address = queueAddress(settings);
        if (flags.json) {
          printJson(await client.getQueue(address));
          return;
        }
        // getQueue answers as Trunk's does; who manages the queue is in the dashboard's activity.
        const [q, activity] = await Promise.all([client.getQueue(address), client.getQueueActivity(address)]);
        printLine(formatQueue(q, address, activity));
      }),
    );

  addSettingOptions(withQueueOptions(queue.command('update')), QueueSettingsInput)
    .description('change settings of a queue; settings not given stay as they are')
    .addHelpText(
      'after',
      `
Examples:
  $ greenline queue update --repo github.com/acme/web --branch main --concurrency 5 --merge-method merge_commit
  $ greenline queue update --repo github.com/acme/web --branch main --batch --batching-min-size 8 --batching-max-wait-time-minutes 10
  $ greenline queue update --repo github.com/acme/web --branch main --required-statuses build lint
  $ greenline queue update --repo github.com/acme/web --branch main --delete-required-statuses`,
    )
    .action((flags: QueueFlags & Record<string, unknown>) =>
      withClient(flags, async ({ client, settings }) => {
        const address = queueAddress(settings);
        const changes = settingsFrom(flags, QueueSettingsInput);
        if (Object.keys(changes).length === 0)
          throw new UsageError('Nothing to change: give at least one setting (see greenline queue update --help)');
        const q = await client.updateQueue({ ...address, ...changes } as UpdateQueueRequest);
        if (flags.json) printJson(q);
        else {
          const { notes, ...settings } = q;
          printLine(`Updated queue ${describeQueue(address)}:\n${formatSettings(settings)}${formatNotes(notes)}`);
        }
      }),
    );

  for (const { name, state, description } of STATE_COMMANDS) {
    withQueueOptions(queue.command(name))
      .description(description)
      .addHelpText(
        'after',
        `
Example:
  $ greenline queue ${name} --repo github.com/acme/web --branch main`,
      )
      .action((flags: QueueFlags) =>
        withClient(flags, async ({ client, settings }) => {
          const address = queueAddress(settings);
          const q = await client.updateQueue({ ...address, state });
          if (flags.json) printJson(q);
          else printLine(`Queue ${describeQueue(address)} is ${q.state}.`);
        }),
      );
  }

  withQueueOptions(queue.command('freeze'))
    .description(
      'freeze the queue from now until a time: it starts no merge (urgent PRs and PRs with an exempt label still merge); its state stays as it is',
    )
    .requiredOption('--until <time>', 'when the freeze ends: an ISO-8601 time, e.g. 2026-03-30T06:00:00Z')
    .requiredOption('--reason <text>', 'why, shown with the queue while it is frozen')
    .addHelpText(
      'after',
      `
A one-off freeze is added to the queue's freezes setting (see queue update --freezes for recurring
windows, exempt labels and stopTesting). queue unfreeze ends it early.

Example:
  $ greenline queue freeze --repo github.com/acme/web --branch main --until 2026-03-30T06:00:00Z --reason "release 2.4"`,
    )
    .action((flags: QueueFlags & { until: string; reason: string }) =>
      withClient(flags, async ({ client, settings }) => {
        const address = queueAddress(settings);
        const now = Date.now();
        const until = Date.parse(flags.until);
        if (!/^\d{4}-\d\d-\d\dT/.test(flags.until) || !Number.isFinite(until))
          throw new UsageError(`--until must be an ISO-8601 time such as 2026-03-30T06:00:00Z, got "${flags.until}"`);
        if (until <= now)
          throw new UsageError(`--until ${flags.until} is not in the future: give when the freeze ends`);
        if (flags.reason.trim() === '') throw new UsageError('--reason must say why the queue is frozen');
        const current = freezesOf(await client.getQueue(address));
        const oneOff = {
          from: new Date(now).toISOString(),
          until: new Date(until).toISOString(),
          reason: flags.reason,
        };
        const q = await client.updateQueue({
          ...address,
          freezes: { ...current, oneOff: [...current.oneOff, oneOff] },
        } as UpdateQueueRequest);
        if (flags.json) printJson(q);
        else printLine(`Queue ${describeQueue(address)} ${frozenLine(q)}`);
      }),
    );

  withQueueOptions(queue.command('unfreeze'))
    .description(
      'end the one-off freezes in effect now (recurring windows stay: change them with queue update --freezes)',
    )
    .addHelpText(
      'after',
      `
Example:
  $ greenline queue unfreeze --repo github.com/acme/web --branch main`,
    )
    .action((flags: QueueFlags) =>
      withClient(flags, async ({ client, settings }) => {
        const address = queueAddress(settings);
        const now = Date.now();
        const current = freezesOf(await client.getQueue(address));
        const inEffect = (f: { from: string; until: string }) => Date.parse(f.from) <= now && now < Date.parse(f.until);
        const ended = current.oneOff.filter(inEffect);
        if (ended.length === 0)
          throw new UsageError(`No one-off freeze is in effect on queue ${describeQueue(address)}`);
        const q = await client.updateQueue({
          ...address,
          freezes: { ...current, oneOff: current.oneOff.filter((f) => !inEffect(f)) },
        } as UpdateQueueRequest);
        if (flags.json) printJson(q);
        else
          printLine(
            `Ended ${ended.map((f) => `"${f.reason}"`).join(', ')} on queue ${describeQueue(address)}: it ${frozenLine(q)}`,
          );
      }),
    );

  withQueueOptions(queue.command('delete'))
    .description('delete an empty queue (refused while it holds pull requests: cancel them, or drain it first)')
    .addHelpText(
      'after',
      `
Example:
  $ greenline queue drain --repo github.com/acme/web --branch main   # then, once empty:
  $ greenline queue delete --repo github.com/acme/web --branch main`,
    )
    .action((flags: QueueFlags) =>
      withClient(flags, async ({ client, settings }) => {
        const address = queueAddress(settings);
        await client.deleteQueue(address);
        if (flags.json) printJson({});
        else printLine(`Deleted queue ${describeQueue(address)}.`);
      }),
    );
  withQueueOptions(queue.command('order'))
    .description(
      'the dispatch order (v2): batches being tested, then the admitted PRs in the order the engine considers them, then those awaiting admission',
    )
    .addHelpText(
      'after',
      `
Examples:
  $ greenline queue order --repo github.com/acme/web --branch main
  $ greenline queue order --repo github.com/acme/web --branch main --json | jq '.pending[].pullRequest.number'`,
    )
    .action((flags: QueueFlags) =>
      withClient(flags, async ({ client, settings }) => {
        const order = await client.mergeQueueOrder(await queueIdOf(client, queueAddress(settings)));
        if (flags.json) return printJson(order);
        const rows = [
          ...order.batches.flatMap((b) =>
            b.pullRequests.map((p) => [`#${p.number}`, b.state, `run ${b.verificationRunId}`, p.title]),
          ),
          ...order.pending.map((p) => [
            `#${p.pullRequest.number}`,
            p.schedulability,
            p.predictedBatch === undefined ? '' : `batch ${p.predictedBatch}`,
            p.pullRequest.title,
          ]),
          ...order.awaitingAdmission.map((p) => [`#${p.number}`, 'awaiting admission', '', p.title]),
        ];
        printLine(`Queue ${describeQueue(queueAddress(settings))} (${order.queueState}, ${order.mode} mode)`);
        printLine(rows.length === 0 ? 'No pull requests.' : formatTable(['PR', 'STATE', 'WHERE', 'TITLE'], rows));
      }),
    );

  withQueueOptions(queue.command('graph'))
    .description("the queue's dependency graph (v2): its admitted PRs and which wait for which")
    .option('--impacted-targets', 'also show the impacted targets edges share')
    .addHelpText(
      'after',
      `
Examples:
  $ greenline queue graph --repo github.com/acme/web --branch main
  $ greenline queue graph --repo github.com/acme/web --branch main --impacted-targets --json`,
    )
    .action((flags: QueueFlags & { impactedTargets?: boolean }) =>
      withClient(flags, async ({ client, settings }) => {
        const id = await queueIdOf(client, queueAddress(settings));
        const graph = await client.mergeQueueGraph(id, { includeImpactedTargets: flags.impactedTargets === true });
        if (flags.json) return printJson(graph);
        printLine(
          graph.nodes.length === 0
            ? 'No admitted pull requests.'
            : formatTable(
                ['PR', 'STATE', 'PRIORITY', 'TITLE'],
                graph.nodes.map((n) => [
                  `#${n.pullRequestNumber}`,
                  n.state,
                  n.priorityName ?? String(n.priorityValue),
                  n.title,
                ]),
              ),
        );
        for (const e of graph.edges)
          printLine(
            `#${e.toPullRequestNumber} waits for #${e.fromPullRequestNumber}${e.commonImpactedTargets ? ` (${e.commonImpactedTargets.join(', ')})` : ''}`,
          );
      }),
    );
  return queue;
}
