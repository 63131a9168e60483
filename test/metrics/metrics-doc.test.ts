/** docs/metrics.md documents every metric family greenline emits, and no other. */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { OperatorMetrics } from '../../src/metrics/operator-metrics.js';
import { DURATION_BUCKETS, GROUP_SIZE_BUCKETS, newQueueMetrics } from '../../src/metrics/queue-metrics.js';

const doc = readFileSync(new URL('../../docs/metrics.md', import.meta.url), 'utf8');
/** Series names in the first column of the doc's tables. */
const documented = new Set([...doc.matchAll(/^\| `((?:mq|greenline)_[a-z0-9_]+)`/gm)].map((m) => m[1]));

describe('docs/metrics.md', () => {
  it('has a row for every queue and greenline family, and no row for a family that does not exist', async () => {
    const operator = new OperatorMetrics();
    const emitted = [
      ...(await newQueueMetrics().registry.getMetricsAsJSON()).map((m) => m.name),
      ...(await operator.registry.getMetricsAsJSON()).map((m) => m.name).filter((n) => n.startsWith('greenline_')),
    ];
    expect([...documented].sort()).toEqual([...new Set(emitted)].sort());
  });

  it('gives the buckets the histograms use', () => {
    expect(doc).toContain(`${DURATION_BUCKETS.join(', ')} and \`+Inf\``);
    expect(doc).toContain(`Buckets ${GROUP_SIZE_BUCKETS.join(', ')}, \`+Inf\``);
  });
});
