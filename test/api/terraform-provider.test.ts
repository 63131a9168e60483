/**
 * Contract test of Trunk's Terraform provider (trunk-io/terraform-provider-trunk, resource
 * `trunk_merge_queue`) against a server with default settings, over a real socket. It replays the
 * provider's requests as its client sends them — POST, JSON, `x-api-token`, `x-source: terraform`,
 * Go's User-Agent — in the provider's order:
 *   create  = createQueue {repo, targetBranch, mode?, concurrency?} then updateQueue with the
 *             configured attributes; the state is what updateQueue answers
 *   read    = getQueue; 404 removes the resource from the state
 *   update  = updateQueue with every configured attribute; the state is the answer
 *   import  = the id `host/owner/name/branch` (split in four: the branch may hold slashes), then read
 *   delete  = deleteQueue; 400 means "queue not empty"
 * In every update `required_statuses = null` is sent as `deleteRequiredStatuses: true`, a list
 * (even empty) as `requiredStatuses`. Terraform fails an apply when an attribute reads back other
 * than it was written ("Provider produced inconsistent result after apply"), so every answer must
 * give back every attribute exactly as sent, and a read right after must give the same.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TestService } from '../helpers/service.js';
import { listenApiHarness, REPO, SLUG } from './api-harness.js';
import type { Json } from '../helpers/json.js';

let h: Awaited<ReturnType<typeof listenApiHarness>>;
let t: TestService;
let base: string;
let token: string;

beforeAll(async () => {
  // Server defaults: UPPERCASE states for every client that is not Terraform.
  h = await listenApiHarness(); // enumCase 'upper', the server's default
  ({ t, base, token } = h);
});
afterAll(() => h.close());

/** The headers of the provider's Go client (Go adds its User-Agent and Accept-Encoding). */
const providerHeaders = () => ({
  'content-type': 'application/json',
  'x-api-token': token,
  'x-source': 'terraform',
  'user-agent': 'Go-http-client/1.1',
  'accept-encoding': 'gzip',
});

async function call(endpoint: string, body: unknown, headers: Record<string, string> = providerHeaders()) {
  const res = await fetch(`${base}/v1/${endpoint}`, { method: 'POST', headers, body: JSON.stringify(body) });
  return { status: res.status, body: (await res.json()) as Record<string, Json> };
}

/** The resource's attributes besides its identity, by their JSON names; null = not configured. */
type Attributes = {
  mode: string;
  concurrency: number;
  state: string;
  testingTimeoutMinutes: number;
  pendingFailureDepth: number;
  canOptimisticallyMerge: boolean;
  batch: boolean;
  batchingMaxWaitTimeMinutes: number;
  batchingMinSize: number;
  createPrsForTestingBranches: boolean;
  mergeMethod: string;
  commentsEnabled: boolean;
  commandsEnabled: boolean;
  statusCheckEnabled: boolean;
  directMergeMode: string;
  optimizationMode: string;
  bisectionConcurrency: number;
  extensionEnabled: boolean;
  enqueueingLabel: string;
  labelCommandsEnabled: boolean;
  stateLabelsEnabled: boolean;
  notReadyTimeoutHours: number;
  requiredStatuses: string[] | null;
};
type Config = { [K in keyof Attributes]?: Attributes[K] };
const ATTRIBUTES: (keyof Attributes)[] = [
  'mode',
  'concurrency',
  'state',
  'testingTimeoutMinutes',
  'pendingFailureDepth',
  'canOptimisticallyMerge',
  'batch',
  'batchingMaxWaitTimeMinutes',
  'batchingMinSize',
  'createPrsForTestingBranches',
  'mergeMethod',
  'commentsEnabled',
  'commandsEnabled',
  'statusCheckEnabled',
  'directMergeMode',
  'optimizationMode',
  'bisectionConcurrency',
  'extensionEnabled',
  'enqueueingLabel',
  'labelCommandsEnabled',
  'stateLabelsEnabled',
  'notReadyTimeoutHours',
  'requiredStatuses',
];

