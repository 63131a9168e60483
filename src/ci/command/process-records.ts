/**
 * The CI process groups of a data dir, on disk: `<dataDir>/ci-processes/<runId>.json`, written before
 * a command starts and removed once its group is gone. A command runs in a session of its own, outside
 * the server's process group, so a server killed without stopping its commands (kill -9, a crash)
 * leaves them running; the next server on the data dir stops them at start-up (`stopLeftoverGroups`).
 *
 * Each command gets a random tag, in its environment as `GREENLINE_CI_TAG`, which everything it
 * starts inherits. The record is written twice: with the run id, the tag and the boot id before the
 * spawn, so that a server killed while it spawns leaves a record of what it may have started; and with
 * the group id and the group leader's start time (clock ticks since boot, field 22 of
 * /proc/<pid>/stat) once the group exists. Each write replaces the file whole (rename), so a kill
 * never leaves half a record.
 *
 * Before a group is signalled it is checked to be ours, never a stranger that got the number since
 * (pid reuse): after a reboot nothing is ours; a recorded leader still alive must have the recorded
 * start time; and the group of every process that carries the record's tag is ours (a leader gone,
 * or never recorded).
 *
 * Linux only (/proc): elsewhere groups are recorded but never verified, so never stopped.
 */
import { randomBytes } from 'node:crypto';
import { mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { readdir, readFile, rm } from 'node:fs/promises';
import path from 'node:path';
import { systemClock, type TimerClock } from '../../lib/clock.js';
import { terminateGroup } from './process-group.js';

/** The variable that carries a command's tag to every process it starts. */
export const CI_TAG_ENV = 'GREENLINE_CI_TAG';

export interface GroupRecord {
  runId: string;
  /** In the environment of the command's processes as `GREENLINE_CI_TAG` (absent in records of older versions). */
  tag?: string;
  /** Null until the command was spawned. */
  pgid: number | null;
  /** The leader's start time in clock ticks since boot; null when it could not be read. */
  startTicks: number | null;
  bootId: string | null;
  /** When the command started (ms since the epoch). */
  startedAt: number;
}

export class ProcessRecords {
  constructor(
    private readonly dir: string,
    private readonly clock: TimerClock = systemClock,
  ) {}

  /** A new tag for a command's processes. */
  static newTag(): string {
    return randomBytes(16).toString('hex');
  }

  /**
   * Records a command: before it is spawned (`pgid` null), and again with its group once spawned.
   * Synchronous on purpose: nothing else runs between the spawn and the record.
   */
  record(runId: string, tag: string, pgid: number | null): void {
    const stat = pgid === null ? null : readStatSync(pgid);
    const rec: GroupRecord = {
      runId,
      tag,
      pgid,
      startTicks: stat?.startTicks ?? null,
      bootId: readBootIdSync(),
      startedAt: this.clock.now(),
    };
    mkdirSync(this.dir, { recursive: true });
    const file = this.file(runId);
    writeFileSync(`${file}.tmp`, `${JSON.stringify(rec)}\n`);
    renameSync(`${file}.tmp`, file);
  }

  async forget(runId: string): Promise<void> {
    await rm(this.file(runId), { force: true });
  }

  /**
   * Stops (SIGTERM, SIGKILL after `graceMs`) every recorded group that is still alive and verified to
   * be ours, except the runs `keep` claims (this process's own); forgets every record it handled.
   * Returns the records of the groups stopped.
   */
  async stopLeftoverGroups(keep: (runId: string) => boolean, graceMs: number): Promise<GroupRecord[]> {
    const records = await this.list(keep);
    const stopped: GroupRecord[] = [];
    const processes = records.length > 0 ? await listProcesses() : [];
    await Promise.all(
      records.map(async (rec) => {
        const groups = groupsOf(rec, processes);
        if (groups.length > 0) {
          await Promise.all(groups.map((pgid) => terminateGroup(pgid, graceMs, this.clock)));
          stopped.push(rec);
        }
        // Another run with this id may have started meanwhile (a queue taken over): its record stays.
        if (!keep(rec.runId)) await this.forget(rec.runId);
      }),
    );
    return stopped;
  }

  /** The records of runs `keep` does not claim. */
  private async list(keep: (runId: string) => boolean): Promise<GroupRecord[]> {
    let names: string[];
    try {
      names = await readdir(this.dir);
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'ENOENT') return [];
      throw err;
    }
    const records: GroupRecord[] = [];
    const theirs = (suffix: string) => (n: string) => n.endsWith(suffix) && !keep(n.slice(0, -suffix.length));
    // Cut short by a kill: nothing was spawned yet, or the record it was to replace holds the tag.
    for (const name of names.filter(theirs('.json.tmp'))) await rm(path.join(this.dir, name), { force: true });
    for (const name of names.filter(theirs('.json'))) {
      try {
        records.push(JSON.parse(await readFile(path.join(this.dir, name), 'utf8')) as GroupRecord);
      } catch {
        // Not a record (records are renamed into place whole): nothing can be verified by it.
        await rm(path.join(this.dir, name), { force: true });
      }
    }
    return records;
  }

  private file(runId: string): string {
    return path.join(this.dir, `${runId}.json`);
  }
}

