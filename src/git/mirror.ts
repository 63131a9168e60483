/**
 * A local bare mirror of one remote, at `${dataDir}/repos/<host>/<owner>/<name>.git`: every branch
 * (`+refs/heads/*:refs/heads/*`) and the PR heads of the repository's PR ref pattern. Test commits are
 * built in it and pushed from it; the command CI checks test commits out of it.
 *
 * Looks at the remote are on demand with a freshness window: reads accept a look that started at most
 * `fetchTtlMs` ago, and concurrent callers share one look, so a burst of calls looks once. A look is
 * one `git ls-remote`, compared with the refs the mirror holds (kept in memory): only when a branch or
 * PR head moved does it fetch. Reads of branches and PR heads are answered from that memory, without a
 * process. Our own pushes update the mirror's refs at once, so reads after a write never wait for the
 * window.
 */
import { existsSync } from 'node:fs';
import { mkdir, readdir } from 'node:fs/promises';
import path from 'node:path';
import { KeyedSerial } from '../lib/keyed-serial.js';
import { ForgeUnreachableError, type RepoBinding } from '../forge/port.js';
import { git, GitError, redact, runGit } from './git.js';

export interface MirrorOptions {
  dataDir: string;
  /** How old a fetch may be for a read to reuse it. */
  fetchTtlMs: number;
  /** Upper bound for one fetch, push or ls-remote. */
  networkTimeoutMs: number;
}

/** One ref of a `git push --porcelain` report. */
export interface PushedRef {
  /** ' ' fast-forward, '+' forced, '-' deleted, '*' new, '=' up to date, '!' rejected. */
  flag: string;
  ref: string;
  summary: string;
}

const SHA = /^[0-9a-f]{40}([0-9a-f]{24})?$/;
const PATH_PART = /^[A-Za-z0-9_][A-Za-z0-9._:-]*$/;

export const isSha = (s: string): boolean => SHA.test(s);

/**
 * Each mirror's queue of local changes, keyed by the mirror's resolved path. One for the process, not
 * one per Mirrors: the git forge and the command CI each hold Mirrors of the same directories, and
 * what must take turns is git's work on a directory, whoever starts it.
 */
const changing = new KeyedSerial();

/**
 * Runs `change` once the earlier local changes of the mirror at `mirrorDir` are done. git does not make
 * changes to one repository's refs and worktrees safe against each other: a fetch fails with "cannot
 * lock ref … is at X but expected Y" when an update-ref lands during it, and with "bad object
 * worktrees/<id>/HEAD" while a worktree is being added; concurrent worktree changes fail too
 * (worktree.ts). So fetches, local ref updates and worktree changes take turns.
 */
export function changeOneAtATime<T>(mirrorDir: string, change: () => Promise<T>): Promise<T> {
  return changing.run(path.resolve(mirrorDir), change); // one queue per mirror, however its path was written
}

export class Mirror {
  private initialised: Promise<void> | null = null;
  /** Start time of the last look that succeeded, and the look under way with its start time. */
  private lastFetchStart = -Infinity;
  /** Looks that started before this time do not serve reads (see `outdated`). */
  private outdatedAt = -Infinity;
  private inflight: { startedAt: number; done: Promise<void> } | null = null;
  /** The mirror's branches and PR heads (ref → sha) after the last look; null: not known. */
  private known: Map<string, string> | null = null;

  constructor(
    readonly dir: string,
    private binding: RepoBinding,
    private readonly opts: MirrorOptions,
  ) {}

  /** The binding may be reconnected with another remote or ref pattern; the newest one wins. */
  rebind(binding: RepoBinding): void {
    if (binding.remote !== this.binding.remote || binding.prRefPattern !== this.binding.prRefPattern) {
      this.known = null;
      this.lastFetchStart = -Infinity;
    }
    this.binding = binding;
  }

  get url(): string {
    const url = this.binding.remote;
    if (!url) throw new Error(`repository ${repoName(this.binding)} has no git remote configured`);
    return url;
  }

  /** The ref holding PR `n`'s head, from the binding's pattern (default `refs/pull/{n}/head`). */
  prRef(n: number): string {
    return this.binding.prRefPattern.replace('{n}', String(n));
  }

  /**
   * Looks at the remote unless a look started within the freshness window (or `maxAgeMs`) already,
   * fetching when a branch or PR head moved.
   */
  async refresh(maxAgeMs = this.opts.fetchTtlMs): Promise<void> {
    const notBefore = Math.max(Date.now() - maxAgeMs, this.outdatedAt);
    await this.init();
    for (;;) {
      if (this.lastFetchStart >= notBefore) return;
      if (!this.inflight) break;
      if (this.inflight.startedAt >= notBefore) return this.inflight.done;
      await this.inflight.done.catch(() => undefined);
    }
    const startedAt = Date.now();
    const done = this.look()
      .then(() => {
        this.lastFetchStart = Math.max(this.lastFetchStart, startedAt);
      })
      .finally(() => {
        this.inflight = null;
      });
    this.inflight = { startedAt, done };
    return done;
  }

