/**
 * `openStore` waiting for a PostgreSQL server that is not up yet (as a database container started
 * beside greenline is for its first seconds): it tries once a second for the given time, says so at
 * each try, and then fails with the same error as without the wait, saying how long it tried. The
 * clock and the pause are the test's.
 */
import { createServer, type AddressInfo } from 'node:net';
import { describe, expect, it } from 'vitest';
import { openStore } from '../../src/store/connect.js';
import { makeTempDirSync, removeTempDir } from '../helpers/temp-dir.js';

async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise((resolve) => server.close(resolve));
  return port;
}

describe('openStore on a PostgreSQL server that is not up yet', () => {
  it('keeps trying for the time given, saying so each time, then names the server, the cause and the time tried', async () => {
    const port = await closedPort();
    const dataDir = makeTempDirSync('greenline-wait-');
    let time = 0;
    const sentences: string[] = [];
    const open = openStore(
      { databaseUrl: `postgres://greenline:s3cret@127.0.0.1:${port}/greenline`, dataDir },
      {
        forMs: 5_000,
        onWait: (sentence) => sentences.push(sentence),
        now: () => time,
        sleep: async (ms) => {
          time += ms;
        },
      },
    );
    await expect(open).rejects.toThrow(
      `Could not connect to the database at postgres://greenline:***@127.0.0.1:${port}/greenline (tried 6 times in 5 s): connect ECONNREFUSED 127.0.0.1:${port}. Check that PostgreSQL is running`,
    );
    expect(sentences).toHaveLength(5);
    expect(sentences[0]).toBe(
      `The database at postgres://greenline:***@127.0.0.1:${port}/greenline is not up yet (connect ECONNREFUSED 127.0.0.1:${port}): trying again in 1 s, for up to 5 s.`,
    );
    await removeTempDir(dataDir);
  });

  it('tries once without a wait, or with a wait of 0', async () => {
    const port = await closedPort();
    const dataDir = makeTempDirSync('greenline-wait-');
    const sentences: string[] = [];
    await expect(
      openStore({ databaseUrl: `postgres://greenline@127.0.0.1:${port}/greenline`, dataDir }),
    ).rejects.toThrow(
      /^Could not connect to the database at postgres:\/\/greenline@127\.0\.0\.1:\d+\/greenline: connect ECONNREFUSED/,
    );
    await expect(
      openStore(
        { databaseUrl: 'postgres://greenline@host.invalid:5432/greenline', dataDir },
        { forMs: 0, onWait: (s) => sentences.push(s) },
      ),
    ).rejects.toThrow(/^Could not connect to the database at postgres:\/\/greenline@host\.invalid:5432\/greenline: /);
    expect(sentences).toEqual([]);
    await removeTempDir(dataDir);
  });
});
