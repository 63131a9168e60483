/**
 * `greenline demo`: a complete local merge queue in one command. Builds two bare git repositories
 * (src/demo/demo-repo.ts): `shop` with 15 pull requests and `api` with 10, connects them with the git
 * forge and the built-in CI runner (`sh ./test.sh`), starts the server, creates a queue for each (the
 * shop's in the mode asked for; the api's parallel and batching, so batches, bisection and lanes can be
 * seen), submits every PR, prints the dashboard's address and a token, reports each PR as it concludes,
 * and serves until Ctrl-C.
 */
import { existsSync, readdirSync } from 'node:fs';
import { mkdir, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { Command, Option } from 'commander';
import { loadConfig } from '../config/config.js';
import { API, buildDemoRepo, SHOP, type DemoProject, type DemoRepo } from '../demo/demo-repo.js';
import { UsageError } from './usage-error.js';

/** A data dir the demo made holds this file: only such a dir is wiped on the next run. */
const MARKER = '.greenline-demo';
const DEMO_HOST = 'demo.greenline.local';
export const DEMO_REPO_SLUG = `${DEMO_HOST}/acme/shop`;
/** The parallel queue beside the shop's: batches of 3 in lanes by area, a failing batch bisected. */
const API_QUEUE = { mode: 'parallel', concurrency: 2 };
/** Set with updateQueue: createQueue takes only the mode and the concurrency. */
const API_BATCHING = {
  batch: true,
  batchingMinSize: 3,
  batchingMaxWaitTimeMinutes: 1,
  bisectionConcurrency: 2,
};

interface DemoFlags {
  port: string;
  host: string;
  dataDir: string;
  mode: 'single' | 'parallel';
  logLevel: string;
}

const say = (line: string): void => {
  process.stdout.write(`${line}\n`);
};

async function prepareDataDir(dir: string): Promise<void> {
  if (existsSync(dir) && readdirSync(dir).length > 0) {
    if (!existsSync(path.join(dir, MARKER))) {
      throw new UsageError(
        `${dir} exists and was not made by greenline demo; pass an empty or new directory with --data-dir`,
      );
    }
    await rm(dir, { recursive: true, force: true });
  }
  await mkdir(dir, { recursive: true });
  await writeFile(path.join(dir, MARKER), 'Made by greenline demo; deleted and rebuilt by the next run.\n');
}

async function api(url: string, token: string, endpoint: string, body: unknown): Promise<unknown> {
  const res = await fetch(`${url}/v1/${endpoint}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-api-token': token },
    body: JSON.stringify(body),
  });
  const text = await res.text();
  if (!res.ok) throw new Error(`${endpoint} answered ${res.status}: ${text}`);
  return JSON.parse(text) as unknown;
}

/**
 * Prints each PR's conclusion once (after `label` when given), and a summary when `expected` PRs have
 * concluded.
 */
function reportConclusions(url: string, token: string, key: object, expected: number, label = ''): () => void {
  const seen = new Set<number>();
  let stopped = false;
  const tick = async () => {
    try {
      const a = (await api(url, token, 'getQueueActivity', key)) as {
        recentPullRequests: { prNumber: number; prTitle: string; state: string; reason: string }[];
      };
      for (const pr of [...a.recentPullRequests].reverse()) {
        if (seen.has(pr.prNumber)) continue;
        seen.add(pr.prNumber);
        say(
          `  ${label}#${String(pr.prNumber).padEnd(3)} ${pr.state.toUpperCase().padEnd(9)} ${pr.prTitle} (${pr.reason})`,
        );
      }
      if (seen.size === expected) {
        const merged = a.recentPullRequests.filter((p) => p.state.toUpperCase() === 'MERGED').length;
        say(
          `All ${expected} pull requests ${label ? `of ${label.trim()} ` : ''}concluded: ${merged} merged, ${expected - merged} not. ` +
            'The dashboard keeps serving; press Ctrl-C to stop.',
        );
        return;
      }
    } catch {
      // The server is stopping, or busy: the next tick tries again.
    }
    if (!stopped) setTimeout(() => void tick(), 1000).unref();
  };
  void tick();
  return () => {
    stopped = true;
  };
}

/** The queue of `main` of a demo repository. */
const queueKey = (project: DemoProject) => ({
  repo: { host: DEMO_HOST, owner: 'acme', name: project.name },
  targetBranch: 'main',
});

/** Uploads each PR's area as its impacted target (parallel mode; none for a PR without area), then submits it. */
async function submitAll(url: string, token: string, project: DemoProject, repo: DemoRepo, parallel: boolean) {
  const key = queueKey(project);
  for (const pr of repo.prs) {
    if (parallel && pr.area) {
      await api(url, token, 'setImpactedTargets', {
        ...key,
        pr: { number: pr.number, sha: pr.headSha },
        impactedTargets: [pr.area],
      });
    }
    await api(url, token, 'submitPullRequest', { ...key, pr: { number: pr.number } });
  }
}