  /** The remote changed (its refs moved): the next read looks again, even within the freshness window. */
  outdated(): void {
    this.outdatedAt = Date.now();
  }

  /** The commit a ref points at in the mirror, or null when there is no such ref. */
  async resolve(ref: string): Promise<string | null> {
    if (this.known && this.tracks(ref)) return this.known.get(ref) ?? null;
    const out = await runGit(['rev-parse', '--verify', '--quiet', `${ref}^{commit}`], { cwd: this.dir, okCodes: [1] });
    return out.code === 0 ? out.stdout.trim() : null;
  }

  /**
   * Makes sure every sha is a commit in the mirror, fetching once if some are missing (a PR pushed or
   * a branch moved since the last fetch). Returns the shas still missing after that.
   */
  async ensureCommits(shas: readonly string[]): Promise<string[]> {
    for (const sha of shas) if (!isSha(sha)) throw new Error(`not a commit sha: "${sha}"`);
    await this.init();
    let missing = await this.missingCommits(shas);
    if (missing.length > 0) {
      await this.refresh(0);
      missing = await this.missingCommits(missing);
    }
    return missing;
  }

  /** The remote's default branch (its HEAD), or null when the remote has none. */
  async defaultBranch(): Promise<string | null> {
    const out = await this.network(['ls-remote', '--symref', '--', this.url, 'HEAD']);
    const m = /^ref: refs\/heads\/(\S+)\tHEAD$/m.exec(out.stdout);
    return m ? m[1] : null;
  }

  /** The names of every branch the remote holds right now (without `refs/heads/`). */
  async lsRemoteHeads(): Promise<string[]> {
    const out = await this.network(['ls-remote', '--heads', '--', this.url]);
    return out.stdout.split('\n').flatMap((line) => {
      const ref = line.split('\t')[1];
      return ref?.startsWith('refs/heads/') ? [ref.slice('refs/heads/'.length)] : [];
    });
  }

  /** What the remote holds right now for the given refs (missing refs are absent from the map). */
  async lsRemote(refs: readonly string[]): Promise<Map<string, string>> {
    const out = await this.network(['ls-remote', '--', this.url, ...refs]);
    const found = new Map<string, string>();
    for (const line of out.stdout.split('\n')) {
      const [sha, ref] = line.split('\t');
      // ls-remote matches patterns by their tail; keep only exact names.
      if (ref && refs.includes(ref)) found.set(ref, sha);
    }
    return found;
  }

  /**
   * `git push --porcelain` of `refspecs` with extra `flags`; the mirror's own refs follow the refs the
   * remote accepted. Rejections are returned, not thrown; an unreachable remote throws.
   */
  async push(refspecs: readonly string[], flags: readonly string[] = []): Promise<PushedRef[]> {
    const out = await this.network(['push', '--porcelain', '--no-verify', ...flags, '--', this.url, ...refspecs], [1]);
    const pushed = out.stdout.split('\n').flatMap((line) => {
      const m = /^(.)\t([^\t]*):([^\t]+)\t(.*)$/.exec(line);
      return m ? [{ flag: m[1], src: m[2].replace(/^\+/, ''), ref: m[3], summary: m[4] }] : [];
    });
    if (out.code !== 0 && !pushed.some((p) => p.flag === '!')) {
      throw new Error(`push to ${redact(this.url)} failed: ${out.stderr.trim()}`);
    }
    for (const p of pushed) {
      if (p.flag === '-') await this.setLocalRef(p.ref, null);
      else if (p.flag !== '!' && isSha(p.src)) await this.setLocalRef(p.ref, p.src);
    }
    return pushed.map(({ flag, ref, summary }) => ({ flag, ref, summary }));
  }

  /**
   * Makes the mirror's ref follow what we know the remote now holds (sha, or null: deleted). The
   * mirror is a cache: when the update fails (a fetch holds the ref's lock), the next read fetches.
   */
  async setLocalRef(ref: string, sha: string | null): Promise<void> {
    try {
      await changeOneAtATime(this.dir, async () => {
        await git(sha ? ['update-ref', ref, sha] : ['update-ref', '-d', ref], { cwd: this.dir });
        if (!this.known || !this.tracks(ref)) return;
        if (sha) this.known.set(ref, sha);
        else this.known.delete(ref);
      });
    } catch {
      this.lastFetchStart = -Infinity;
      this.known = null;
    }
  }

  /** Whether the mirror fetches `ref`: a branch, or a PR head of the binding's pattern. */
  private tracks(ref: string): boolean {
    if (ref.startsWith('refs/heads/')) return true;
    const [before, after] = this.binding.prRefPattern.split('{n}') as [string, string];
    return ref.length > before.length + after.length && ref.startsWith(before) && ref.endsWith(after);
  }

