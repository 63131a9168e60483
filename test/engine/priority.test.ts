import { describe, expect, it } from 'vitest';
import { parsePriority, priorityNameOf } from '../../src/engine/index.js';

describe('parsePriority (contract §2.1, §3 #10, §6.8)', () => {
  it.each([
    [null, 100, 'medium', true],
    [undefined, 100, 'medium', true],
    ['urgent', 0, 'urgent', false],
    ['HIGH', 10, 'high', false],
    [' Low ', 200, 'low', false],
    [0, 0, 'urgent', false],
    [255, 255, 'low', false],
    ['10', 10, 'high', false],
    [42, 42, 'high', false],
    [150, 150, 'medium', false],
  ])('%j → %i %s', (input, value, name, usedDefault) => {
    expect(parsePriority(input as never)).toEqual({ ok: true, value, name, usedDefault });
  });

  it.each([256, -1, 1.5, '999', 'critical', '', '1e2'])('refuses %j with a message naming it', (input) => {
    const r = parsePriority(input as never);
    expect(r.ok).toBe(false);
    expect((r as { message: string }).message).toContain('priority');
  });

  it('refuses other types', () => {
    expect(parsePriority(true as never).ok).toBe(false);
  });

  it('names a numeric value by the named bucket at or below it', () => {
    expect([0, 5, 10, 99, 100, 199, 200, 255].map(priorityNameOf)).toEqual([
      'urgent',
      'urgent',
      'high',
      'high',
      'medium',
      'medium',
      'low',
      'low',
    ]);
  });
});
