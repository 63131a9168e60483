/**
 * The queue graph's pure modules in Node (web/graph/): the picture worked out from an activity, its
 * words, and where its parts are placed. What a person sees of it in a browser is test/dashboard/graph.browser.test.ts.
 */
import { describe, expect, it } from 'vitest';
import { arrowPath, layout } from '../../web/graph/layout.js';
import { picture } from '../../web/graph/picture.js';
import { describe as inWords, headline, runSentence } from '../../web/graph/words.js';
import { activityOf, concludedOf, prOf, runOf } from './activity.js';

/** The items of each lane: their kind, PRs and what they are built on. */
const itemsOf = (pic: ReturnType<typeof picture>) =>
  pic.lanes.map((lane) =>
    lane.items.map((i) => ({
      kind: i.kind,
      prs: i.nodes.map((n) => n.number),
      after: i.after,
      onTopOf: i.onTopOf,
      mergedSince: i.mergedSince,
    })),
  );

describe('the picture of a queue activity', () => {
  it('leaves the merged base PRs of a run out of the lane; the rest stay queued under it', () => {
    // #1 merged while the runs built on it tested; #2 passed and merges next; #3-#4 are a batch on #1
    // and #2; #5 is tested on #1 to #4; #6 waits; #7 is not ready.
    const pic = picture(
      activityOf({
        pullRequests: [
          prOf(2, 'TESTS_PASSED', 'r2'),
          prOf(3, 'TESTING', 'r3'),
          prOf(4, 'TESTING', 'r3'),
          prOf(5, 'TESTING', 'r5'),
          prOf(6, 'PENDING'),
          prOf(7, 'NOT_READY'),
        ],
        testRuns: [runOf('r3', [3, 4], [1, 2]), runOf('r5', [5], [1, 2, 3, 4])],
        recentPullRequests: [concludedOf(1, 'MERGED')],
      }),
    );
    expect(itemsOf(pic)).toEqual([
      [
        { kind: 'passed', prs: [2], after: null, onTopOf: [], mergedSince: [] },
        { kind: 'run', prs: [3, 4], after: 2, onTopOf: [2], mergedSince: [1] },
        { kind: 'run', prs: [5], after: 4, onTopOf: [2, 3, 4], mergedSince: [1] },
        { kind: 'waiting', prs: [6], after: 5, onTopOf: [], mergedSince: [] },
      ],
    ]);
    expect(pic.notReady.map((n) => n.number)).toEqual([7]);
    expect(pic.leaving.map((n) => [n.number, n.state, n.word])).toEqual([[1, 'MERGED', 'merged']]);
    expect([pic.runs, pic.waiting]).toEqual([2, 1]);
  });

  it('draws a run still building its test commit as a run, its PRs "building"', () => {
    const pic = picture(
      activityOf({
        pullRequests: [prOf(8, 'TESTING', 'r8'), prOf(9, 'PENDING', 'r9'), prOf(10, 'PENDING')],
        testRuns: [runOf('r8', [8], []), runOf('r9', [9], [8], 'creating')],
      }),
    );
    expect(itemsOf(pic)[0]!.map((i) => [i.kind, i.prs])).toEqual([
      ['run', [8]],
      ['run', [9]],
      ['waiting', [10]],
    ]);
    expect(pic.lanes[0]!.items.map((i) => i.nodes[0]!.word)).toEqual(['testing', 'building', 'waiting']);
  });

  it('keeps PRs whose tests passed in one run in one box only while they are next to each other', () => {
    const pic = picture(
      activityOf({
        pullRequests: [
          prOf(1, 'TESTS_PASSED', 'p'),
          prOf(2, 'TESTS_PASSED', 'p'),
          prOf(3, 'PENDING'),
          prOf(4, 'TESTS_PASSED', 'p'),
        ],
      }),
    );
    expect(pic.lanes[0]!.items.map((i) => [i.key, i.nodes.map((n) => n.number)])).toEqual([
      ['passed-p', [1, 2]],
      ['pr-3', [3]],
      ['passed-p-4', [4]],
    ]);
  });

  it("puts a parallel queue's runs in lanes, and shows at most four concluded PRs leaving", () => {
    const pic = picture(
      activityOf({
        mode: 'parallel',
        pullRequests: [prOf(1, 'TESTING', 'a', 1), prOf(2, 'TESTING', 'b', 2), prOf(3, 'PENDING', null, 1)],
        testRuns: [runOf('a', [1], [], 'in_progress', 1), runOf('b', [2], [], 'in_progress', 2)],
        recentPullRequests: [11, 12, 13, 14, 15].map((n) => concludedOf(n, 'FAILED')),
      }),
    );
    expect(pic.lanes.map((l) => [l.lane, l.items.flatMap((i) => i.nodes.map((n) => n.number))])).toEqual([
      [1, [1, 3]],
      [2, [2]],
    ]);
    expect(pic.leaving.map((n) => n.number)).toEqual([11, 12, 13, 14]);
    expect(pic.leaving[0]!.why).toBe('#11 is FAILED.');
  });
});

