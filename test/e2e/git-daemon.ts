/**
 * A git server for end-to-end tests: `git daemon` serving the bare repositories under a directory over
 * `git://127.0.0.1:<port>/`, pushes included. It runs as a child of the test process, so a push or
 * fetch in flight when greenline's process group is killed goes on (or fails) on the server's side as
 * with any real remote, instead of dying with greenline as a local-path remote's git would.
 */
import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { freePort } from '../helpers/free-port.js';
import { WaitTimeout, waitUntil } from '../helpers/wait-until.js';

const lsRemote = (url: string): Promise<boolean> =>
  new Promise((resolve) => execFile('git', ['ls-remote', url], { timeout: 5_000 }, (err) => resolve(!err)));

export class GitDaemon {
  private constructor(
    private readonly child: ChildProcess,
    readonly port: number,
  ) {}

  /** Serves every repository under `baseDir`; resolves once `probe` (a repository under it) answers. */
  static async start(baseDir: string, probe: string): Promise<GitDaemon> {
    for (let attempt = 0; ; attempt++) {
      const port = await freePort();
      const child = spawn(
        'git',
        [
          'daemon',
          '--reuseaddr',
          '--export-all',
          '--enable=receive-pack',
          `--base-path=${baseDir}`,
          '--listen=127.0.0.1',
          `--port=${port}`,
          baseDir,
        ],
        { stdio: 'ignore' },
      );
      const daemon = new GitDaemon(child, port);
      // Serving, or exited (its port was taken), or neither after 10 s.
      const serving = await waitUntil(
        `git daemon to serve ${probe}`,
        10_000,
        async () => (child.exitCode !== null ? false : (await lsRemote(daemon.url(probe))) || undefined),
        undefined,
        100,
      ).catch((err: unknown) => {
        if (err instanceof WaitTimeout) return false;
        throw err;
      });
      if (serving) return daemon;
      await daemon.stop();
      // The port was taken between choosing and binding it: try another.
      if (attempt >= 2) throw new Error(`git daemon did not serve ${probe} on port ${port}`);
    }
  }

  /** The URL of the repository at `<baseDir>/<name>`. */
  url(name: string): string {
    return `git://127.0.0.1:${this.port}/${name}`;
  }

  async stop(): Promise<void> {
    if (this.child.exitCode !== null || this.child.signalCode !== null) return;
    const exited = new Promise((r) => this.child.once('exit', r));
    this.child.kill('SIGTERM');
    await exited;
  }
}
