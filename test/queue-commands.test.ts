/** The comment commands, read alike on every forge. */
import { describe, expect, it } from 'vitest';
import { parseQueueCommand } from '../src/forge/observations.js';

describe('comment commands', () => {
  it.each([
    ['/greenline merge', { kind: 'merge', noBatch: false }],
    ['LGTM\n/trunk merge -p urgent --no-batch', { kind: 'merge', priority: 'urgent', noBatch: true }],
    ['/greenline merge --priority=10', { kind: 'merge', priority: '10', noBatch: false }],
    ['/greenline cancel', { kind: 'cancel' }],
    ['/trunk cancel now', { kind: 'invalid', message: '/trunk cancel takes no options, got now' }],
    ['/greenline try', { kind: 'try', onQueue: false }],
    ['/greenline try --on-queue', { kind: 'try', onQueue: true }],
    ['/trunk try --fast', { kind: 'invalid', message: 'unknown option --fast of /trunk try: use --on-queue' }],
    [
      '/greenline stack',
      {
        kind: 'invalid',
        message: 'unknown command /greenline stack: use /greenline merge, /greenline cancel or /greenline try',
      },
    ],
    ['/greenline merge --priority', { kind: 'invalid', message: expect.stringMatching(/needs a value/) }],
    [
      '/greenline merge --message "feat(api): page runs" -p high',
      { kind: 'merge', priority: 'high', noBatch: false, message: 'feat(api): page runs' },
    ],
    [`/greenline merge -m 'fix: say "hi"'`, { kind: 'merge', noBatch: false, message: 'fix: say "hi"' }],
    ['/greenline merge --message="chore: a \\"b\\""', { kind: 'merge', noBatch: false, message: 'chore: a "b"' }],
    ['/greenline merge --message', { kind: 'invalid', message: expect.stringMatching(/needs the commit message/) }],
    ['/greenline merge -m ""', { kind: 'invalid', message: expect.stringMatching(/not empty/) }],
    ['please /greenline merge', null],
    ['nothing here', null],
  ])('%j', (body, expected) => {
    expect(parseQueueCommand(body)).toEqual(expected);
  });
});