describe('the picture in words', () => {
  const pic = picture(
    activityOf({
      pullRequests: [prOf(3, 'TESTING', 'r3'), prOf(4, 'TESTING', 'r3'), prOf(5, 'PENDING'), prOf(6, 'NOT_READY')],
      testRuns: [{ ...runOf('0123456789abcdef', [3, 4], [2]), retries: 1 }],
      recentPullRequests: [concludedOf(2, 'MERGED')],
    }),
  );

  it('names a run by its kind, id, PRs, base and retries', () => {
    expect(runSentence(pic.lanes[0]!.items[0]!, 'main')).toBe(
      'Batch of 2, run 01234567: testing #3, #4 on main (built on #2, merged since); retry 1',
    );
  });

  it('says the whole picture for screen readers, and a headline above it', () => {
    expect(inWords(pic, 'main', 'a'.repeat(40))).toBe(
      'main is at aaaaaaaa. In merge order: Batch of 2, run 01234567: testing #3, #4 on main (built on #2, merged since); retry 1; #5 waiting. Not ready: #6. Recently concluded: #2 merged.',
    );
    expect(headline(pic)).toBe('1 run in flight · 1 waiting · 1 not ready');
    expect(inWords(picture(activityOf({})), 'main', null)).toBe('main is at –. Nothing in the queue.');
  });
});

