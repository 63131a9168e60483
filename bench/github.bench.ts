/**
 * GitHub request-budget benchmark (`npm run bench:github`): the real service with the real github
 * forge against the FAKE GitHub API (test/forge/github/fake-github-api.ts), on a manual clock.
 * Requests are counted as GitHub bills them against the hourly budget of 5,000 (a token, or an App
 * installation outside GitHub Enterprise Cloud): every answer but 304 Not Modified. Prints measurements
 * beside their goals; never fails on them, but fails when the fake saw a request, an answer or a
 * delivery GitHub would not take or give (the fake is as strict as in the tests).
 *
 * 1. An idle queue holding 20 PRs for an hour (their test run waits for CI; nothing changes), the
 *    poller ticking every 15 s: with the webhook (polling is the safety net, with backoff) and without
 *    (every tick reads, conditionally). Goal ≤ 500 requests per hour.
 * 2. One PR merged end to end: submitted, test branch built, CI result by webhook, merged, cleaned up,
 *    with its status check and comment. Goal ≤ 25 requests.
 */
import { expectNoViolations, type RecordedCall } from '../test/forge/github/fake-github-api.js';
import { createGitHubHarness, type GitHubHarness, pollerOf } from '../test/forge/github/github-harness.js';
import { checkRunCompleted } from '../test/forge/github/webhook-examples.js';

const PRS = 20;
const TICK_MS = 15_000;
const HOUR_MS = 3_600_000;

interface Row {
  scenario: string;
  goal: number;
  billable: number;
  sent: number;
}
const rows: Row[] = [];

const billable = (calls: readonly RecordedCall[]): number => calls.filter((c) => c.status !== 304).length;

/** A harness with `main`, PRs 1..n open on it and the queue of `main` requiring the check `build`. */
async function repository(n: number): Promise<GitHubHarness> {
  const h = await createGitHubHarness();
  const base = h.api.commit(null, 'base');
  h.api.branches.set('main', base);
  for (let i = 1; i <= n; i++) h.api.openPr(i, { headSha: h.api.commit(base, `pr${i}`), title: `Change ${i}` });
  h.api.requiredChecks.set('main', ['build']);
  await h.app.service.createQueue(h.ctx, h.key, {});
  return h;
}

async function idleHour(webhook: boolean): Promise<void> {
  const h = await repository(PRS);
  try {
    for (let i = 1; i <= PRS; i++) await h.app.service.submitPullRequest(h.ctx, h.key, { prNumber: i });
    await h.runEffects();
    const poller = pollerOf(h, { intervalMs: TICK_MS, webhookForges: webhook ? ['github'] : [] });
    // The first read of every PR is paid for by submitting; the hour starts after it.
    await poller.pollOnce();
    h.clock.advance(TICK_MS);
    h.api.clearLog();
    for (let t = 0; t < HOUR_MS; t += TICK_MS) {
      await poller.pollOnce();
      await h.runEffects();
      h.clock.advance(TICK_MS);
    }
    rows.push({
      scenario: `idle queue of ${PRS} PRs for an hour, ${webhook ? 'with the webhook (safety-net polling)' : 'without a webhook (polling every 15 s)'}`,
      goal: 500,
      billable: billable(h.api.calls),
      sent: h.api.calls.length,
    });
  } finally {
    await h.close();
  }
}

async function oneMerge(): Promise<void> {
  const h = await repository(1);
  try {
    h.api.clearLog();
    await h.app.service.submitPullRequest(h.ctx, h.key, { prNumber: 1 });
    await h.runEffects();
    const { entry } = await h.app.service.getSubmittedPullRequest(h.ctx, h.key, { number: 1 });
    const testSha = h.api.branches.get(`greenline-merge/pr-1/${entry.runId}`)!;
    await h.deliver('check_run', checkRunCompleted({ owner: 'acme', name: 'web' }, testSha, 'build', 'success'));
    await h.runEffects();
    const after = await h.app.service.getSubmittedPullRequest(h.ctx, h.key, { number: 1 });
    if (after.entry.state !== 'MERGED') throw new Error(`PR 1 is ${after.entry.state}, not MERGED`);
    rows.push({
      scenario: 'one PR merged end to end',
      goal: 25,
      billable: billable(h.api.calls),
      sent: h.api.calls.length,
    });
    if (process.env.BENCH_GITHUB_TRACE)
      console.log(h.api.calls.map((c) => `${c.status} ${c.method} ${c.path}`).join('\n'));
  } finally {
    await h.close();
  }
}

await idleHour(true);
await idleHour(false);
await oneMerge();
// Figures count only if every request and answer was one GitHub would take and give.
expectNoViolations();

console.log('GitHub request budget (billable requests: every answer but 304 Not Modified)\n');
const width = Math.max(...rows.map((r) => r.scenario.length));
console.log(`${'scenario'.padEnd(width)}  goal    billable  sent  met`);
for (const r of rows) {
  console.log(
    `${r.scenario.padEnd(width)}  ≤ ${String(r.goal).padEnd(5)} ${String(r.billable).padStart(8)}  ${String(r.sent).padStart(4)}  ${r.billable <= r.goal ? 'met' : 'NO'}`,
  );
}
