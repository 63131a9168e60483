/**
 * An application instance on a shared store that can die in the middle of an effect, as kill -9 does:
 * at a chosen call to its forge or CI the call never returns (the work done or not, as chosen), the
 * instance runs nothing more and `dead` resolves. The forge is shared (one remote for every instance);
 * each instance has its own fake CI, which dies with it. Every effect call the forge or a CI performs
 * is appended to one shared log, in the order it happened; a call made while the instance takes queues
 * over (its clean-up of leftover test branches, test-branch-reconcile.ts) is marked `atTakeover`: the
 * takeover's listing of the test branches starts that clean-up, its call of the CI's `cleanUp` ends it.
 *
 *   const a = mortalInstance({ db, clock, forge, log, instanceId: 'a', dieAt: (call) => call.op === 'ciStart' ? 'before' : null });
 *   await a.drain();          // returns when idle, or as soon as the instance died
 */
import { ScriptedCi } from '../doubles/scripted-ci.js';
import type { InMemoryForge } from '../doubles/in-memory-forge.js';
import type { Clock } from '../../src/lib/clock.js';
import { createApp, type App } from '../../src/app/create-app.js';
import type { ForgePort, RepoBinding } from '../../src/forge/port.js';
import type { CiPort } from '../../src/ci/port.js';
import type { Db } from '../../src/store/connect.js';

export type EffectOp = 'createTestBranch' | 'deleteBranch' | 'advanceTarget' | 'ciStart' | 'ciCancel';

export interface EffectCall {
  instance: string;
  op: EffectOp;
  /** The run the call is for: the last segment of a test branch, the CI run id; null for a merge. */
  runId: string | null;
  /** For a merge: the commit it puts on the target. */
  testSha?: string;
  /** Made by the takeover (deleting a branch no queue needs), not by an effect. */
  atTakeover?: true;
}

export interface MortalInstanceOptions {
  db: Db;
  clock: Clock;
  forge: InMemoryForge;
  instanceId: string;
  leaseTtlMs: number;
  /** The shared log of performed effect calls. */
  log: EffectCall[];
  /** At each effect call (counted from 0 for this instance): die before doing it, after doing it, or live on. */
  dieAt?: (call: EffectCall, index: number) => 'before' | 'after' | null;
  /** Told of each call just before it is performed (e.g. to look at the store then). */
  beforeCall?: (call: EffectCall) => Promise<void>;
}

export interface MortalInstance {
  app: App;
  ci: ScriptedCi;
  readonly dead: Promise<void>;
  isDead(): boolean;
  /** Runs due effects until none is due, or until the instance dies. */
  drain(): Promise<void>;
  /** Stops a live instance (a dead one is left as it died: nothing of it runs). */
  stop(): Promise<void>;
}

const runOfBranch = (branch: string): string => branch.slice(branch.lastIndexOf('/') + 1);

export function mortalInstance(opts: MortalInstanceOptions): MortalInstance {
  let died = false;
  let die!: () => void;
  const dead = new Promise<void>((resolve) => {
    die = resolve;
  });
  let index = 0;
  let takingOver = false;
  const never = new Promise<never>(() => undefined);

  async function perform<T>(call: EffectCall, work: () => Promise<T>): Promise<T> {
    if (died) return never;
    const when = opts.dieAt?.(call, index++) ?? null;
    if (when === 'before') {
      died = true;
      die();
      return never;
    }
    await opts.beforeCall?.(call);
    const result = await work();
    opts.log.push(takingOver ? { ...call, atTakeover: true } : call);
    if (when === 'after') {
      died = true;
      die();
      return never;
    }
    return result;
  }

  const { forge, instanceId: instance } = opts;
  const mortalForge: ForgePort = Object.create(forge, {
    listBranches: {
      value: (binding: RepoBinding, prefix: string) => {
        takingOver = true;
        return forge.listBranches(binding, prefix);
      },
    },
    createTestBranch: {
      value: (
        binding: Parameters<ForgePort['createTestBranch']>[0],
        req: Parameters<ForgePort['createTestBranch']>[1],
      ) =>
        perform({ instance, op: 'createTestBranch', runId: runOfBranch(req.branch) }, () =>
          forge.createTestBranch(binding, req),
        ),
    },
    deleteBranch: {
      value: (binding: Parameters<ForgePort['deleteBranch']>[0], branch: string) =>
        perform({ instance, op: 'deleteBranch', runId: runOfBranch(branch) }, () =>
          forge.deleteBranch(binding, branch),
        ),
    },
    advanceTarget: {
      value: (binding: Parameters<ForgePort['advanceTarget']>[0], req: Parameters<ForgePort['advanceTarget']>[1]) =>
        perform({ instance, op: 'advanceTarget', runId: null, testSha: req.testSha }, () =>
          forge.advanceTarget(binding, req),
        ),
    },
  }) as ForgePort;

  const ci = new ScriptedCi();
  const mortalCi: CiPort = {
    start: (req) => perform({ instance, op: 'ciStart', runId: req.runId }, () => ci.start(req)),
    cancel: (runId) => perform({ instance, op: 'ciCancel', runId }, () => ci.cancel(runId)),
    getLog: (runId) => ci.getLog(runId),
    cleanUp: async () => {
      takingOver = false;
    },
  };

  const app = createApp({
    db: opts.db,
    clock: opts.clock,
    forges: { git: mortalForge, github: mortalForge },
    pollIntervalMs: 60_000,
    leaseTtlMs: opts.leaseTtlMs,
    instanceId: opts.instanceId,
    createCi: (onStatus) => {
      ci.onStatus = onStatus;
      return mortalCi;
    },
  });

  return {
    app,
    ci,
    dead,
    isDead: () => died,
    drain: () => (died ? Promise.resolve() : Promise.race([app.runner.drain(), dead])),
    stop: () => (died ? Promise.resolve() : app.stop()),
  };
}
