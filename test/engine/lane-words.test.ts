import { describe, expect, it } from 'vitest';
import { laneText } from '../../src/engine/lane-words.js';

describe("a PR's lane in words", () => {
  it('names its targets, and why when they were computed from its paths', () => {
    expect(laneText(['web', 'api'], 'touches web/** (web); api/** (api)')).toBe(
      'web, api — touches web/** (web); api/** (api)',
    );
    expect(laneText('ALL', 'its paths match no glob of impactedTargetsFromPaths: its fallback, every target')).toBe(
      'every target — its paths match no glob of impactedTargetsFromPaths: its fallback, every target',
    );
    expect(laneText(['web'])).toBe('web');
    expect(laneText([])).toBe('no target');
  });
});
