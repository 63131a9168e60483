/**
 * `greenline metrics`: the organization's queue metrics (GET /v1/getMergeQueueMetrics), as a table
 * per queue by default, as Prometheus text with --raw, or as the table's rows in JSON with --json.
 */
import { Command } from 'commander';
import { withClient, withClientOptions, type ClientFlags } from './client-options.js';
import { formatTable, printJson, printLine } from './output.js';
import { summarize } from './metrics-summary.js';
import { parsePrometheusText } from './prometheus-text.js';
import { parseRepoSlug } from './queue-address.js';

const duration = (s: number | null): string =>
  s === null ? '-' : s < 120 ? `${Math.round(s)}s` : `${Math.round(s / 60)}m`;

export function metricsCommand(): Command {
  return withClientOptions(new Command('metrics'))
    .description(
      "show the organization's queue metrics (PRs in queue, testing, conclusions and durations over the last hour)",
    )
    .option('--repo <repo>', 'only this repository, as HOST/OWNER/NAME')
    .option('--raw', 'print the Prometheus text exposition as the server sends it')
    .addHelpText(
      'after',
      `
Examples:
  $ greenline metrics
  $ greenline metrics --repo github.com/acme/web
  $ greenline metrics --raw > metrics.prom
  $ greenline metrics --json | jq '.[] | select(.depth > 10)'`,
    )
    .action((flags: ClientFlags & { repo?: string; raw?: boolean }) =>
      withClient(flags, async ({ client }) => {
        const repo = flags.repo === undefined ? undefined : parseRepoSlug(flags.repo);
        const text = await client.getMergeQueueMetrics(
          repo ? { repo: `${repo.owner}/${repo.name}`, repoHost: repo.host } : {},
        );
        if (flags.raw) return void process.stdout.write(text);
        const rows = summarize(parsePrometheusText(text));
        if (flags.json) return printJson(rows);
        if (rows.length === 0) return printLine('No queues.');
        printLine(
          formatTable(
            [
              'REPO',
              'BRANCH',
              'TYPE',
              'IN QUEUE',
              'NOT READY',
              'TESTING',
              'MERGED/1H',
              'FAILED/1H',
              'CANCELLED/1H',
              'RESTARTS/1H',
              'MEAN TEST/1H',
              'MEAN WAIT/1H',
            ],
            rows.map((r) => [
              r.repo,
              r.branch,
              r.queueType,
              String(r.depth),
              String(r.awaitingMergeability),
              String(r.testing),
              String(r.merged1h),
              String(r.failed1h),
              String(r.cancelled1h),
              String(r.restarts1h),
              duration(r.meanTestSeconds1h),
              duration(r.meanWaitSeconds1h),
            ]),
          ),
        );
      }),
    );
}
