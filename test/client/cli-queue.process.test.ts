/**
 * `greenline queue …`, `metrics`, `health` and the client options against a real server process:
 * human output and --json, exit codes and messages for 401, 404, 409, 400 and connection refused,
 * and where the URL and token come from (flags, GREENLINE_* environment, client config file).
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startCliServer, type CliServer } from './cli-server.js';

const Q = ['--repo', 'github.com/acme/web'];
let s: CliServer;
beforeAll(async () => {
  s = await startCliServer({
    beforeServe: async (git) => {
      await git.openPr(7, { 'seven.txt': '7\n' });
      // A queue is created only for a branch the remote has.
      for (const branch of ['settings', 'infra', 'doomed', 'metrics'])
        await git.setRef(`refs/heads/${branch}`, git.baseSha);
    },
  });
});
afterAll(() => s?.stop());

/** A local port with nothing listening on it. */
async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise((resolve) => server.close(resolve));
  return port;
}

describe('greenline queue', () => {
  it('creates a queue, refuses a second one with 409, and shows it as a table and as JSON', async () => {
    const created = await s.run(['queue', 'create', ...Q, '--branch', 'main', '--concurrency', '2']);
    expect(created).toMatchObject({ code: 0, stdout: 'Created queue github.com/acme/web main.\n' });

    const again = await s.run(['queue', 'create', ...Q, '--branch', 'main']);
    expect(again.code).toBe(1);
    expect(again.stderr).toMatch(
      /^error: A merge queue already exists for branch "main".*\(409 QUEUE_EXISTS\); see it with `greenline queue get`/,
    );

    const [shown, json] = await Promise.all([
      s.run(['queue', 'get', ...Q, '--branch', 'main']),
      s.run(['queue', 'get', ...Q, '--branch', 'main', '--json']),
    ]);
    expect(shown.code).toBe(0);
    expect(shown.stdout).toMatch(/^state:\s+RUNNING$/m);
    expect(shown.stdout).toMatch(/^concurrency:\s+2$/m);
    expect(shown.stdout).toMatch(/^requiredStatuses:\s+not set: the repository.s required statuses apply/m);
    expect(shown.stdout).toMatch(/^No pull requests in the queue\.$/m);
    expect(JSON.parse(json.stdout)).toMatchObject({
      state: 'RUNNING',
      branch: 'main',
      concurrency: 2,
      mode: 'single',
      enqueuedPullRequests: [],
    });
  });

  it('updates settings from flags generated from the API schema, and pauses, drains and resumes', async () => {
    await s.run(['queue', 'create', ...Q, '--branch', 'settings']);
    const updated = await s.run([
      'queue',
      'update',
      ...Q,
      '--branch',
      'settings',
      '--batch',
      '--batching-min-size',
      '3',
      '--merge-method',
      'MERGE_COMMIT',
      '--required-statuses',
      'build',
      'lint',
      '--not-ready-timeout-hours',
      '1.5',
      '--no-comments-enabled',
      '--json',
    ]);
    expect(updated.code).toBe(0);
    expect(JSON.parse(updated.stdout)).toMatchObject({
      batch: true,
      batchingMinSize: 3,
      mergeMethod: 'merge_commit',
      requiredStatuses: ['build', 'lint'],
      notReadyTimeoutHours: 1.5,
      commentsEnabled: false,
    });

    const human = await s.run([
      'queue',
      'update',
      ...Q,
      '--branch',
      'settings',
      '--no-batch',
      '--delete-required-statuses',
    ]);
    expect(human.code).toBe(0);
    expect(human.stdout).toMatch(/^Updated queue github.com\/acme\/web settings:$/m);
    expect(human.stdout).toMatch(/^batch:\s+false$/m);
    expect(human.stdout).toMatch(/^requiredStatuses:\s+not set/m);
    expect(human.stdout).not.toMatch(/impactedTargetsFromPaths/);

    // A change of impactedTargetsFromPaths says, after the settings, that it applies to PRs admitted after it.
    const paths = ['--impacted-targets-from-paths', '{"targets":{"web":["web/**"]}}'];
    const lanes = await s.run(['queue', 'update', ...Q, '--branch', 'settings', ...paths]);
    expect(lanes.code, lanes.stderr).toBe(0);
    expect(lanes.stdout).toMatch(
      /\n\nimpactedTargetsFromPaths set: it applies to PRs admitted from now on; the queue holds no PR now\n?$/,
    );
    expect((await s.run(['queue', 'update', ...Q, '--branch', 'settings', ...paths])).stdout).not.toMatch(
      /applies to PRs admitted/,
    );

    for (const [command, state] of [
      ['pause', 'PAUSED'],
      ['drain', 'DRAINING'],
      ['resume', 'RUNNING'],
    ] as const) {
      const r = await s.run(['queue', command, ...Q, '--branch', 'settings']);
      expect(r).toMatchObject({ code: 0, stdout: `Queue github.com/acme/web settings is ${state}.\n` });
    }
    const shown = JSON.parse((await s.run(['queue', 'get', ...Q, '--branch', 'settings', '--json'])).stdout);
    expect(shown).toMatchObject({
      state: 'RUNNING',
      batch: false,
      mergeMethod: 'merge_commit',
      requiredStatuses: null,
    });
  });

  it('refuses to create a queue for a branch the remote does not have, naming it', async () => {
    const refused = await s.run(['queue', 'create', ...Q, '--branch', 'doesnotexist']);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toBe(
      'error: No branch doesnotexist in github.com/acme/web: create it first, or check the name (400 TARGET_BRANCH_NOT_FOUND)\n',
    );
  });

  it('says in `queue get` whether Terraform manages the queue, and since when it was changed outside Terraform', async () => {
    await s.run(['queue', 'create', ...Q, '--branch', 'infra']);
    const plain = await s.run(['queue', 'get', ...Q, '--branch', 'infra']);
    expect(plain.stdout).not.toContain('Terraform');

    const res = await fetch(`${s.url}/v1/updateQueue`, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        'x-api-token': s.token,
        'user-agent': 'Terraform/1.9.8 terraform-provider-trunk/0.4.0',
      },
      body: JSON.stringify({
        repo: { host: 'github.com', owner: 'acme', name: 'web' },
        targetBranch: 'infra',
        concurrency: 2,
      }),
    });
    expect(res.status).toBe(200);
    const managed = await s.run(['queue', 'get', ...Q, '--branch', 'infra']);
    expect(managed.stdout).toMatch(
      /^Queue github.com\/acme\/web infra\nManaged by Terraform: change its settings in the Terraform configuration.\n/,
    );

    expect((await s.run(['queue', 'update', ...Q, '--branch', 'infra', '--concurrency', '3'])).code).toBe(0);
    const drifted = await s.run(['queue', 'get', ...Q, '--branch', 'infra']);
    expect(drifted.stdout).toMatch(
      /^Managed by Terraform, but changed outside Terraform since \d{4}-\d\d-\d\dT[\d:.]+Z: run terraform plan/m,
    );
    expect(JSON.parse((await s.run(['queue', 'get', ...Q, '--branch', 'infra', '--json'])).stdout)).not.toHaveProperty(
      'managedBy',
    );
  });

  it("reports the server's 400 naming the field, and refuses bad flags itself with exit code 2", async () => {
    const server = await s.run(['queue', 'update', ...Q, '--branch', 'main', '--concurrency', '0']);
    expect(server.code).toBe(1);
    expect(server.stderr).toMatch(/concurrency.*\(400 VALIDATION_FAILED\)/);

    const [notNumber, nothing, badRepo, noBranch] = await Promise.all([
      s.run(['queue', 'update', ...Q, '--branch', 'main', '--concurrency', 'many']),
      s.run(['queue', 'update', ...Q, '--branch', 'main']),
      s.run(['queue', 'get', '--repo', 'acme/web', '--branch', 'main']),
      s.run(['queue', 'get', ...Q]),
    ]);
    expect(notNumber).toMatchObject({ code: 2, stderr: 'error: --concurrency takes a number, got "many"\n' });
    expect(nothing.code).toBe(2);
    expect(nothing.stderr).toMatch(/Nothing to change/);
    expect(badRepo).toMatchObject({
      code: 2,
      stderr:
        'error: --repo must be HOST/OWNER/NAME, e.g. github.com/acme/web (a GitLab subgroup\'s project: HOST/GROUP/SUBGROUP/NAME); got "acme/web"\n',
    });
    expect(noBranch.code).toBe(2);
    expect(noBranch.stderr).toMatch(/Pass --branch BRANCH/);
  });

  it('deletes only an empty queue; a deleted queue is a 404 with a hint', async () => {
    await s.run(['queue', 'create', ...Q, '--branch', 'doomed']);
    await s.run(['queue', 'pause', ...Q, '--branch', 'doomed']);
    expect(await s.run(['pr', 'submit', '7', ...Q, '--branch', 'doomed'])).toMatchObject({
      code: 0,
      stdout: 'Submitted PR #7 to github.com/acme/web doomed.\n',
    });
    const refused = await s.run(['queue', 'delete', ...Q, '--branch', 'doomed']);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toMatch(/still holds .*\(400 QUEUE_NOT_EMPTY\)/);

    expect((await s.run(['pr', 'cancel', '7', ...Q, '--branch', 'doomed'])).code).toBe(0);
    const deleted = await s.run(['queue', 'delete', ...Q, '--branch', 'doomed']);
    expect(deleted).toMatchObject({ code: 0, stdout: 'Deleted queue github.com/acme/web doomed.\n' });
    const [gone, unknownRepo] = await Promise.all([
      s.run(['queue', 'get', ...Q, '--branch', 'doomed']),
      s.run(['queue', 'get', '--repo', 'github.com/acme/nope', '--branch', 'main']),
    ]);
    expect(gone.code).toBe(1);
    expect(gone.stderr).toMatch(
      /No merge queue exists for branch "doomed".*\(404 QUEUE_NOT_FOUND\); create it with `greenline queue create`/,
    );
    expect(unknownRepo.code).toBe(1);
    expect(unknownRepo.stderr).toMatch(/\(404 REPO_NOT_FOUND\); connect it with `greenline repo connect`/);
  });
});

