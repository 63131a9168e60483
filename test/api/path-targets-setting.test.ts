/**
 * impactedTargetsFromPaths through the HTTP API (docs/api.md): updateQueue takes it and null turns it
 * off, getQueue shows it only while set, and a setting of the wrong shape is a 400 that says the shape.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createApiHarness, errorOf, json, SLUG, type ApiHarness } from './api-harness.js';

let h: ApiHarness;
beforeEach(async () => {
  h = await createApiHarness();
  await h.queueWithPrs(0);
});
afterEach(() => h.close());

const update = (fields: Record<string, unknown>) => h.post('/v1/updateQueue', h.body(fields));
const getQueue = async () => json(await h.post('/v1/getQueue', h.body()));

describe('impactedTargetsFromPaths', () => {
  it('is set, shown while set, and turned off with null', async () => {
    expect(await getQueue()).not.toHaveProperty('impactedTargetsFromPaths');
    const setting = { targets: { web: ['web/**'], api: ['api/**', 'proto/**'] }, fallback: ['web', 'api'] };
    expect((await update({ impactedTargetsFromPaths: setting })).statusCode).toBe(200);
    expect((await getQueue()).impactedTargetsFromPaths).toEqual(setting);
    expect((await update({ impactedTargetsFromPaths: null })).statusCode).toBe(200);
    expect(await getQueue()).not.toHaveProperty('impactedTargetsFromPaths');
  });

  it('refuses a setting of another shape with a 400 that says the shape, and keeps the one there is', async () => {
    await update({ impactedTargetsFromPaths: { targets: { web: ['web/**'] } } });
    for (const bad of [{ targets: {} }, { targets: { web: [] } }, { targets: { web: ['web/**'] }, fallback: 'web' }]) {
      const res = await update({ impactedTargetsFromPaths: bad });
      expect(res.statusCode, JSON.stringify(bad)).toBe(400);
      expect(errorOf(res).message).toMatch(/impactedTargetsFromPaths/);
    }
    expect((await getQueue()).impactedTargetsFromPaths).toEqual({ targets: { web: ['web/**'] } });
  });
});

describe('a change of impactedTargetsFromPaths says it applies to PRs admitted after it', () => {
  const setting = { targets: { web: ['web/**'] } };

  it('in the notes of updateQueue, only when the setting changed', async () => {
    h.t.forge.openPr(SLUG, { number: 1, title: 'Change 1', author: 'dev' });
    expect((await h.post('/v1/submitPullRequest', h.body({ pr: { number: 1 } }))).statusCode).toBe(200);
    expect(json(await update({ impactedTargetsFromPaths: setting })).notes).toEqual([
      'impactedTargetsFromPaths set: it applies to PRs admitted from now on; the PR the queue holds now keeps its impacted targets',
    ]);
    expect(json(await update({ impactedTargetsFromPaths: setting }))).not.toHaveProperty('notes');
    expect(json(await update({ concurrency: 2 }))).not.toHaveProperty('notes');
    expect(json(await update({ impactedTargetsFromPaths: null })).notes).toEqual([
      expect.stringMatching(/^impactedTargetsFromPaths turned off: it applies to PRs admitted from now on/),
    ]);
    expect(await getQueue()).not.toHaveProperty('notes');
  });
});

describe('impactedTargetsFromPaths on the v2 API', () => {
  // An extension: Trunk's document does not list it, so it is asked without the document's check.
  const patch = async (body: Record<string, unknown>) => {
    const list = json(await h.app.inject({ method: 'GET', url: '/v2/merge-queues', headers: v2Headers() }));
    return h.app.inject({
      method: 'PATCH',
      url: `/v2/merge-queues/${list.data[0].id}/config`,
      headers: { ...v2Headers(), 'content-type': 'application/json' },
      payload: JSON.stringify(body),
    });
  };
  const v2Headers = () => ({ authorization: `Bearer ${h.token}` });

  it('takes the setting in the config patch, shows it while set, and null turns it off', async () => {
    const setting = { targets: { web: ['web/**'] }, fallback: [] };
    const res = await patch({ impactedTargetsFromPaths: setting });
    expect(res.statusCode, res.body).toBe(200);
    expect(json(res).config.impactedTargetsFromPaths).toEqual(setting);
    expect((await getQueue()).impactedTargetsFromPaths).toEqual(setting);
    expect(json(res).notes).toEqual([
      'impactedTargetsFromPaths set: it applies to PRs admitted from now on; the queue holds no PR now',
    ]);
    expect(json(await patch({ impactedTargetsFromPaths: setting }))).not.toHaveProperty('notes');
    const off = await patch({ impactedTargetsFromPaths: null });
    expect(json(off).config).not.toHaveProperty('impactedTargetsFromPaths');
    expect(json(off).notes).toEqual([expect.stringMatching(/^impactedTargetsFromPaths turned off/)]);
  });

  it('refuses a setting of another shape with a 400 that names it', async () => {
    for (const bad of [{ targets: {} }, { targets: { web: 'web/**' } }, { globs: ['web/**'] }]) {
      const res = await patch({ impactedTargetsFromPaths: bad });
      expect(res.statusCode, JSON.stringify(bad)).toBe(400);
      expect(res.body).toMatch(/impactedTargetsFromPaths/);
    }
    expect(await getQueue()).not.toHaveProperty('impactedTargetsFromPaths');
  });
});
