/** Over a real socket: a body over 20 MiB gets 413 and the server keeps serving. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BODY_LIMIT } from '../../src/api/build-app.js';
import type { TestService } from '../helpers/service.js';
import { listenApiHarness, REPO, SLUG } from './api-harness.js';

let h: Awaited<ReturnType<typeof listenApiHarness>>;
let t: TestService;
let base: string;
let token: string;

beforeAll(async () => {
  h = await listenApiHarness(); // enumCase 'upper', the server's default
  ({ t, base, token } = h);
  t.forge.openPr(SLUG, { number: 1 });
});
afterAll(() => h.close());

const upload = (targets: string[]) =>
  fetch(`${base}/v1/setImpactedTargets`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-api-token': token },
    body: JSON.stringify({
      repo: REPO,
      targetBranch: 'main',
      pr: { number: 1, sha: 'b'.repeat(40) },
      impactedTargets: targets,
    }),
  });

describe('body limit', () => {
  it('answers 413 PAYLOAD_TOO_LARGE over 20 MiB, then serves the next request', async () => {
    const target = '//services/payments/internal/ledger:reconciliation_test_'; // ~60 bytes with quotes and comma
    const count = Math.ceil(BODY_LIMIT / target.length) + 1000;
    const big = await upload(Array.from({ length: count }, (_, i) => `${target}${i}`));
    expect(big.status).toBe(413);
    expect(await big.json()).toEqual({
      error: {
        code: 'PAYLOAD_TOO_LARGE',
        message: 'The request body is larger than the 20 MiB limit; for large impacted-target lists send "ALL"',
      },
    });

    const next = await upload(['//web']);
    expect(next.status).toBe(200);
    expect(await next.json()).toEqual({});
  });

  it('accepts a body just under the limit (100,000 targets, as merge-action was tested with)', async () => {
    const res = await upload(Array.from({ length: 100_000 }, (_, i) => `//pkg/module_${i}:test`));
    expect(res.status).toBe(200);
  });
});
