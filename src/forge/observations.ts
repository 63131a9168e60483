/**
 * Forge observations: what a forge adapter reports it saw (a webhook delivery), in the service's
 * words rather than the forge's, and the queue commands of PR comments, read alike on every forge.
 * Adapters translate their payloads into these (GitHub: forge/github/observations.ts; Gitea
 * and Forgejo: forge/gitea/webhook-events.ts); app/observing/forge-observations.ts applies them
 * to the queues.
 */
import type { PrInfo } from '../engine/types.js';
import type { CiStatus } from './port.js';

/**
 * A queue command (contract §6.11): from a PR comment (`/greenline merge --priority high`) or from
 * the queue's enqueueing label being added (merge) or removed (cancel).
 */
export type QueueCommand =
  | { kind: 'merge'; priority?: string; noBatch: boolean; message?: string }
  | { kind: 'cancel' }
  /** `/greenline try [--on-queue]`: a try build of the PR (app/try-builds.ts), not queued. */
  | { kind: 'try'; onQueue: boolean }
  | { kind: 'invalid'; message: string };

export type ForgeObservation =
  /** Something of the PR changed (head, base, title, draft state): its current view is to be read. */
  | { kind: 'prTouched'; prNumber: number }
  /** The forge's current view of the PR; null when it is no longer open, `merged` telling how it left. */
  | { kind: 'prSeen'; prNumber: number; pr: PrInfo | null; merged: boolean }
  /** The PR was closed, by a merge or not. */
  | { kind: 'prClosed'; prNumber: number; merged: boolean }
  /** The PR became a draft. */
  | { kind: 'prConvertedToDraft'; prNumber: number }
  /**
   * A label was added to or removed from a PR whose base is `baseBranch`, by `sender` (login, when the
   * forge says): a merge or cancel when it is the enqueueing label of that branch's queue and label
   * commands are enabled.
   */
  | { kind: 'prLabel'; prNumber: number; baseBranch: string; label: string; added: boolean; sender?: string }
  /**
   * The labels a PR whose base is `baseBranch` has now, after `sender` changed them, from a forge that
   * tells the whole set rather than what changed (Gitea, Forgejo): the enqueueing label counts as added
   * when a PR that branch's queue does not hold has it, and as removed when the queued PR had it (the
   * labels last read of it) and has it no more.
   */
  | { kind: 'prLabels'; prNumber: number; baseBranch: string; labels: string[]; sender?: string }
  /**
   * A queue command in a comment on the PR, by `author` (login, when known); `authorStanding`: how
   * the forge relates the author to the repository (GitHub: the comment's `author_association`), when it says.
   */
  | { kind: 'prComment'; prNumber: number; command: QueueCommand; author?: string; authorStanding?: string }
  /** A branch was pushed to (created or moved): the queue of that target branch reads its head. */
  | { kind: 'branchPushed'; branch: string }
  /** A CI status of a commit (a test commit's, when it is one). */
  | { kind: 'ciStatus'; sha: string; status: CiStatus }
  /** The checks of a commit completed: every check of it is to be read, in case one was missed. */
  | { kind: 'checksCompleted'; sha: string }
  /** The checks of a commit could not run (a broken workflow file, runs awaiting approval), `detail` says why. */
  | { kind: 'checksBlocked'; sha: string; detail: string };

/** A delivery translated: the repository it is about and what was seen in it. */
export interface ForgeDelivery {
  repo: { host: string; owner: string; name: string };
  observations: ForgeObservation[];
}

const PREFIX = /^\/(greenline|trunk)\s+(\S+)(.*)$/;

/**
 * The command in a PR comment (contract §6.11): `/greenline merge [--priority P | -p P | --priority=P]
 * [--no-batch] [--message "…" | -m "…" | --message="…"]`, `/greenline cancel` or `/greenline try
 * [--on-queue]`; a value may be quoted with " or ' (`\"` inside double quotes); `/trunk …` is accepted
 * too, for teams moving from Trunk. The
 * first line of the comment that starts with one of the prefixes is the command; null when none does.
 */
export function parseQueueCommand(body: string): QueueCommand | null {
  const line = body
    .split(/\r?\n/)
    .map((l) => l.trim())
    .find((l) => PREFIX.test(l));
  if (!line) return null;
  const [, prog, verb, rest] = PREFIX.exec(line)!;
  const args = words(rest!);
  if (verb === 'cancel') {
    return args.length === 0
      ? { kind: 'cancel' }
      : { kind: 'invalid', message: `/${prog} cancel takes no options, got ${args.join(' ')}` };
  }
  if (verb === 'try') {
    const unknown = args.filter((a) => a !== '--on-queue');
    return unknown.length === 0
      ? { kind: 'try', onQueue: args.length > 0 }
      : { kind: 'invalid', message: `unknown option ${unknown.join(' ')} of /${prog} try: use --on-queue` };
  }
  if (verb !== 'merge')
    return {
      kind: 'invalid',
      message: `unknown command /${prog} ${verb}: use /${prog} merge, /${prog} cancel or /${prog} try`,
    };
  let priority: string | undefined;
  let message: string | undefined;
  let noBatch = false;
  for (let i = 0; i < args.length; i++) {
    const a = args[i]!;
    if (a === '--no-batch') noBatch = true;
    else if (a.startsWith('--message=')) message = a.slice('--message='.length);
    else if (a === '--message' || a === '-m') {
      message = args[++i];
      if (message === undefined)
        return { kind: 'invalid', message: `${a} needs the commit message, e.g. ${a} "fix: …"` };
    } else if (a.startsWith('--priority=')) priority = a.slice('--priority='.length);
    else if (a === '--priority' || a === '-p') {
      priority = args[++i];
      if (priority === undefined)
        return { kind: 'invalid', message: `${a} needs a value: urgent, high, medium, low or a number from 0 to 255` };
    } else {
      return {
        kind: 'invalid',
        message: `unknown option ${a} of /${prog} merge: use --priority P, --no-batch and --message "…"`,
      };
    }
  }
  if (message !== undefined && message.trim() === '')
    return { kind: 'invalid', message: '--message needs a commit message that is not empty' };
  return {
    kind: 'merge',
    noBatch,
    ...(priority !== undefined ? { priority } : {}),
    ...(message !== undefined ? { message } : {}),
  };
}

/** The words of a command line: runs of characters, parts in "…" or '…' kept whole (quotes removed). */
function words(line: string): string[] {
  const found = line.match(/(?:[^\s"']+|"(?:[^"\\]|\\.)*"?|'[^']*'?)+/g) ?? [];
  return found.map((w) =>
    w.replace(/"((?:[^"\\]|\\.)*)"?|'([^']*)'?/g, (_, dq?: string, sq?: string) =>
      dq !== undefined ? dq.replace(/\\(.)/g, '$1') : (sq ?? ''),
    ),
  );
}
