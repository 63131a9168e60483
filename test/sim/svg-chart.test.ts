/** The chart: well-formed SVG with both panels, scaled to the data, text escaped. */
import { describe, expect, it } from 'vitest';
import { renderChart } from '../../src/sim/svg-chart.js';

const series = {
  depth: [
    [0, 0],
    [10, 4],
    [70, 12],
    [130, 3],
    [200, 0],
  ] as [number, number][],
  merges: [30, 45, 60, 61, 62, 90, 150],
  windowStart: 20,
  windowEnd: 180,
};

describe('renderChart', () => {
  it('draws queue depth and merges per hour, shading warm-up and drain', () => {
    const svg = renderChart(series, 'Run <1> & "friends"', ['workload line', 'queue line']);
    expect(svg.startsWith('<svg xmlns="http://www.w3.org/2000/svg"')).toBe(true);
    expect(svg.trimEnd().endsWith('</svg>')).toBe(true);
    expect(svg).toContain('Run &lt;1&gt; &amp; &quot;friends&quot;');
    expect(svg).not.toContain('<1>');
    expect(svg).toContain('workload line');
    expect(svg).toContain('queue line');
    expect(svg).toContain('PRs in queue (peak)');
    expect(svg).toMatch(/merges per hour \(\d+ min buckets\)/);
    expect(svg.match(/>warm-up</g)).toHaveLength(2);
    expect(svg.match(/>draining</g)).toHaveLength(2);
    // The depth axis reaches the peak (12 → a nice 20), one bar per bucket.
    expect(svg).toContain('>20<');
    expect(svg.match(/fill="#16a34a"/g)!.length).toBeGreaterThan(1);
    // Every tag is closed: opening tags minus self-closed ones equal closing tags.
    const open = (svg.match(/<(svg|text)\b/g) ?? []).length;
    const close = (svg.match(/<\/(svg|text)>/g) ?? []).length;
    expect(open).toBe(close);
    expect(svg).not.toMatch(/NaN|Infinity|undefined/);
  });

  it('copes with an empty run', () => {
    const svg = renderChart({ depth: [], merges: [], windowStart: 0, windowEnd: 0 }, 'empty', []);
    expect(svg).not.toMatch(/NaN|Infinity|undefined/);
  });
});
