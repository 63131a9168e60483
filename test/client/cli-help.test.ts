/**
 * Every client command, and every command group, prints help with examples, and docs/cli.md documents
 * each of them (in process: no server needed).
 */
import { readFileSync } from 'node:fs';
import type { Command } from 'commander';
import { describe, expect, it } from 'vitest';
import { buildProgram } from '../../src/cli/program.js';

const CLIENT_COMMANDS = ['pr', 'queue', 'targets', 'test-run', 'metrics', 'health', 'hook'];

function helpOf(cmd: Command): string {
  let out = '';
  cmd.configureOutput({
    writeOut: (s) => {
      out += s;
    },
    writeErr: (s) => {
      out += s;
    },
  });
  cmd.outputHelp();
  return out;
}

/** The command and every command below it, with their full names. */
const walk = (cmd: Command, prefix: string): [string, Command][] => [
  [prefix, cmd],
  ...cmd.commands.flatMap((c) => walk(c, `${prefix} ${c.name()}`)),
];

describe('client commands --help', () => {
  const program = buildProgram();
  const commands = CLIENT_COMMANDS.flatMap((name) => walk(program.commands.find((c) => c.name() === name)!, name));

  it('covers every command group and subcommand', () => {
    expect(commands.map(([name]) => name)).toEqual(
      expect.arrayContaining([
        'pr submit',
        'pr cancel',
        'pr restart',
        'pr status',
        'pr list',
        'pr history',
        'queue create',
        'queue get',
        'queue update',
        'queue pause',
        'queue resume',
        'queue drain',
        'queue delete',
        'queue order',
        'queue graph',
        'targets set',
        'test-run get',
        'test-run log',
        'test-run report',
        'metrics',
        'health',
      ]),
    );
  });

  it.each(commands.map(([name, cmd]) => ({ name, cmd })))(
    '$name shows examples, and the server options on a command that calls it',
    ({ cmd }) => {
      const help = helpOf(cmd);
      expect(help).toMatch(/Examples?:\n {2}\$ greenline /);
      if (cmd.commands.length === 0) {
        expect(help).toContain('--url <url>');
        expect(help).toContain('--token <token>');
        expect(help).toContain('--json');
      }
    },
  );
});

describe('docs/cli.md', () => {
  const doc = readFileSync(new URL('../../docs/cli.md', import.meta.url), 'utf8');

  it('names every top-level command in its overview of the kinds of commands', () => {
    const overview = doc.slice(0, doc.indexOf('\n## '));
    const named = new Set([...overview.matchAll(/`(?:greenline )?([a-z-]+)`/g)].map((m) => m[1]!));
    for (const cmd of buildProgram().commands)
      expect(named, `docs/cli.md names \`${cmd.name()}\``).toContain(cmd.name());
  });
  const leaves = CLIENT_COMMANDS.flatMap((name) =>
    walk(buildProgram().commands.find((c) => c.name() === name)!, name),
  ).filter(([, cmd]) => cmd.commands.length === 0);

  it.each(leaves.map(([name, cmd]) => ({ name, cmd })))('documents `$name` and its own options', ({ name, cmd }) => {
    expect(doc.includes(`\`${name}`) || doc.includes(`\`greenline ${name}`), `docs/cli.md names \`${name}\``).toBe(
      true,
    );
    const own = cmd.options
      .map((o) => o.long!)
      .filter((flag) => !['--url', '--token', '--client-config', '--json', '--repo', '--branch'].includes(flag));
    // queue update's options are generated from the API schema; the page explains the rule instead.
    if (name === 'queue update') return;
    for (const flag of own) expect(doc, `${name} ${flag}`).toContain(flag);
  });
});