interface ProcStat {
  pid: number;
  pgid: number;
  startTicks: number;
}

interface ListedProcess extends ProcStat {
  /** The `GREENLINE_CI_TAG` of its environment. */
  tag: string | null;
}

/** Fields of /proc/<pid>/stat after the command name (which may hold spaces and parentheses). */
function parseStat(pid: number, text: string): ProcStat | null {
  const rest = text.slice(text.lastIndexOf(')') + 2).split(' ');
  // rest[0] is field 3 (state): field N is rest[N - 3]. pgrp is field 5, starttime field 22.
  const pgid = Number(rest[2]);
  const startTicks = Number(rest[19]);
  return Number.isInteger(pgid) && Number.isInteger(startTicks) ? { pid, pgid, startTicks } : null;
}

function readStatSync(pid: number): ProcStat | null {
  const text = readFileSyncOrNull(`/proc/${pid}/stat`);
  return text === null ? null : parseStat(pid, text);
}

function readBootIdSync(): string | null {
  return readFileSyncOrNull('/proc/sys/kernel/random/boot_id')?.trim() ?? null;
}

function readFileSyncOrNull(file: string): string | null {
  try {
    return readFileSync(file, 'utf8');
  } catch {
    return null;
  }
}

/** Every process /proc shows (those that exit while it is read are left out), with the tag it carries. */
async function listProcesses(): Promise<ListedProcess[]> {
  let names: string[];
  try {
    names = await readdir('/proc');
  } catch {
    return [];
  }
  const stats = await Promise.all(
    names
      .filter((n) => /^\d+$/.test(n))
      .map(async (n) => {
        try {
          const stat = parseStat(Number(n), await readFile(`/proc/${n}/stat`, 'utf8'));
          return stat && { ...stat, tag: await readTag(stat.pid) };
        } catch {
          return null;
        }
      }),
  );
  return stats.filter((s): s is ListedProcess => s !== null);
}

/** The CI tag in a process's environment; null without one, or when the environment cannot be read. */
async function readTag(pid: number): Promise<string | null> {
  try {
    const entry = (await readFile(`/proc/${pid}/environ`, 'utf8'))
      .split('\0')
      .find((e) => e.startsWith(`${CI_TAG_ENV}=`));
    return entry === undefined ? null : entry.slice(CI_TAG_ENV.length + 1);
  } catch {
    return null;
  }
}

/** The groups of `rec` still alive and verified to be ours (see the module comment). */
function groupsOf(rec: GroupRecord, processes: readonly ListedProcess[]): number[] {
  if (rec.bootId === null || rec.bootId !== readBootIdSync()) return [];
  const groups = new Set<number>();
  const leader = rec.pgid === null ? undefined : processes.find((p) => p.pid === rec.pgid);
  if (leader && leader.pgid === rec.pgid && rec.startTicks !== null && leader.startTicks === rec.startTicks)
    groups.add(leader.pgid);
  for (const p of processes) if (rec.tag !== undefined && p.tag === rec.tag) groups.add(p.pgid);
  return [...groups];
}
