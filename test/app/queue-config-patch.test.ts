import { describe, expect, it } from 'vitest';
import { validateConfigPatch } from '../../src/app/queue-config-patch.js';
import { HttpError } from '../../src/errors.js';

describe('validateConfigPatch', () => {
  it('keeps known settings and drops undefined and unknown ones', () => {
    expect(validateConfigPatch({ concurrency: 3, batch: true, mode: undefined, isBatching: true, pendingFailureDepth: 0 }))
      .toEqual({ concurrency: 3, batch: true, pendingFailureDepth: 0 });
  });

  it.each([
    [{ concurrency: 0 }, 'concurrency must be an integer of at least 1'],
    [{ concurrency: 1.5 }, 'concurrency must be an integer of at least 1'],
    [{ pendingFailureDepth: -1 }, 'pendingFailureDepth must be an integer of at least 0'],
    [{ mode: 'serial' }, 'mode must be one of single, parallel'],
    [{ mergeMethod: 'SQUASH' }, 'mergeMethod must be one of merge_commit, squash, rebase'],
    [{ batch: 'yes' }, 'batch must be true or false'],
    [{ enqueueingLabel: ' ' }, 'enqueueingLabel must be a non-empty string'],
    [{ requiredStatuses: ['ok', ''] }, 'requiredStatuses must be a list of non-empty status names'],
  ])('rejects %o naming the setting', (patch, message) => {
    try {
      validateConfigPatch(patch);
      expect.unreachable();
    } catch (err) {
      expect(err).toBeInstanceOf(HttpError);
      expect((err as HttpError).status).toBe(400);
      expect((err as HttpError).message).toContain(message);
    }
  });

  it('accepts null requiredStatuses (no override)', () => {
    expect(validateConfigPatch({ requiredStatuses: null })).toEqual({ requiredStatuses: null });
  });
});
