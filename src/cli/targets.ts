/** `greenline targets set`: upload the impacted targets of a PR's head commit, over HTTP. */
import { readFileSync } from 'node:fs';
import { Command } from 'commander';
import { withClient, withQueueOptions, type QueueFlags } from './client-options.js';
import { printJson, printLine } from './output.js';
import { parsePrNumber, queueAddress } from './queue-address.js';
import { UsageError } from './usage-error.js';

interface SetFlags extends QueueFlags {
  sha: string;
  file?: string;
  all?: boolean;
}

/**
 * Targets in a file: a JSON array of strings, or one target per line (blank lines skipped). `-` is
 * standard input.
 */
export function readTargetsFile(file: string): string[] {
  let text: string;
  try {
    text = readFileSync(file === '-' ? 0 : file, 'utf8');
  } catch (err) {
    throw new UsageError(`Cannot read targets from ${file}: ${(err as Error).message}`);
  }
  if (text.trimStart().startsWith('[')) {
    let parsed: unknown;
    try {
      parsed = JSON.parse(text);
    } catch (err) {
      throw new UsageError(`${file} starts with "[" but is not a JSON array: ${(err as Error).message}`);
    }
    if (!Array.isArray(parsed) || !parsed.every((t) => typeof t === 'string'))
      throw new UsageError(`${file} must be a JSON array of strings`);
    return parsed;
  }
  return text
    .split(/\r?\n/)
    .map((line) => line.trim())
    .filter((line) => line !== '');
}

export function targetsCommand(): Command {
  const targets = new Command('targets')
    .description('impacted targets of pull requests, for parallel queues (talks to a running server)')
    .addHelpText(
      'after',
      `
Examples:
  $ greenline targets set 42 --repo github.com/acme/web --branch main --sha "$(git rev-parse HEAD)" --file targets.txt
  $ greenline targets set 42 --repo github.com/acme/web --branch main --sha "$(git rev-parse HEAD)" --all`,
    );

  withQueueOptions(targets.command('set'))
    .description(
      'set the targets a PR head commit impacts (the last upload for a sha wins); PRs with overlapping targets are tested together',
    )
    .argument('<number>', 'pull request number')
    .requiredOption('--sha <sha>', 'head commit of the PR the targets were computed for (40 hex digits)')
    .option(
      '--file <file>',
      'targets, one per line or a JSON array; - reads standard input; an empty file = impacts nothing',
    )
    .option('--all', 'the PR impacts every target: every PR queued after it waits for it')
    .addHelpText(
      'after',
      `
Examples:
  $ greenline targets set 42 --repo github.com/acme/web --branch main --sha "$SHA" --file targets.json
  $ bazel query 'rdeps(//..., set(\${CHANGED}))' | greenline targets set 42 --repo github.com/acme/web --branch main --sha "$SHA" --file -
  $ greenline targets set 42 --repo github.com/acme/web --branch main --sha "$SHA" --all`,
    )
    .action((number: string, flags: SetFlags) =>
      withClient(flags, async ({ client, settings }) => {
        if ((flags.file === undefined) === (flags.all === undefined))
          throw new UsageError('Give exactly one of --file FILE and --all');
        const impactedTargets = flags.all ? 'ALL' : readTargetsFile(flags.file!);
        const request = { ...queueAddress(settings), pr: { number: parsePrNumber(number), sha: flags.sha } };
        await client.setImpactedTargets({ ...request, impactedTargets });
        if (flags.json) printJson({});
        else
          printLine(
            `Set the impacted targets of PR #${request.pr.number} at ${flags.sha.slice(0, 12)}: ` +
              (impactedTargets === 'ALL'
                ? 'ALL (impacts everything)'
                : `${impactedTargets.length} target${impactedTargets.length === 1 ? '' : 's'}`),
          );
      }),
    );
  return targets;
}
