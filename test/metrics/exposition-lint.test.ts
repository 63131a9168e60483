/** The lint used on every scrape finds each defect it claims to find, and passes a valid text. */
import { describe, expect, it } from 'vitest';
import { lint } from './exposition.js';

const VALID = [
  '# HELP g a gauge',
  '# TYPE g gauge',
  'g{repo="a/b",x="1"} 2',
  'g{repo="a/b",x="2"} 3.5',
  '# HELP h a histogram',
  '# TYPE h histogram',
  'h_bucket{le="1",repo="a/b"} 1',
  'h_bucket{le="5",repo="a/b"} 2',
  'h_bucket{le="+Inf",repo="a/b"} 3',
  'h_sum{repo="a/b"} 12',
  'h_count{repo="a/b"} 3',
  '',
].join('\n');

describe('lint', () => {
  it('passes a valid exposition', () => {
    expect(lint(VALID)).toEqual([]);
  });

  it.each([
    ['a second HELP', VALID.replace('# TYPE g gauge', '# TYPE g gauge\n# HELP g again'), 'second HELP for g'],
    ['a second TYPE', VALID.replace('# TYPE g gauge', '# TYPE g gauge\n# TYPE g gauge'), 'second TYPE for g'],
    [
      'TYPE after samples',
      VALID.replace('# TYPE g gauge\n', '').replace('# HELP h', '# TYPE g gauge\n# HELP h'),
      'TYPE of g after its samples',
    ],
    ['no HELP', VALID.replace('# HELP g a gauge\n', ''), 'g has samples but no HELP'],
    ['an empty HELP', VALID.replace('# HELP g a gauge', '# HELP g '), 'g has no help text'],
    ['an unknown type', VALID.replace('# TYPE g gauge', '# TYPE g meter'), 'unknown type meter for g'],
    ['a bad metric name', VALID.replace('g{repo="a/b",x="1"}', 'g-x{repo="a/b",x="1"}'), 'invalid metric name g-x'],
    ['a bad label name', VALID.replace('x="1"', '1x="1"'), 'invalid label name 1x'],
    ['a reserved label name', VALID.replace('x="1"', '__x="1"'), 'invalid label name __x'],
    ['a bad value', VALID.replace('3.5', 'three'), 'invalid value three'],
    ['a duplicate series', VALID.replace('x="2"', 'x="1"'), 'duplicate series g{repo=a/b,x=1}'],
    ['a split family', `${VALID}g{repo="c/d",x="1"} 1\n`, 'g continues after other families'],
    [
      'non-cumulative buckets',
      VALID.replace('h_bucket{le="5",repo="a/b"} 2', 'h_bucket{le="5",repo="a/b"} 0'),
      'buckets not cumulative',
    ],
    ['descending le', VALID.replace('le="5"', 'le="0.5"'), 'le not ascending'],
    [
      '+Inf unlike _count',
      VALID.replace('h_count{repo="a/b"} 3', 'h_count{repo="a/b"} 4'),
      '+Inf bucket 3 != _count 4',
    ],
    ['no +Inf bucket', VALID.replace('h_bucket{le="+Inf",repo="a/b"} 3\n', ''), 'no +Inf bucket'],
    ['no _sum', VALID.replace('h_sum{repo="a/b"} 12\n', ''), 'no _sum'],
    ['a broken line', `${VALID}g{repo="a/b" 1\n`, 'not a sample'],
  ])('reports %s', (_what, text, problem) => {
    expect(lint(text).join('\n')).toContain(problem);
  });
});