const identity = (branch: string) => ({ repo: REPO, targetBranch: branch });

/** The provider's update body: the configured attributes; required_statuses null → deleteRequiredStatuses. */
function updateRequest(branch: string, config: Config): Record<string, unknown> {
  const body: Record<string, unknown> = identity(branch);
  for (const name of ATTRIBUTES) {
    if (name !== 'requiredStatuses' && config[name] !== undefined) body[name] = config[name];
  }
  if (config.requiredStatuses == null) body.deleteRequiredStatuses = true;
  else body.requiredStatuses = config.requiredStatuses;
  return body;
}

/** What the provider stores from an answer: every attribute; requiredStatuses absent or null → null. */
function stateFrom(answer: Record<string, Json>): Attributes {
  const state = Object.fromEntries(ATTRIBUTES.map((name) => [name, answer[name]])) as Attributes;
  state.requiredStatuses = answer.requiredStatuses ?? null;
  return state;
}

async function create(branch: string, config: Config): Promise<Attributes> {
  if (!h.t.forge.state(SLUG).branches.has(branch)) h.t.forge.pushToBranch(SLUG, branch);
  const created = await call('createQueue', {
    ...identity(branch),
    ...(config.mode ? { mode: config.mode } : {}),
    ...(config.concurrency ? { concurrency: config.concurrency } : {}),
  });
  expect(created).toEqual({ status: 200, body: {} });
  const updated = await call('updateQueue', updateRequest(branch, config));
  expect(updated.status, JSON.stringify(updated.body)).toBe(200);
  return stateFrom(updated.body);
}

async function read(branch: string): Promise<{ status: number; state?: Attributes }> {
  const res = await call('getQueue', identity(branch));
  return res.status === 200 ? { status: 200, state: stateFrom(res.body) } : { status: res.status };
}

/** Every attribute configured, as a user writes them in HCL (the provider's validators: lowercase enums). */
const FULL: Attributes = {
  mode: 'single',
  concurrency: 2,
  state: 'running',
  testingTimeoutMinutes: 60,
  pendingFailureDepth: 0,
  canOptimisticallyMerge: false,
  batch: false,
  batchingMaxWaitTimeMinutes: 5,
  batchingMinSize: 4,
  createPrsForTestingBranches: true,
  mergeMethod: 'squash',
  commentsEnabled: true,
  commandsEnabled: true,
  statusCheckEnabled: true,
  directMergeMode: 'off',
  optimizationMode: 'off',
  bisectionConcurrency: 2,
  extensionEnabled: true,
  enqueueingLabel: 'merge-me',
  labelCommandsEnabled: false,
  stateLabelsEnabled: false,
  notReadyTimeoutHours: 0,
  requiredStatuses: ['build', 'test'],
};

/** One change per step, each attribute at least once, the enums through each of their values. */
const CHANGES: Config[] = [
  { mode: 'parallel' },
  { mode: 'single' },
  { concurrency: 5 },
  { state: 'paused' },
  { state: 'draining' },
  { state: 'running' },
  { testingTimeoutMinutes: 90 },
  { pendingFailureDepth: 2 },
  { canOptimisticallyMerge: true },
  { batch: true },
  { batchingMaxWaitTimeMinutes: 10 },
  { batchingMinSize: 3 },
  { createPrsForTestingBranches: false },
  { mergeMethod: 'rebase' },
  { mergeMethod: 'merge_commit' },
  { commentsEnabled: false },
  { commandsEnabled: false },
  { statusCheckEnabled: false },
  { directMergeMode: 'always' },
  { optimizationMode: 'bisection_skip_redundant_tests' },
  { bisectionConcurrency: 3 },
  { extensionEnabled: false },
  { enqueueingLabel: 'ship-it' },
  { labelCommandsEnabled: true },
  { stateLabelsEnabled: true },
  { notReadyTimeoutHours: 24 },
  { requiredStatuses: [] },
  { requiredStatuses: null },
  { requiredStatuses: ['lint'] },
];

