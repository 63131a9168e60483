import { describe, expect, it } from 'vitest';
import { pathTargetsChangeNote, targetsOfPaths } from '../../src/app/path-targets.js';

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

describe('a change of the setting, in words', () => {
  it('says it applies to PRs admitted from now on, and how many PRs keep their targets', () => {
    const web = { targets: { web: ['web/**'] } };
    expect(pathTargetsChangeNote(null, web, 0)).toBe(
      'impactedTargetsFromPaths set: it applies to PRs admitted from now on; the queue holds no PR now',
    );
    expect(pathTargetsChangeNote(web, { targets: { web: ['web/**', 'ui/**'] } }, 1)).toBe(
      'impactedTargetsFromPaths changed: it applies to PRs admitted from now on; the PR the queue holds now keeps its impacted targets',
    );
    expect(pathTargetsChangeNote(web, null, 3)).toBe(
      'impactedTargetsFromPaths turned off: it applies to PRs admitted from now on; the 3 PRs the queue holds now keep their impacted targets',
    );
  });

  it('says nothing when the setting is written as it was', () => {
    expect(pathTargetsChangeNote({ targets: { web: ['web/**'] } }, { targets: { web: ['web/**'] } }, 2)).toBeNull();
    expect(pathTargetsChangeNote(undefined, null, 2)).toBeNull();
  });
});