  /** The branches and PR heads of `lines` (`<sha> <tab or space> <ref>`, as ls-remote and for-each-ref print them). */
  private trackedRefs(lines: string): Map<string, string> {
    const refs = new Map<string, string>();
    for (const line of lines.split('\n')) {
      const m = /^([0-9a-f]+)\s+(\S+)$/.exec(line);
      if (m && this.tracks(m[2]!)) refs.set(m[2]!, m[1]!);
    }
    return refs;
  }

  /**
   * One `git ls-remote`; a fetch only when the remote's branches or PR heads differ from the mirror's
   * (then the mirror's refs are read again, in the same turn as the fetch).
   */
  private async look(): Promise<void> {
    const remote = this.trackedRefs((await this.network(['ls-remote', '--refs', '--', this.url])).stdout);
    const known = this.known;
    if (known && known.size === remote.size && [...remote].every(([ref, sha]) => known.get(ref) === sha)) return;
    await changeOneAtATime(this.dir, async () => {
      this.known = null;
      await this.fetch();
      this.known = this.trackedRefs(
        await git(['for-each-ref', '--format=%(objectname) %(refname)'], { cwd: this.dir }),
      );
    });
  }

  private init(): Promise<void> {
    this.initialised ??= (async () => {
      if (existsSync(path.join(this.dir, 'HEAD'))) return;
      await mkdir(path.dirname(this.dir), { recursive: true });
      await git(['init', '--bare', '--quiet', this.dir]);
    })().catch((err: unknown) => {
      this.initialised = null;
      throw err;
    });
    return this.initialised;
  }

  /** Fetches every branch and PR head (the caller holds the mirror's turn: changeOneAtATime). */
  private async fetch(): Promise<void> {
    const specs = ['+refs/heads/*:refs/heads/*'];
    const pattern = this.binding.prRefPattern;
    if (!pattern.startsWith('refs/heads/')) {
      const glob = pattern.replace('{n}', '*');
      specs.push(`+${glob}:${glob}`);
    }
    await this.network(['fetch', '--prune', '--no-tags', '--quiet', '--', this.url, ...specs]);
  }

  private async missingCommits(shas: readonly string[]): Promise<string[]> {
    if (shas.length === 0) return [];
    const out = await runGit(['cat-file', '--batch-check'], {
      cwd: this.dir,
      input: shas.map((s) => `${s}^{commit}\n`).join(''),
    });
    return out.stdout
      .split('\n')
      .filter((l) => l.endsWith(' missing'))
      .map((l) => l.split('^')[0]);
  }

  /** Commands that talk to the remote: an unreachable remote is reported as such. */
  private async network(args: string[], okCodes: number[] = []): ReturnType<typeof runGit> {
    await this.init();
    try {
      return await runGit(args, { cwd: this.dir, okCodes, timeoutMs: this.opts.networkTimeoutMs });
    } catch (err) {
      if (err instanceof GitError)
        throw new ForgeUnreachableError(`cannot reach remote ${redact(this.url)}: ${redact(err.stderr.trim())}`);
      throw err;
    }
  }
}

const repoName = (b: RepoBinding): string => `${b.repo.host}/${b.repo.owner}/${b.repo.name}`;

/** The directories of every mirror of the data dir (`repos/<host>/<owner>/<name>.git`). */
export async function listMirrorDirs(dataDir: string): Promise<string[]> {
  const below = async (dir: string): Promise<string[]> => {
    try {
      return (await readdir(dir, { withFileTypes: true }))
        .filter((e) => e.isDirectory())
        .map((e) => path.join(dir, e.name));
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'ENOENT') return [];
      throw err;
    }
  };
  const dirs: string[] = [];
  for (const host of await below(path.join(dataDir, 'repos'))) {
    for (const owner of await below(host)) dirs.push(...(await below(owner)).filter((d) => d.endsWith('.git')));
  }
  return dirs;
}

/** One Mirror per repository directory, shared by every caller in the process. */
export class Mirrors {
  private readonly byDir = new Map<string, Mirror>();

  constructor(private readonly opts: MirrorOptions) {}

  get(binding: RepoBinding): Mirror {
    const { host, owner, name } = binding.repo;
    for (const part of [host, owner, name]) {
      if (!PATH_PART.test(part)) throw new Error(`repository ${repoName(binding)}: "${part}" cannot name a directory`);
    }
    const pattern = binding.prRefPattern;
    if (!pattern.startsWith('refs/') || pattern.split('{n}').length !== 2) {
      throw new Error(`PR ref pattern "${pattern}" must start with refs/ and contain {n} once`);
    }
    const dir = path.join(this.opts.dataDir, 'repos', host, owner, `${name}.git`);
    let mirror = this.byDir.get(dir);
    if (mirror) mirror.rebind(binding);
    else {
      mirror = new Mirror(dir, binding, this.opts);
      this.byDir.set(dir, mirror);
    }
    return mirror;
  }
}
