/** `greenline test-run get | log | report`: one test run, its built-in CI log, and statuses from external CI. */
import { CI_STATES } from '../forge/port.js';
import { Command, Option } from 'commander';
import type { TestingDetails } from '../client/index.js';
import { withClient, withClientOptions, withQueueOptions, type QueueFlags } from './client-options.js';
import { formatFields, formatTable, printJson, printLine } from './output.js';
import { parseRepoSlug, queueAddress } from './queue-address.js';
import { UsageError } from './usage-error.js';

interface ChangesFlags extends QueueFlags {
  sha?: string;
}

interface ReportFlags extends ChangesFlags {
  context: string;
  state: string;
  targetUrl?: string;
  description?: string;
}

/** Where a test run's required statuses came from, in words (the API's requiredStatusesSource). */
const STATUSES_FROM: Record<TestingDetails['requiredStatusesSource'], string> = {
  trunk_config: "the repository's settings (repo connect --required-status or its CI command)",
  repo_provider_branch_protection: "the target branch's protection on the forge",
  merge_instance: "the queue's requiredStatuses setting",
};

function formatTestRun(id: string, run: TestingDetails): string {
  const fields = formatFields([
    ['Test run', id],
    ['Status', run.status],
    ['Created', run.createdAt],
    ['Test branch', run.testBranch],
    ['Test commit', run.testBranchSha ?? '(being built)'],
    ['Tested PRs', run.testedPullRequests.map((p) => `#${p.prNumber} ${p.title}`).join('; ')],
    ['Predicted base PRs', run.dependentPrs.length ? run.dependentPrs.map((n) => `#${n}`).join(' ') : '-'],
    [
      'Required statuses',
      `${run.requiredStatuses.join(', ') || 'none'}, from ${STATUSES_FROM[run.requiredStatusesSource] ?? run.requiredStatusesSource}`,
    ],
    ...(run.impactedTargetsForTestedPrs
      ? [['Impacted targets', run.impactedTargetsForTestedPrs.join(', ') || '-'] as [string, string]]
      : []),
    ['Base', run.baseSha ?? '(not known)'],
    ['Changed files', run.changedFiles === null ? '(not known)' : run.changedFiles.join(' ') || '-'],
    ...run.testedPullRequests.flatMap((p) =>
      p.changedFiles ? [[`  #${p.prNumber} changes`, p.changedFiles.join(' ') || '-'] as [string, string]] : [],
    ),
  ]);
  const statuses =
    run.statusChecks.length === 0
      ? 'No statuses reported yet.'
      : formatTable(
          ['CONTEXT', 'STATE', 'DESCRIPTION', 'URL'],
          run.statusChecks.map((s) => [s.context, s.state, s.description ?? '', s.url ?? '']),
        );
  return `${fields}\n\n${statuses}`;
}