describe('the layout of a picture', () => {
  it('places the boxes of a lane left to right from the trunk, each arrow from what it is built on', () => {
    const at = layout(
      picture(
        activityOf({
          pullRequests: [prOf(1, 'TESTING', 'r1'), prOf(2, 'TESTING', 'r2'), prOf(3, 'TESTING', 'r2')],
          testRuns: [runOf('r1', [1], []), runOf('r2', [2, 3], [1])],
        }),
      ),
    );
    expect(at.lanes).toHaveLength(1);
    const [one, two] = at.lanes[0]!.items;
    // The trunk's right edge, then a run of one PR, then a batch of two a step further.
    expect(at.trunk.x + at.trunk.w).toBeLessThan(one!.x);
    expect(two!.x).toBeGreaterThan(one!.x + one!.w);
    expect(two!.w).toBeGreaterThan(2 * one!.prs[0]!.w);
    expect(two!.prs.map((p) => p.x)).toEqual([two!.x + 8, two!.x + 8 + one!.prs[0]!.w + 8]);
    // Arrows: trunk → run 1 → batch, each ending at the left of its box, at the PRs' middle.
    const mid = one!.prs[0]!.y + one!.prs[0]!.h / 2;
    expect(at.lanes[0]!.arrows).toEqual([
      { key: 'e-run-r1', d: arrowPath({ x: at.trunk.x + at.trunk.w, y: mid }, { x: one!.x, y: mid }), dashed: false },
      { key: 'e-run-r2', d: arrowPath({ x: one!.x + one!.w, y: mid }, { x: two!.x, y: mid }), dashed: false },
    ]);
    expect(at.width).toBe(two!.x + two!.w + 12);
    expect([at.empty, at.notReady, at.leaving, at.lanes[0]!.waiting]).toEqual([null, null, null, null]);
  });

  it('draws the PRs waiting at the back of a lane as chips in two rows, the PRs not ready underneath', () => {
    const at = layout(
      picture(
        activityOf({
          pullRequests: [prOf(1, 'TESTING', 'r1'), ...[2, 3, 4].map((n) => prOf(n, 'PENDING')), prOf(5, 'NOT_READY')],
          testRuns: [runOf('r1', [1], [])],
        }),
      ),
    );
    const lane = at.lanes[0]!;
    expect(lane.items.map((i) => i.item.kind)).toEqual(['run']);
    const chips = lane.waiting!.prs;
    expect(chips.map((c) => [c.node.number, c.size])).toEqual([
      [2, 'chip'],
      [3, 'chip'],
      [4, 'chip'],
    ]);
    // Column by column, two rows: #2 over #3, then #4 beside #2.
    expect(chips[1]!.x).toBe(chips[0]!.x);
    expect(chips[1]!.y).toBeGreaterThan(chips[0]!.y + chips[0]!.h);
    expect([chips[2]!.x > chips[0]!.x + chips[0]!.w, chips[2]!.y]).toEqual([true, chips[0]!.y]);
    expect(lane.arrows.map((a) => [a.key, a.dashed])).toEqual([
      ['e-run-r1', false],
      ['e-waiting', true],
    ]);
    const notReady = at.notReady!.prs[0]!;
    expect([notReady.node.number, notReady.size]).toEqual([5, 'node']);
    expect(notReady.y).toBeGreaterThan(lane.items[0]!.y + lane.items[0]!.h);
    expect(at.height).toBe(notReady.y + notReady.h + 20);
  });

  it('puts the PRs leaving under the lanes and the PRs not ready, right of the trunk, a merged one with a line into it', () => {
    const empty = layout(picture(activityOf({})));
    const at = layout(
      picture(
        activityOf({
          pullRequests: [prOf(5, 'NOT_READY')],
          recentPullRequests: [concludedOf(1, 'MERGED'), concludedOf(2, 'FAILED')],
        }),
      ),
    );
    // The trunk stays on the far left, the lanes where they are without PRs leaving.
    expect([at.trunk.x, at.lanes[0]?.label.x]).toEqual([empty.trunk.x, empty.lanes[0]?.label.x]);
    const [first, second] = at.leaving!.prs;
    expect(first!.x).toBe(at.trunk.x + at.trunk.w + 40);
    expect(first!.y).toBeGreaterThan(at.notReady!.prs[0]!.y + at.notReady!.prs[0]!.h);
    expect(at.leaving!.prs.map((p) => [p.node.number, p.size, p.line])).toEqual([
      [1, 'leaving', `M${first!.x},${first!.y + 15} H${at.trunk.x + at.trunk.w}`],
      [2, 'leaving', null],
    ]);
    // The trunk reaches down to the last PR leaving; the picture ends under it.
    expect(at.trunk.y + at.trunk.h).toBe(second!.y + second!.h);
    expect(at.height).toBe(second!.y + second!.h + 20);
  });

  it('arcs an arrow under the row when it skips items, and curves it gently between neighbours', () => {
    expect(arrowPath({ x: 0, y: 10 }, { x: 40, y: 10 })).toBe('M0,10 C20,10 20,10 40,10');
    expect(arrowPath({ x: 0, y: 10 }, { x: 200, y: 10 })).toBe('M0,10 C40,70 160,70 200,10');
  });
});
