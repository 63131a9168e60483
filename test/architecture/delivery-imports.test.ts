/**
 * Webhooks and chat notifications share one delivery outbox (src/delivery/) and nothing else: each
 * imports src/delivery/, neither imports the other, and src/delivery/ imports neither.
 */
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { folderGraph } from './folder-graph.js';

const src = join(dirname(fileURLToPath(import.meta.url)), '..', '..', 'src');

describe('the delivery outbox', () => {
  const { edges } = folderGraph(src);
  const imports = (from: string, to: string): string | null => edges.get(from)?.get(to) ?? null;

  it('is what webhooks and notify share: each imports delivery, neither the other', () => {
    expect(imports('webhooks', 'delivery')).not.toBeNull();
    expect(imports('notify', 'delivery')).not.toBeNull();
    expect({
      'webhooks → notify': imports('webhooks', 'notify'),
      'notify → webhooks': imports('notify', 'webhooks'),
    }).toEqual({ 'webhooks → notify': null, 'notify → webhooks': null });
  });

  it('imports neither webhooks nor notify', () => {
    expect({ webhooks: imports('delivery', 'webhooks'), notify: imports('delivery', 'notify') }).toEqual({
      webhooks: null,
      notify: null,
    });
  });
});
