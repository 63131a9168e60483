/**
 * The fake GitLab as its own process, to try greenline as a user against it: `npx tsx
 * test/forge/gitlab/fake-gitlab-server.ts`. It serves one project (GITLAB_PROJECT, default
 * `acme/tools/web`) with MRs !1 and !2 open, plays GitLab CI (a branch pushed runs a pipeline whose
 * job `build` fails when the commit holds a file `FAIL`, else passes, and a `Pipeline Hook` follows),
 * and delivers to HOOK_URL with the signing token SIGNING_TOKEN. A control port takes what people do:
 *
 *   POST /note   {"iid":1,"body":"/greenline merge","author":"ada"}   a note, delivered
 *   POST /open   {"iid":3,"fail":false}                                a new MR, delivered
 *   POST /merge  {"iid":2}                                             merged by hand, delivered
 *
 * It prints its addresses and token as JSON on its first line.
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { FakeGitlabApi } from './fake-gitlab-api.js';
import { GitlabDeliveries } from './fake-gitlab-deliveries.js';

const fake = await FakeGitlabApi.start(process.env.GITLAB_PROJECT ?? 'acme/tools/web');
fake.now = () => Date.now();
const deliveries = new GitlabDeliveries(fake);
if (process.env.HOOK_URL)
  deliveries.hooks.push({
    url: process.env.HOOK_URL,
    ...(process.env.SIGNING_TOKEN ? { signingToken: process.env.SIGNING_TOKEN } : {}),
  });
const deliver = async (event: string, payload: Record<string, unknown>) => {
  try {
    for (const a of await deliveries.deliver(event, payload)) console.log(`delivered ${event}: ${a.status} ${a.body}`);
  } catch (err) {
    console.log(`could not deliver ${event}: ${String((err as Error).cause ?? err)}`);
  }
};

const openMr = async (iid: number, fail: boolean) => {
  const main = (await fake.repo.branchSha('main'))!;
  const files: Record<string, string> = {
    [`change-${iid}.txt`]: `change ${iid}\n`,
    ...(fail ? { FAIL: 'yes\n' } : {}),
  };
  await fake.openMr(iid, { headSha: await fake.repo.commit(main, files, `Change ${iid}`) });
  await deliver('Merge Request Hook', await deliveries.mergeRequest('open', iid, 'ada'));
};

// GitLab CI: a pipeline for every branch a push moved.
const seen = new Map(await fake.repo.allRefs());
const afterPush = fake.afterPush.bind(fake);
fake.afterPush = async () => {
  await afterPush();
  for (const [ref, sha] of await fake.repo.allRefs()) {
    if (!ref.startsWith('refs/heads/') || seen.get(ref) === sha) continue;
    const branch = ref.slice('refs/heads/'.length);
    const failing = (await fake.repo.fileAt(sha, 'FAIL')) !== null;
    const pipeline = fake.runPipeline(sha, branch, { build: failing ? 'failed' : 'success' });
    console.log(`pipeline ${pipeline.id} on ${branch} ${sha.slice(0, 7)}: ${fake.pipelineStatus(pipeline.id)}`);
    setTimeout(() => void deliver('Pipeline Hook', deliveries.pipeline(pipeline)), 200);
  }
  for (const mr of fake.mrs.values())
    if (mr.state === 'merged' && !mergedTold.has(mr.iid)) {
      mergedTold.add(mr.iid);
      setTimeout(
        async () => void deliver('Merge Request Hook', await deliveries.mergeRequest('merge', mr.iid, fake.tokenUser)),
        200,
      );
    }
  for (const [ref, sha] of await fake.repo.allRefs()) seen.set(ref, sha);
};
const mergedTold = new Set<number>();

await openMr(1, false);
await openMr(2, false);

const control = createServer(async (req, res) => {
  const chunks: Buffer[] = [];
  for await (const c of req) chunks.push(c as Buffer);
  const body = chunks.length ? (JSON.parse(Buffer.concat(chunks).toString('utf8')) as Record<string, unknown>) : {};
  try {
    if (req.url === '/note') {
      const note = fake.addNote(Number(body.iid), String(body.body), String(body.author ?? 'ada'));
      await deliver('Note Hook', deliveries.note(Number(body.iid), note));
    } else if (req.url === '/open') await openMr(Number(body.iid), body.fail === true);
    else if (req.url === '/merge') {
      await fake.mergeOnGitlab(Number(body.iid));
      mergedTold.add(Number(body.iid));
      await deliver('Merge Request Hook', await deliveries.mergeRequest('merge', Number(body.iid), 'ada'));
    } else return void res.writeHead(404).end();
    res.writeHead(200).end('ok\n');
  } catch (err) {
    res.writeHead(400).end(`${String(err)}\n`);
  }
});
await new Promise<void>((resolve) => control.listen(0, '127.0.0.1', resolve));
console.log(
  JSON.stringify({
    url: fake.url,
    token: fake.token,
    control: `http://127.0.0.1:${(control.address() as AddressInfo).port}`,
    project: fake.fullPath,
    bare: fake.repo.bare,
  }),
);
const stop = async () => {
  control.close();
  await fake.close();
  process.exit(0);
};
process.on('SIGTERM', () => void stop());
process.on('SIGINT', () => void stop());