describe("Trunk's Terraform provider, unchanged, against default settings", () => {
  it('creates with every attribute and reads back exactly what it wrote', async () => {
    expect(await create('main', FULL)).toEqual(FULL);
    expect(await read('main')).toEqual({ status: 200, state: FULL });
  });

  it('updates every attribute, one apply each, and each reads back exactly as sent', async () => {
    expect(new Set(CHANGES.flatMap((c) => Object.keys(c)))).toEqual(new Set(ATTRIBUTES));
    let config: Attributes = FULL;
    for (const change of CHANGES) {
      config = { ...config, ...change } as Attributes;
      const res = await call('updateQueue', updateRequest('main', config));
      expect(res.status, JSON.stringify(res.body)).toBe(200);
      expect(stateFrom(res.body), JSON.stringify(change)).toEqual(config);
      // The next plan reads the queue: no drift.
      expect(await read('main'), JSON.stringify(change)).toEqual({ status: 200, state: config });
    }
  });

  it('creates with no optional attribute configured: what it stores from the answer reads back unchanged', async () => {
    const state = await create('minimal', {});
    expect(state).toMatchObject({ mode: 'single', concurrency: 1, state: 'running', requiredStatuses: null });
    expect(await read('minimal')).toEqual({ status: 200, state });
  });

  it('answers 409 to creating a queue that exists, which the provider turns into "import it"', async () => {
    const res = await call('createQueue', { ...identity('main'), mode: 'single', concurrency: 2 });
    expect(res.status).toBe(409);
    expect(res.body.error.code).toBe('QUEUE_EXISTS');
  });

  it('imports host/owner/name/branch, a branch with a slash included, set up outside Terraform', async () => {
    const plain = { 'content-type': 'application/json', 'x-api-token': token };
    h.t.forge.pushToBranch(SLUG, 'release/2026');
    expect((await call('createQueue', identity('release/2026'), plain)).status).toBe(200);
    const outside = await call(
      'updateQueue',
      { ...identity('release/2026'), state: 'PAUSED', mergeMethod: 'REBASE' },
      plain,
    );
    expect(outside.body.state).toBe('PAUSED');

    const [host, owner, name, branch] = splitImportId('github.com/acme/web/release/2026');
    expect({ host, owner, name, branch }).toEqual({ ...REPO, branch: 'release/2026' });
    const imported = await read(branch!);
    expect(imported.state).toMatchObject({ state: 'paused', mergeMethod: 'rebase' });
    // The user writes the imported values into the configuration: the next apply changes nothing.
    const applied = await call('updateQueue', updateRequest(branch!, imported.state!));
    expect(stateFrom(applied.body)).toEqual(imported.state);
  });

  it('refuses to destroy a queue that holds a PR (400), destroys it once empty, and a read then finds nothing', async () => {
    t.forge.openPr(SLUG, { number: 7 });
    const plain = { 'content-type': 'application/json', 'x-api-token': token };
    expect((await call('submitPullRequest', { ...identity('main'), pr: { number: 7 } }, plain)).status).toBe(200);
    const refused = await call('deleteQueue', identity('main'));
    expect(refused.status).toBe(400);
    expect(refused.body.error.code).toBe('QUEUE_NOT_EMPTY');

    expect((await call('cancelPullRequest', { ...identity('main'), pr: { number: 7 } }, plain)).status).toBe(200);
    expect(await call('deleteQueue', identity('main'))).toEqual({ status: 200, body: {} });
    expect(await read('main')).toEqual({ status: 404 });
  });
});

/** The provider's import id: split in at most four parts, so that the branch keeps its slashes. */
function splitImportId(id: string): string[] {
  const [host, owner, name, ...branch] = id.split('/');
  return [host!, owner!, name!, branch.join('/')];
}
