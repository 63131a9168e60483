/**
 * PR comment commands (contract §6.11): `/greenline merge [--priority P | -p P | --priority=P]
 * [--no-batch]` and `/greenline cancel`; `/trunk …` is accepted too, for teams moving from Trunk. The
 * first line of the comment that starts with one of the prefixes is the command.
 */
import type { QueueCommand } from '../../../forge-observations.js';

export type { QueueCommand };

const PREFIX = /^\/(greenline|trunk)\s+(\S+)(.*)$/;

/** The command in a comment; null when the comment holds none. */
export function parseQueueCommand(body: string): QueueCommand | null {
  const line = body
    .split(/\r?\n/)
    .map((l) => l.trim())
    .find((l) => PREFIX.test(l));
  if (!line) return null;
  const [, prog, verb, rest] = PREFIX.exec(line)!;
  const args = rest!.trim() === '' ? [] : rest!.trim().split(/\s+/);
  if (verb === 'cancel') {
    return args.length === 0
      ? { kind: 'cancel' }
      : { kind: 'invalid', message: `/${prog} cancel takes no options, got ${args.join(' ')}` };
  }
  if (verb !== 'merge')
    return { kind: 'invalid', message: `unknown command /${prog} ${verb}: use /${prog} merge or /${prog} cancel` };
  let priority: string | undefined;
  let noBatch = false;
  for (let i = 0; i < args.length; i++) {
    const a = args[i]!;
    if (a === '--no-batch') noBatch = true;
    else if (a.startsWith('--priority=')) priority = a.slice('--priority='.length);
    else if (a === '--priority' || a === '-p') {
      priority = args[++i];
      if (priority === undefined)
        return { kind: 'invalid', message: `${a} needs a value: urgent, high, medium, low or a number from 0 to 255` };
    } else {
      return { kind: 'invalid', message: `unknown option ${a} of /${prog} merge: use --priority P and --no-batch` };
    }
  }
  return { kind: 'merge', noBatch, ...(priority !== undefined ? { priority } : {}) };
}
