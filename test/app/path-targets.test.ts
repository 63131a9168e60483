import { describe, expect, it } from 'vitest';
import { targetsOfPaths } from '../../src/app/path-targets.js';

const setting = { targets: { web: ['web/**', '*.css'], api: ['api/**'], docs: ['docs/**'] } };

describe('impacted targets from paths', () => {
  it('a PR impacts each target one of whose globs one of its paths matches, and says which', () => {
    expect(targetsOfPaths(setting, ['web/src/.eslintrc', 'api/x.go'])).toEqual({
      targets: ['web', 'api'],
      why: 'touches web/** (web); api/** (api)',
    });
    expect(targetsOfPaths(setting, ['site.css', 'web/a.ts'])).toEqual({
      targets: ['web'],
      why: 'touches web/**, *.css (web)',
    });
  });

  it('a PR whose paths match no glob, or are not known, gets the fallback: every target unless set', () => {
    expect(targetsOfPaths(setting, ['README.md'])).toEqual({
      targets: 'ALL',
      why: 'its paths match no glob of impactedTargetsFromPaths: its fallback, every target',
    });
    expect(targetsOfPaths({ ...setting, fallback: ['docs'] }, null)).toEqual({
      targets: ['docs'],
      why: 'its changed paths are not known to impactedTargetsFromPaths: its fallback, docs',
    });
  });
});
