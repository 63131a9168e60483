/**
 * The git forge as greenline knows it (forge/definition.ts): `--forge git`, any remote git can fetch
 * from and push to (docs/git-forge.md). It needs no settings and is always there: it is the git
 * forge every forge is handed (ForgeContext.git), and as a forge of its own it is that one instance.
 */
import { statSync } from 'node:fs';
import { runGit } from '../../git/git.js';
import { isLocalPath } from '../../git/remote-path.js';
import { type ForgeDefinition, ForgeSettingsError } from '../definition.js';

/**
 * A remote git cannot list is refused at connect time, where the mistake is made and easy to fix.
 * `given` is the --remote value as typed, named when a local path was resolved from it.
 */
async function checkRemote(remote: string, given: string): Promise<void> {
  const resolvedFrom = remote === given ? '' : ` (--remote ${given} resolved against ${process.cwd()})`;
  if (isLocalPath(remote) && !isDirectory(remote)) {
    throw new ForgeSettingsError(
      `Cannot reach the remote ${remote}${resolvedFrom}: no such directory.\n` +
        'Give the path of a git repository (e.g. a bare one made with `git init --bare`); a relative path is resolved against the current directory. ' +
        'Or pass --no-remote-check to connect it anyway.',
    );
  }
  try {
    await runGit(['ls-remote', '--heads', '--', remote], { timeoutMs: 60_000 });
  } catch (err) {
    const why = err instanceof Error ? err.message : String(err);
    const fix = isLocalPath(remote)
      ? 'Give the path of a git repository (e.g. a bare one made with `git init --bare`)'
      : "Check the URL and git's credentials for it";
    throw new ForgeSettingsError(
      `Cannot reach the remote ${remote}${resolvedFrom}: ${why}\n${fix}, or pass --no-remote-check to connect it anyway.`,
    );
  }
}

function isDirectory(p: string): boolean {
  try {
    return statSync(p).isDirectory();
  } catch {
    return false;
  }
}

declare module '../port.js' {
  interface ForgeNames {
    git: true;
  }
}

export const gitForge: ForgeDefinition<'git', Record<never, never>> = {
  name: 'git',
  settings: {},
  create: (_settings, { git }) => ({ port: git }),
  // No address is known, unless the repository was connected with --pr-url-template.
  links: { pr: () => null, commit: () => null },
  connect: {
    title: 'The git forge',
    accessHint: '',
    plan(flags) {
      if (!flags.remote)
        throw new ForgeSettingsError('--forge git needs --remote <url>: a path or URL git can fetch from and push to');
      return { remote: flags.remote };
    },
    async check({ flags }) {
      await checkRemote(flags.remote!, flags.remoteGiven!);
      return { spelled: null, said: [] };
    },
    where: (row, flags) =>
      `remote ${row.remote}${row.remote === flags.remoteGiven ? '' : `, resolved from ${flags.remoteGiven}`}`,
  },
};
