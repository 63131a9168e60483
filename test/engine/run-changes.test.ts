import { describe, expect, it } from 'vitest';
import type { RunChanges } from '../../src/engine/index.js';
import { QueueDriver } from './queue-driver.js';

const changes: RunChanges = {
  baseSha: 'S0',
  files: ['src/a.ts', 'web/b.css'],
  prs: [{ number: 1, files: ['src/a.ts', 'web/b.css'] }],
};

describe('what a test run tests against and what changed', () => {
  it('keeps the changes the built test commit came with on the run and announces them', () => {
    const q = new QueueDriver();
    q.submit(1);
    q.send({ kind: 'testBranchCreated', runId: 'r1', sha: 't-r1', changes });
    expect(q.snapshot.runs.find((r) => r.id === 'r1')?.changes).toEqual(changes);
    const started = q.events().find((e) => e.type === 'test_run.started');
    expect(started).toMatchObject({ runId: 'r1', testBranchSha: 't-r1', prNumbers: [1], changes });
  });

  it('announces a run whose forge could not compare commits without changes', () => {
    const q = new QueueDriver();
    q.submit(1);
    q.built('r1');
    expect(q.snapshot.runs.find((r) => r.id === 'r1')?.changes).toBeUndefined();
    const started = q.events().find((e) => e.type === 'test_run.started');
    expect(started).toBeDefined();
    expect(started).not.toHaveProperty('changes');
  });
});
