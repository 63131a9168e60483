/**
 * `greenline hook post-receive`: a push notification from a bare repository's `post-receive` hook.
 * git gives the hook one `<old sha> <new sha> <ref>` line per ref the push moved; the command posts
 * them to the server (POST /v1/notifyRefsMoved), which reads the queues they concern at once.
 */
import path from 'node:path';
import { text } from 'node:stream/consumers';
import { Command } from 'commander';
import type { NotifyRefsMovedRequest } from '../client/index.js';
import { withClient, withClientOptions, type ClientFlags } from './client-options.js';
import { printJson, printLine } from './output.js';
import { parseRepoSlug } from './queue-address.js';
import { UsageError } from './usage-error.js';

interface PostReceiveFlags extends ClientFlags {
  repo?: string;
}

const LINE = /^([0-9a-f]{40}|[0-9a-f]{64}) ([0-9a-f]{40}|[0-9a-f]{64}) (\S+)$/;

/** The refs of a post-receive hook's stdin; throws naming a line that is not `<old> <new> <ref>`. */
export function parsePostReceive(input: string): NotifyRefsMovedRequest['refs'] {
  return input
    .split('\n')
    .filter((line) => line.trim() !== '')
    .map((line) => {
      const m = LINE.exec(line.trim());
      if (!m)
        throw new UsageError(
          `Cannot read "${line}": a post-receive hook gets "<old sha> <new sha> <ref>" lines on stdin, as git gives them`,
        );
      return { oldSha: m[1]!, newSha: m[2]!, ref: m[3]! };
    });
}

export function hookCommand(): Command {
  const hook = new Command('hook')
    .description('commands for the git hooks of the repositories greenline serves')
    .addHelpText(
      'after',
      `
Examples:
  $ greenline hook post-receive --url https://greenline.example.com --token "$(cat /etc/greenline/hook-token)"`,
    );
  withClientOptions(hook.command('post-receive'))
    .description(
      'tell the server which refs a push moved, so that their queues are read at once: run it from the post-receive hook of the bare repository greenline fetches from (it reads git\'s "<old> <new> <ref>" lines on stdin)',
    )
    .option(
      '--repo <repo>',
      'the repository as HOST/OWNER/NAME (default: the repository whose --remote is the one the hook runs in)',
    )
    .addHelpText(
      'after',
      `
The repository is found by its remote: the directory the hook runs in (git's GIT_DIR), as it was
given to \`greenline repo connect --remote\`. The token needs the scope refs:notify.

Install (in the bare repository, e.g. /srv/git/web.git):
  $ cat > hooks/post-receive <<'HOOK'
  #!/bin/sh
  exec greenline hook post-receive --url https://greenline.example.com --token "$(cat /etc/greenline/hook-token)"
  HOOK
  $ chmod +x hooks/post-receive

Examples:
  $ greenline hook post-receive --repo example.com/team/web < moved-refs.txt
  $ echo "$OLD $NEW refs/heads/main" | greenline hook post-receive --url http://127.0.0.1:8080 --token "$GREENLINE_TOKEN"`,
    )
    .action(async (flags: PostReceiveFlags) => {
      if (process.stdin.isTTY)
        throw new UsageError(
          'git gives a post-receive hook the moved refs on stdin: run this from the hook, or pipe "<old sha> <new sha> <ref>" lines into it',
        );
      const refs = parsePostReceive(await text(process.stdin));
      if (refs.length === 0) {
        if (flags.json) printJson({ queuesRead: 0 });
        else printLine('No ref moved: nothing to tell the server.');
        return;
      }
      await withClient(flags, async ({ client }) => {
        const answer = await client.notifyRefsMoved({
          ...(flags.repo ? { repo: parseRepoSlug(flags.repo) } : { url: path.resolve(process.env.GIT_DIR ?? '.') }),
          refs,
        });
        if (flags.json) printJson(answer);
        else
          printLine(
            `greenline told: ${refs.length} ref${refs.length === 1 ? '' : 's'} moved; ${answer.queuesRead} queue${answer.queuesRead === 1 ? '' : 's'} read now.`,
          );
      });
    });
  return hook;
}
