/**
 * The dashboard's small pure helpers in Node: codes as words and the links it trusts (web/words.js),
 * durations (web/dom.js), its pages' addresses (web/links.js). Their components are seen in the browser
 * tests of test/dashboard/.
 */
import { describe, expect, it } from 'vitest';
import { duration } from '../../web/dom.js';
import { historyHref, prHref, queueHref, queueLabel, settingsHref } from '../../web/links.js';
import { linkable, stateClass, words } from '../../web/words.js';

describe('codes as words', () => {
  it('spells a state, status or kind code as words, and classes its badge by the code', () => {
    expect([words('PENDING_FAILURE'), words('in_progress'), words('bisection')]).toEqual([
      'Pending failure',
      'In progress',
      'Bisection',
    ]);
    expect(stateClass('PENDING_FAILURE')).toBe('badge state-pending_failure');
  });

  it('links only http and https addresses', () => {
    expect(
      ['https://ci.example/1', 'HTTP://ci.example', 'javascript:alert(1)', 'ftp://x', null, 7].map(linkable),
    ).toEqual([true, true, false, false, false, false]);
  });
});

describe('durations', () => {
  it('says seconds, then minutes and seconds, then hours and minutes', () => {
    expect([0, 2_600, 59_400, 60_000, 245_000, 3_599_000, 3_600_000, 7_830_000, -5_000].map(duration)).toEqual([
      '0 s',
      '3 s',
      '59 s',
      '1 min 00 s',
      '4 min 05 s',
      '59 min 59 s',
      '1 h 00 min',
      '2 h 10 min',
      '0 s',
    ]);
  });
});

describe("the pages' addresses", () => {
  const key = { repo: { host: 'github.com', owner: 'acme', name: 'web' }, targetBranch: 'release/2.x' };

  it('addresses each page of a queue by its four segments, each encoded', () => {
    expect(queueHref(key)).toBe('#/queue/github.com/acme/web/release%2F2.x');
    expect(prHref(key, 12)).toBe('#/pr/github.com/acme/web/release%2F2.x/12');
    expect(settingsHref(key)).toBe('#/settings/github.com/acme/web/release%2F2.x');
    expect(historyHref(key)).toBe('#/history/github.com/acme/web/release%2F2.x');
    expect(queueLabel(key)).toBe('acme/web → release/2.x');
  });
});