export function demoCommand(): Command {
  return new Command('demo')
    .description(
      'run a local demo: two git repositories with pull requests and their queues, the built-in CI and the web dashboard',
    )
    .option('--port <port>', 'TCP port of the server and dashboard (0 = any free port)', '8080')
    .option('--host <host>', 'address to listen on', '127.0.0.1')
    .option(
      '--data-dir <dir>',
      'where the demo keeps its repository and database (rebuilt on every run)',
      './.greenline-demo',
    )
    .addOption(
      new Option(
        '--mode <mode>',
        'queue mode: single (one line of predictive runs) or parallel (lanes by impacted targets)',
      )
        .choices(['single', 'parallel'])
        .default('single'),
    )
    .addOption(
      new Option('--log-level <level>', 'server log level (stderr)')
        .choices(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'])
        .default('warn'),
    )
    .addHelpText(
      'after',
      `
The demo repository ${DEMO_REPO_SLUG} has 15 pull requests: most pass, #4, #9 and #13 break the
test, and #6 and #11 change the same line (whichever merges second conflicts). Its queue tests up
to 3 PRs at once, without batching (--mode chooses its mode). Beside it, ${DEMO_HOST}/acme/api has
a parallel queue that batches: three lanes of three PRs, each lane one batch; #2 breaks the test, so
its batch fails and is bisected; #10 has no impacted targets and waits NOT_READY. Everything runs
locally; the data dir is deleted and rebuilt on every run.

Examples:
  $ greenline demo
  $ greenline demo --port 9000 --data-dir /tmp/greenline-demo
  $ greenline demo --mode parallel`,
    )
    .action(async (flags: DemoFlags) => {
      const dataDir = path.resolve(flags.dataDir);
      const config = loadConfig({
        flags: {
          port: flags.port,
          host: flags.host,
          dataDir,
          logLevel: flags.logLevel,
          pollIntervalSeconds: '1',
          ciMaxParallel: '4',
        },
        // The demo's own settings only: no greenline.yaml, no GREENLINE_* environment.
        env: {},
        cwd: dataDir,
      });
      say(`[1/5] Preparing ${dataDir}`);
      await prepareDataDir(dataDir);
      const repo = await buildDemoRepo(dataDir, SHOP);
      const apiRepo = await buildDemoRepo(dataDir, API);
      say(`[2/5] Built the git repository ${repo.remote} with ${repo.prs.length} pull requests (refs/pull/<n>/head)`);
      say(`      and ${apiRepo.remote} with ${apiRepo.prs.length}`);

      // Loaded here, not at the top: the other commands start without loading the server.
      const [{ openStore }, { bootstrap }, { connectRepo }, { createLogger, createServer }] = await Promise.all([
        import('../store/connect.js'),
        import('../app/admin/org-admin.js'),
        import('../app/admin/repo-admin.js'),
        import('../server/server.js'),
      ]);
      const db = await openStore({ databaseUrl: null, dataDir });
      let token: string;
      try {
        token = (await bootstrap(db, Date.now())).token!; // a new data dir holds no token yet
        for (const [project, r] of [
          [SHOP, repo],
          [API, apiRepo],
        ] as const) {
          const slug = `${DEMO_HOST}/acme/${project.name}`;
          await connectRepo(
            db,
            { org: 'default', slug, forge: 'git', remote: r.remote, ciCommand: 'sh ./test.sh' },
            Date.now(),
          );
        }
      } finally {
        await db.destroy();
      }
      say(`[3/5] Connected ${DEMO_REPO_SLUG} and ${DEMO_HOST}/acme/api (forge git, CI command "sh ./test.sh")`);

      const logger = createLogger(config);
      const server = createServer(config, logger);
      try {
        await server.start();
      } catch (err) {
        if ((err as NodeJS.ErrnoException).code === 'EADDRINUSE') {
          throw new UsageError(
            `Port ${config.port} of ${config.host} is in use; pass another with --port (0 = any free port)`,
          );
        }
        throw err;
      }
      const url = server.url;
      const stops: (() => void)[] = [];
      try {
        await api(url, token, 'createQueue', { ...queueKey(SHOP), mode: flags.mode, concurrency: 3 });
        await api(url, token, 'createQueue', { ...queueKey(API), ...API_QUEUE });
        await api(url, token, 'updateQueue', { ...queueKey(API), ...API_BATCHING });
        say(`[4/5] Server listening on ${url}; created the ${flags.mode} queue for main (3 test runs at once)`);
        say(
          `      and the parallel queue of acme/api (${API_QUEUE.concurrency} runs at once, batches of ${API_BATCHING.batchingMinSize})`,
        );
        await submitAll(url, token, SHOP, repo, flags.mode === 'parallel');
        await submitAll(url, token, API, apiRepo, true);
        say(`[5/5] Submitted ${repo.prs.length} pull requests, and ${apiRepo.prs.length} to acme/api`);
        say('');
        say(`Dashboard: ${url}/`);
        say(`API token: ${token}`);
        say(
          'Open the dashboard, sign in with the token, and watch the PRs move to MERGED and FAILED (about half a minute on a quiet machine).',
        );
        say('Press Ctrl-C to stop.');
        say('');
        const waiting = apiRepo.prs.filter((p) => !p.area);
        stops.push(reportConclusions(url, token, queueKey(SHOP), repo.prs.length));
        stops.push(reportConclusions(url, token, queueKey(API), apiRepo.prs.length - waiting.length, 'acme/api '));
        for (const pr of waiting) {
          say(`  acme/api #${pr.number} waits NOT_READY: it has no impacted targets (setImpactedTargets admits it)`);
        }
      } catch (err) {
        await server.stop();
        throw err;
      }
      await new Promise<void>((resolve) => {
        const shutdown = () => {
          for (const stop of stops) stop();
          server
            .stop()
            .catch((err: unknown) => logger.error({ err }, 'stop failed'))
            .finally(resolve);
        };
        process.once('SIGINT', shutdown);
        process.once('SIGTERM', shutdown);
      });
      say('greenline demo stopped');
    });
}
