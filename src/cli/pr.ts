/** `greenline pr submit | cancel | restart | try | status | list`: pull requests in a queue, over HTTP. */
import { Command } from 'commander';
import {
  waitForPullRequest,
  type GreenlineClient,
  type PullRequestItem,
  type QueueRequest,
  type SubmittedPullRequest,
} from '../client/index.js';
import { withClient, withQueueOptions, type QueueFlags } from './client-options.js';
import { formatTable, printJson, printLine } from './output.js';
import { formatPrList, formatPrStatus, formatReasonLine, formatTry } from './pr-format.js';
import { describeQueue, parsePrNumber, queueAddress, queueFlags } from './queue-address.js';
import { UsageError } from './usage-error.js';
import { pullRequestIdOf } from './v2-ids.js';

interface WaitFlags extends QueueFlags {
  wait?: boolean;
  interval: string;
  timeout?: string;
}

interface SubmitFlags extends WaitFlags {
  priority?: string;
  batch?: boolean;
  message?: string;
}

const seconds = (flag: string, text: string): number => {
  const n = Number(text);
  if (text.trim() === '' || !Number.isFinite(n) || n <= 0)
    throw new UsageError(`${flag} takes a number of seconds above 0, got "${text}"`);
  return n * 1000;
};

function withWaitOptions(cmd: Command, what: string): Command {
  return cmd
    .option('--wait', `${what}; exit 0 only if it merged. State changes are printed to stderr meanwhile`)
    .option('--interval <seconds>', 'with --wait: seconds between two reads', '2')
    .option(
      '--timeout <seconds>',
      'with --wait: give up (exit 1) after this many seconds (default: wait as long as it takes)',
    );
}

/** Follows the PR to a terminal state, printing each state it enters; exit code 0 only for MERGED. */
async function waitAndReport(
  client: GreenlineClient,
  queue: QueueRequest,
  prNumber: number,
  flags: WaitFlags,
): Promise<void> {
  const pr = await waitForPullRequest(
    client,
    { ...queue, pr: { number: prNumber } },
    {
      intervalMs: seconds('--interval', flags.interval),
      ...(flags.timeout !== undefined ? { timeoutMs: seconds('--timeout', flags.timeout) } : {}),
      onChange: (p) => process.stderr.write(`${new Date().toISOString()}  PR #${p.prNumber} ${p.state}\n`),
    },
  );
  printStatus(pr, queue, flags);
  if (pr.state.toUpperCase() !== 'MERGED') {
    process.stderr.write(`PR #${prNumber} ended ${pr.state}: not merged. ${formatReasonLine(pr)}\n`);
    process.exitCode = 1;
  }
}

function printStatus(pr: SubmittedPullRequest, queue: QueueRequest, flags: QueueFlags): void {
  if (flags.json) printJson(pr);
  else printLine(formatPrStatus(pr, queue));
}

/** `{ ...queue, pr: { number } }` for the PR named by the command's argument. */
const prRequest = (queue: QueueRequest, number: string) => ({ ...queue, pr: { number: parsePrNumber(number) } });