describe('server address and token', () => {
  it('says the token was refused on 401, and asks for a token when there is none', async () => {
    const [refused, none] = await Promise.all([
      s.cli(['queue', 'get', ...Q, '--branch', 'main', '--url', s.url, '--token', 'gl_wrong']),
      s.cli(['queue', 'get', ...Q, '--branch', 'main', '--url', s.url]),
    ]);
    expect(refused).toMatchObject({
      code: 1,
      stderr: 'error: the token was refused: check --token / GREENLINE_TOKEN (401 UNAUTHORIZED)\n',
    });
    expect(none.code).toBe(2);
    expect(none.stderr).toMatch(/^error: No API token: pass --token, set GREENLINE_TOKEN/);
  });

  it('says the server cannot be reached when nothing listens at the URL', async () => {
    const url = `http://127.0.0.1:${await closedPort()}`;
    const [r, health] = await Promise.all([
      s.cli(['queue', 'get', ...Q, '--branch', 'main', '--url', url, '--token', s.token]),
      s.cli(['health', '--url', url]),
    ]);
    expect(r).toMatchObject({
      code: 1,
      stderr: `error: cannot reach greenline at ${url}: is \`greenline serve\` running? (ECONNREFUSED)\n`,
    });
    expect(health.code).toBe(1);
    expect(health.stderr).toContain('cannot reach greenline');
  });

  it('takes the URL and token from GREENLINE_URL and GREENLINE_TOKEN, and flags over them', async () => {
    const env = { GREENLINE_URL: s.url, GREENLINE_TOKEN: s.token };
    const [fromEnv, flagWins] = await Promise.all([
      s.cli(['queue', 'get', ...Q, '--branch', 'main', '--json'], env),
      s.cli(['queue', 'get', ...Q, '--branch', 'main', '--token', 'gl_wrong'], env),
    ]);
    expect(fromEnv.code).toBe(0);
    expect(flagWins.stderr).toMatch(/the token was refused/);
  });

  it('reads url, token, repo and branch from the client config file; the environment wins over it', async () => {
    const file = path.join(s.home, 'custom.yaml');
    writeFileSync(file, `url: ${s.url}\ntoken: ${s.token}\nrepo: github.com/acme/web\nbranch: main\n`);
    const explicit = await s.cli(['queue', 'get', '--json', '--client-config', file]);
    expect(explicit.code).toBe(0);
    expect(JSON.parse(explicit.stdout).branch).toBe('main');

    const defaultPath = path.join(s.home, '.config', 'greenline', 'client.yaml');
    mkdirSync(path.dirname(defaultPath), { recursive: true });
    writeFileSync(defaultPath, `url: ${s.url}\ntoken: gl_wrong\n`);
    const [fromHome, envWins, missing] = await Promise.all([
      s.cli(['queue', 'get', ...Q, '--branch', 'main']),
      s.cli(['queue', 'get', ...Q, '--branch', 'main', '--json'], { GREENLINE_TOKEN: s.token }),
      s.cli(['health', '--client-config', path.join(s.home, 'absent.yaml')]),
    ]);
    expect(fromHome.stderr).toMatch(/the token was refused/);
    expect(envWins.code).toBe(0);
    expect(missing.code).toBe(2);
    expect(missing.stderr).toMatch(/absent.yaml does not exist/);
  });

  it('health answers without a token', async () => {
    const r = await s.cli(['health', '--url', `${s.url}/v1`]);
    expect(r).toMatchObject({ code: 0, stdout: `greenline at ${s.url} is ok.\n` });
  });
});

