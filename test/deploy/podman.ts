/**
 * Podman for the container tests: installed from Debian when missing (root, apt), configured for this
 * kind of machine (runc: crun fails on its kernel; explicit ulimits), and the image built as
 * docs/deploy.md says — on a local base image, since no container registry is reachable here.
 *
 * The local base (test/deploy/build-local-base.sh: debootstrap bookworm minbase plus this machine's
 * Node.js and CA bundle) is kept in podman's image store under a tag naming the hash of everything it
 * is made of (the script, the node binary, the CA bundle): a later run on the same machine reuses it,
 * any change builds a new one. A fresh machine builds it (51 to 115 s seen here).
 */
import { execFile, spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdtempSync, readFileSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

export const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const BASE_SCRIPT = path.join(ROOT, 'test/deploy/build-local-base.sh');
const PACKAGES = ['podman', 'buildah', 'runc', 'debootstrap', 'uidmap', 'containernetworking-plugins'];
export const CA_BUNDLE = '/etc/ssl/certs/ca-certificates.crt';

export interface Run {
  code: number;
  stdout: string;
  stderr: string;
}

function has(cmd: string): boolean {
  return spawnSync('sh', ['-c', `command -v ${cmd}`]).status === 0;
}

/** Makes podman, runc and debootstrap available; returns why not when it cannot. */
export function ensurePodman(): string | null {
  if (['podman', 'runc', 'debootstrap'].every(has)) return null;
  if (process.getuid?.() !== 0 || !has('apt-get'))
    return 'podman is not installed and cannot be (needs root and apt-get)';
  const env = { ...process.env, DEBIAN_FRONTEND: 'noninteractive' };
  for (const args of [['update'], ['install', '-y', '--no-install-recommends', ...PACKAGES]]) {
    const r = spawnSync('apt-get', args, { env, encoding: 'utf8', timeout: 300_000 });
    if (r.status !== 0) return `apt-get ${args.join(' ')} failed: ${(r.stderr || r.stdout).slice(-2000)}`;
  }
  return null;
}

/** A podman with its own containers.conf; `dispose` removes the configuration's temp dir. */
export class Podman {
  private readonly dir = mkdtempSync(path.join(tmpdir(), 'greenline-podman-'));
  readonly env: NodeJS.ProcessEnv;

  constructor() {
    const conf = path.join(this.dir, 'containers.conf');
    writeFileSync(
      conf,
      [
        '[containers]',
        'default_ulimits = ["nofile=20000:20000", "nproc=32768:32768"]',
        '[engine]',
        'runtime = "runc"',
        '',
      ].join('\n'),
    );
    this.env = { ...process.env, CONTAINERS_CONF: conf };
  }

  run(args: string[], timeoutMs = 120_000, cwd = ROOT): Promise<Run> {
    return new Promise((resolve) => {
      execFile(
        'podman',
        args,
        { cwd, env: this.env, timeout: timeoutMs, maxBuffer: 64 * 1024 * 1024 },
        (err, stdout, stderr) => {
          resolve({ code: err ? (typeof err.code === 'number' ? err.code : 1) : 0, stdout, stderr });
        },
      );
    });
  }

  /** Runs podman; throws with its output unless it exits 0; resolves to its trimmed stdout. */
  async ok(args: string[], timeoutMs?: number): Promise<string> {
    const r = await this.run(args, timeoutMs);
    if (r.code !== 0)
      throw new Error(`podman ${args.join(' ')} exited ${r.code}: ${r.stderr.slice(-4000)}${r.stdout.slice(-2000)}`);
    return r.stdout.trim();
  }

  /** The local base image, built unless an identical one is in the image store. */
  async localBase(): Promise<string> {
    const hash = createHash('sha256');
    for (const file of [BASE_SCRIPT, realpathSync(process.execPath), CA_BUNDLE]) hash.update(readFileSync(file));
    const image = `localhost/greenline-base:${hash.digest('hex').slice(0, 16)}`;
    if ((await this.run(['image', 'exists', image])).code === 0) return image;
    const r = await new Promise<Run>((resolve) => {
      execFile(BASE_SCRIPT, [image], { env: this.env, timeout: 600_000 }, (err, stdout, stderr) =>
        resolve({ code: err ? 1 : 0, stdout, stderr }),
      );
    });
    if (r.code !== 0) throw new Error(`building the local base image failed: ${r.stderr.slice(-4000)}`);
    return image;
  }

  dispose(): void {
    rmSync(this.dir, { recursive: true, force: true });
  }
}