export function testRunCommand(): Command {
  const testRun = new Command('test-run')
    .description('inspect test runs and report CI statuses for them (talks to a running server)')
    .addHelpText(
      'after',
      `
A test run's id is the last segment of its test branch, greenline-merge/pr-<N>/<id>; the built-in CI
runner passes it to the command as GREENLINE_TEST_RUN_ID.

Examples:
  $ greenline test-run get 0b7c6c1e-… --repo github.com/acme/web --branch main
  $ greenline test-run log 0b7c6c1e-… --repo github.com/acme/web --branch main
  $ greenline test-run report 0b7c6c1e-… --repo github.com/acme/web --context build --state success`,
    );

  withQueueOptions(testRun.command('get'))
    .description('show a test run: status, test branch and commit, tested PRs, required and reported statuses')
    .argument('<id>', 'test run id')
    .addHelpText(
      'after',
      `
Example:
  $ greenline test-run get 0b7c6c1e-… --repo github.com/acme/web --branch main`,
    )
    .action((id: string, flags: QueueFlags) =>
      withClient(flags, async ({ client, settings }) => {
        const run = await client.getMergeQueueTestingDetails({ ...queueAddress(settings), testRunId: id });
        if (flags.json) printJson(run);
        else printLine(formatTestRun(id, run));
      }),
    );

  withQueueOptions(testRun.command('log'))
    .description("print the built-in CI runner's output of a test run")
    .argument('<id>', 'test run id')
    .addHelpText(
      'after',
      `
Example:
  $ greenline test-run log 0b7c6c1e-… --repo github.com/acme/web --branch main | tail -50`,
    )
    .action((id: string, flags: QueueFlags) =>
      withClient(flags, async ({ client, settings }) => {
        const log = await client.getTestRunLog({ ...queueAddress(settings), testRunId: id });
        if (flags.json) printJson({ log });
        else process.stdout.write(log);
      }),
    );

  withClientOptions(testRun.command('changes'))
    .description(
      'print the paths a test run changed from its base, one a line: what CI reads to run only the jobs whose paths changed',
    )
    .argument('[id]', 'test run id (or give --sha)')
    .option('--repo <repo>', 'repository as HOST/OWNER/NAME (default: repo: in the client config file)')
    .option('--sha <sha>', 'the test commit instead of the run id')
    .addHelpText(
      'after',
      `
The base is what the run's own PRs were merged onto: the target branch head, or for a run tested on
top of others the tested state ahead of it. When what changed is not known (the forge cannot compare
commits, or the test commit is still being built) the command fails saying so: test everything then.
It takes the token CI reports statuses with (scope test_runs:report, or a CI identity).

Examples:
  $ greenline test-run changes --sha "$GITHUB_SHA" --repo github.com/acme/web > changed.txt
  $ greenline test-run changes "$GREENLINE_TEST_RUN_ID" --repo github.com/acme/web --json`,
    )
    .action((id: string | undefined, flags: ChangesFlags) =>
      withClient(flags, async ({ client, settings }) => {
        const changes = await client.getTestRunChanges(runOfRepo(id, flags.sha, settings.repo));
        if (flags.json) return printJson(changes);
        if (changes.changedFiles === null)
          throw new Error(
            `What test run ${changes.testRunId} changed is not known: ${changes.testBranchSha === null ? 'its test commit is still being built; ask again once it is' : 'the forge cannot compare its commits'}. Test everything.`,
          );
        for (const file of changes.changedFiles) printLine(file);
      }),
    );

  withClientOptions(testRun.command('report'))
    .description(
      'report the state of a check on a test run, from external CI (the run passes once every required status succeeded)',
    )
    .argument('[id]', 'test run id (or give --sha)')
    .option('--repo <repo>', 'repository as HOST/OWNER/NAME (default: repo: in the client config file)')
    .option('--sha <sha>', 'the test commit instead of the run id')
    .requiredOption('--context <name>', 'name of the check, as in the required statuses')
    .addOption(new Option('--state <state>', 'state of the check').choices(CI_STATES).makeOptionMandatory())
    .option('--target-url <url>', 'link to the CI job')
    .option('--description <text>', 'a short description')
    .addHelpText(
      'after',
      `
Examples:
  $ greenline test-run report "$GREENLINE_TEST_RUN_ID" --repo github.com/acme/web --context build --state success
  $ greenline test-run report --sha "$(git rev-parse HEAD)" --repo github.com/acme/web --context e2e --state failure --target-url "$CI_JOB_URL"`,
    )
    .action((id: string | undefined, flags: ReportFlags) =>
      withClient(flags, async ({ client, settings }) => {
        await client.reportStatus({
          ...runOfRepo(id, flags.sha, settings.repo),
          context: flags.context,
          state: flags.state,
          ...(flags.targetUrl !== undefined ? { url: flags.targetUrl } : {}),
          ...(flags.description !== undefined ? { description: flags.description } : {}),
        });
        if (flags.json) printJson({});
        else printLine(`Reported ${flags.context} ${flags.state} for ${id ?? flags.sha}.`);
      }),
    );
  return testRun;
}

/** The test run a CI command names, by its id or its test commit (one of the two), in the repository given. */
function runOfRepo(
  id: string | undefined,
  sha: string | undefined,
  repo: string | undefined,
): { repo: ReturnType<typeof parseRepoSlug> } & ({ testRunId: string } | { sha: string }) {
  if ((id === undefined) === (sha === undefined))
    throw new UsageError('Give the test run id or --sha SHA (one of the two)');
  if (!repo)
    throw new UsageError('Which repository? Pass --repo HOST/OWNER/NAME (or set "repo:" in the client config file)');
  return { repo: parseRepoSlug(repo), ...(id !== undefined ? { testRunId: id } : { sha: sha! }) };
}
