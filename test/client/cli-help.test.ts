/** Every client command, and every command group, prints help with examples (in process: no server needed). */
import type { Command } from 'commander';
import { describe, expect, it } from 'vitest';
import { buildProgram } from '../../src/cli/program.js';

const CLIENT_COMMANDS = ['pr', 'queue', 'targets', 'test-run', 'metrics', 'health'];

function helpOf(cmd: Command): string {
  let out = '';
  cmd.configureOutput({ writeOut: (s) => { out += s; }, writeErr: (s) => { out += s; } });
  cmd.outputHelp();
  return out;
}

/** The command and every command below it, with their full names. */
const walk = (cmd: Command, prefix: string): [string, Command][] =>
  [[prefix, cmd], ...cmd.commands.flatMap((c) => walk(c, `${prefix} ${c.name()}`))];

describe('client commands --help', () => {
  const program = buildProgram();
  const commands = CLIENT_COMMANDS.flatMap((name) => walk(program.commands.find((c) => c.name() === name)!, name));

  it('covers every command group and subcommand', () => {
    expect(commands.map(([name]) => name)).toEqual(expect.arrayContaining([
      'pr submit', 'pr cancel', 'pr restart', 'pr status', 'pr list',
      'queue create', 'queue get', 'queue update', 'queue pause', 'queue resume', 'queue drain', 'queue delete',
      'targets set', 'test-run get', 'test-run log', 'test-run report', 'metrics', 'health',
    ]));
  });

  it.each(commands.map(([name, cmd]) => ({ name, cmd })))('$name shows examples, and the server options on a command that calls it', ({ cmd }) => {
    const help = helpOf(cmd);
    expect(help).toMatch(/Examples?:\n {2}\$ greenline /);
    if (cmd.commands.length === 0) {
      expect(help).toContain('--url <url>');
      expect(help).toContain('--token <token>');
      expect(help).toContain('--json');
    }
  });
});