export function prCommand(): Command {
  const pr = new Command('pr')
    .description('submit, cancel, restart and follow pull requests in a queue (talks to a running server)')
    .addHelpText(
      'after',
      `
Examples:
  $ greenline pr submit 42 --repo github.com/acme/web --branch main
  $ greenline pr submit 42 --repo github.com/acme/web --branch main --priority urgent --wait
  $ greenline pr status 42 --repo github.com/acme/web --branch main --wait --timeout 3600
  $ greenline pr list --repo github.com/acme/web --branch main --state testing

The server and token come from --url/--token, GREENLINE_URL/GREENLINE_TOKEN, or ~/.config/greenline/client.yaml.`,
    );

  withWaitOptions(withQueueOptions(pr.command('submit')), 'then wait until the PR is merged, failed or cancelled')
    .description('submit a pull request to a queue; submitting it again changes its priority and batching in place')
    .argument('<number>', 'pull request number')
    .option(
      '--priority <priority>',
      'urgent (0, may interrupt running tests), high (10), medium (100, default), low (200), or 0-255',
    )
    .option('--batch', 'let it be tested in a batch again (undoes --no-batch)')
    .option('--no-batch', 'always test it alone, never in a batch')
    .option(
      '-m, --message <message>',
      "the commit message it lands with, over the queue's commitMessages templates: the first line is the title, the rest (if any) the body",
    )
    .addHelpText(
      'after',
      `
Examples:
  $ greenline pr submit 42 --repo github.com/acme/web --branch main
  $ greenline pr submit 42 --repo github.com/acme/web --branch main --priority high --no-batch
  $ greenline pr submit 42 --repo github.com/acme/web --branch main --message 'feat(api): page runs'
  $ greenline pr submit 42 --repo github.com/acme/web --branch main --wait && echo merged`,
    )
    .action((number: string, flags: SubmitFlags) =>
      withClient(flags, async ({ client, settings }) => {
        const queue = queueAddress(settings);
        const request = prRequest(queue, number);
        const priority =
          flags.priority === undefined
            ? {}
            : { priority: /^[0-9]+$/.test(flags.priority) ? Number(flags.priority) : flags.priority };
        const batching = flags.batch === undefined ? {} : { noBatch: !flags.batch };
        const message = flags.message === undefined ? {} : { commitMessage: flags.message };
        await client.submitPullRequest({ ...request, ...priority, ...batching, ...message });
        const done = `Submitted PR #${request.pr.number} to ${describeQueue(queue)}.`;
        if (!flags.wait) return flags.json ? printJson({}) : printLine(done);
        // Waiting: progress on stderr, the final state on stdout.
        if (!flags.json) process.stderr.write(`${done}\n`);
        await waitAndReport(client, queue, request.pr.number, flags);
      }),
    );

  withQueueOptions(pr.command('cancel'))
    .description('remove a pull request from its queue; the PRs tested on top of it restart')
    .argument('<number>', 'pull request number')
    .addHelpText(
      'after',
      `
Example:
  $ greenline pr cancel 42 --repo github.com/acme/web --branch main`,
    )
    .action((number: string, flags: QueueFlags) =>
      withClient(flags, async ({ client, settings }) => {
        const request = prRequest(queueAddress(settings), number);
        await client.cancelPullRequest(request);
        if (flags.json) printJson({});
        else printLine(`Cancelled PR #${request.pr.number} in ${describeQueue(request)}.`);
      }),
    );

  withQueueOptions(pr.command('restart'))
    .description('restart the tests of a pull request in place (e.g. after a flaky failure); it keeps its position')
    .argument('<number>', 'pull request number')
    .addHelpText(
      'after',
      `
Example:
  $ greenline pr restart 42 --repo github.com/acme/web --branch main`,
    )
    .action((number: string, flags: QueueFlags) =>
      withClient(
        flags,
        async ({ client, settings }) => {
          const request = prRequest(queueAddress(settings), number);
          await client.restartTestsOnPullRequest(request);
          if (flags.json) printJson({});
          else printLine(`Restarted the tests of PR #${request.pr.number} in ${describeQueue(request)}.`);
        },
        {
          hints: (settings) => ({
            PR_NOT_IN_QUEUE: `to test it again, submit it: \`greenline pr submit ${number}${queueFlags(settings)}\``,
          }),
        },
      ),
    );

  withQueueOptions(pr.command('try'))
    .description(
      "try a pull request: build it with the target branch head (or on top of the queue) and run the queue's CI on it, without queueing it; or, with --status, show its latest try",
    )
    .argument('<number>', 'pull request number')
    .option('--on-queue', 'build it on top of the PRs queued ahead, not on the target head alone')
    .option('--status', 'show its latest try instead of starting one')
    .addHelpText(
      'after',
      `
Examples:
  $ greenline pr try 42 --repo github.com/acme/web --branch main
  $ greenline pr try 42 --repo github.com/acme/web --branch main --on-queue
  $ greenline pr try 42 --repo github.com/acme/web --branch main --status`,
    )
    .action((number: string, flags: QueueFlags & { onQueue?: boolean; status?: boolean }) =>
      withClient(flags, async ({ client, settings }) => {
        const request = prRequest(queueAddress(settings), number);
        if (flags.status && flags.onQueue) throw new UsageError('--status shows a try: it takes no --on-queue');
        const found = flags.status
          ? (await client.getPullRequestTry(request)).try
          : await client.tryPullRequest({ ...request, ...(flags.onQueue ? { onQueue: true } : {}) });
        if (flags.json) return printJson(flags.status ? { try: found } : found);
        printLine(
          found
            ? formatTry(found)
            : `PR #${request.pr.number} has had no try in ${describeQueue(request)}: \`greenline pr try ${number}${queueFlags(settings)}\` starts one.`,
        );
      }),
    );

  withWaitOptions(withQueueOptions(pr.command('status')), 'wait until the PR is merged, failed or cancelled')
    .description(
      'show a submitted pull request: state and why (the failed check, the conflicting files, what it waits for), its position, what it waits on and its estimated merge time, priority, readiness',
    )
    .argument('<number>', 'pull request number')
    .addHelpText(
      'after',
      `
Examples:
  $ greenline pr status 42 --repo github.com/acme/web --branch main
  $ greenline pr status 42 --repo github.com/acme/web --branch main --json
  $ greenline pr status 42 --repo github.com/acme/web --branch main --wait --interval 10 --timeout 7200   # in a CI job`,
    )
    .action((number: string, flags: WaitFlags) =>
      withClient(flags, async ({ client, settings }) => {
        const queue = queueAddress(settings);
        if (flags.wait) return waitAndReport(client, queue, parsePrNumber(number), flags);
        printStatus(await client.getSubmittedPullRequest(prRequest(queue, number)), queue, flags);
      }),
    );

  withQueueOptions(pr.command('list'))
    .description(
      "list a queue's pull requests, most recently submitted first, with their position and estimated merge time",
    )
    .option('--state <state>', 'only PRs in this state, e.g. testing or MERGED')
    .option(
      '--since <date-time>',
      'only PRs that merged, failed or were cancelled at or after this time, e.g. 2026-01-31T00:00:00Z',
    )
    .option('--limit <n>', 'at most this many', '50')
    .addHelpText(
      'after',
      `
Examples:
  $ greenline pr list --repo github.com/acme/web --branch main
  $ greenline pr list --repo github.com/acme/web --branch main --state merged --since 2026-01-31T00:00:00Z --limit 500`,
    )
    .action((flags: QueueFlags & { state?: string; since?: string; limit: string }) =>
      withClient(flags, async ({ client, settings }) => {
        const queue = queueAddress(settings);
        const limit = Number(flags.limit);
        if (!Number.isInteger(limit) || limit < 1)
          throw new UsageError(`--limit takes a positive integer, got "${flags.limit}"`);
        const filter = {
          ...(flags.state ? { state: flags.state } : {}),
          ...(flags.since ? { since: flags.since } : {}),
        };
        const pullRequests: PullRequestItem[] = [];
        let cursor: string | undefined;
        do {
          const page = await client.listPullRequests({
            ...queue,
            ...filter,
            take: Math.min(100, limit - pullRequests.length),
            ...(cursor ? { cursor } : {}),
          });
          pullRequests.push(...page.pullRequests);
          cursor = page.nextCursor;
        } while (cursor && pullRequests.length < limit);
        if (flags.json) printJson({ pullRequests, ...(cursor ? { nextCursor: cursor } : {}) });
        else printLine(formatPrList(pullRequests, cursor !== undefined));
      }),
    );
  withQueueOptions(pr.command('history'))
    .description("a pull request's queue-entry state changes (v2), oldest first, each with its reason")
    .argument('<number>', 'pull request number')
    .option('--newest-first', 'newest change first')
    .addHelpText(
      'after',
      `
Examples:
  $ greenline pr history 42 --repo github.com/acme/web --branch main
  $ greenline pr history 42 --repo github.com/acme/web --branch main --newest-first --json`,
    )
    .action((number: string, flags: QueueFlags & { newestFirst?: boolean }) =>
      withClient(flags, async ({ client, settings }) => {
        const id = await pullRequestIdOf(client, queueAddress(settings), parsePrNumber(number));
        const transitions: Awaited<ReturnType<typeof client.queueEntryHistory>>['data'] = [];
        let cursor: string | undefined;
        do {
          const page = await client.queueEntryHistory(id, {
            direction: flags.newestFirst ? 'newest' : 'oldest',
            limit: 100,
            ...(cursor !== undefined ? { cursor } : {}),
          });
          transitions.push(...page.data);
          cursor = page.nextCursor ?? undefined;
        } while (cursor !== undefined);
        if (flags.json) return printJson(transitions);
        printLine(
          transitions.length === 0
            ? `#${number} has never been submitted.`
            : formatTable(
                ['AT', 'STATE', 'REASON', 'RUN'],
                transitions.map((t) => [t.changedAt, t.state, t.reason ?? '', t.verificationRunId ?? '']),
              ),
        );
      }),
    );

  return pr;
}