describe('greenline metrics', () => {
  it('shows a table per queue, the Prometheus text with --raw, rows with --json, and 404 for an unknown repository', async () => {
    await s.run(['queue', 'create', ...Q, '--branch', 'metrics']);
    const [table, raw, json, unknown] = await Promise.all([
      s.run(['metrics']),
      s.run(['metrics', '--raw', '--repo', 'github.com/acme/web']),
      s.run(['metrics', '--json']),
      s.run(['metrics', '--repo', 'github.com/acme/nope']),
    ]);
    expect(table.code).toBe(0);
    expect(table.stdout).toMatch(/^REPO\s+BRANCH\s+TYPE\s+IN QUEUE/);
    expect(table.stdout).toMatch(/^acme\/web\s+metrics\s+main\s+0\s+/m);

    expect(raw.stdout).toContain('# TYPE mq_depth_current gauge');
    expect(raw.stdout).toContain('mq_depth_current{repo="acme/web",branch="metrics",queue_type="main"} 0');

    const rows = JSON.parse(json.stdout) as { branch: string; queueType: string; depth: number }[];
    expect(rows).toContainEqual(
      expect.objectContaining({
        repo: 'acme/web',
        branch: 'metrics',
        queueType: 'main',
        depth: 0,
        merged1h: 0,
        meanTestSeconds1h: null,
      }),
    );
    // Per-repository series (greenline_bisection_runs_1h_total, …) carry no queue type and make no row.
    expect(rows.map((r) => r.queueType).filter((t) => t !== 'main' && t !== 'bisection')).toEqual([]);
    expect(table.stdout).not.toMatch(/^acme\/web\s+metrics\s+0\s/m);

    expect(unknown.code).toBe(1);
    expect(unknown.stderr).toMatch(/404 REPO_NOT_FOUND/);
  });
});
