/** Which --remote values git reads as local paths, and how they are stored. */
import { describe, expect, it } from 'vitest';
import { absoluteRemote, isLocalPath } from '../../src/git/remote-path.js';

describe('remote paths', () => {
  it.each(['../shop.git', 'shop.git', './a/b.git', '/srv/git/web.git', 'dir/with:colon.git'])(
    '%s is a local path',
    (remote) => {
      expect(isLocalPath(remote)).toBe(true);
    },
  );

  it.each([
    'https://git.example.com/acme/web.git',
    'file:///srv/git/web.git',
    'ssh://git@host/acme/web.git',
    'git@github.com:acme/web.git',
    'host:acme/web.git',
  ])('%s is a URL', (remote) => {
    expect(isLocalPath(remote)).toBe(false);
    expect(absoluteRemote(remote, '/work')).toBe(remote);
  });

  it('resolves a local path against the directory given', () => {
    expect(absoluteRemote('../shop.git', '/home/dev/web')).toBe('/home/dev/shop.git');
    expect(absoluteRemote('/srv/git/web.git', '/home/dev')).toBe('/srv/git/web.git');
  });
});
