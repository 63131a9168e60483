/** `greenline webhook …` as real processes on a real SQLite data dir. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../cli/run-cli.js';
import { makeTempDirSync, removeTempDir } from '../helpers/temp-dir.js';

let dir: string;
beforeAll(() => {
  dir = makeTempDirSync('greenline-webhook-cli-');
});
afterAll(() => removeTempDir(dir));

const lastLine = (s: string): string => s.trimEnd().split('\n').at(-1)!;

describe('greenline webhook', () => {
  it('add prints the secret once on the last line; list, rotate-secret, deliveries and remove', async () => {
    const added = await runCli([
      'webhook',
      'add',
      'http://127.0.0.1:9/hooks',
      '--org',
      'acme',
      '--events',
      'pull_request.merged',
      '--data-dir',
      dir,
    ]);
    expect(added.code, added.stderr).toBe(0);
    const secret = lastLine(added.stdout);
    expect(secret).toMatch(/^whsec_[A-Za-z0-9+/]{32}$/);
    const id = /Created webhook (\S+)/.exec(added.stdout)![1]!;

    const list = await runCli(['webhook', 'list', '--org', 'acme', '--data-dir', dir]);
    expect(list.code).toBe(0);
    expect(list.stdout).toContain(`${id}  acme  http://127.0.0.1:9/hooks  pull_request.merged`);
    expect(list.stdout).toContain('enabled');
    expect(list.stdout).not.toContain(secret);

    const rotated = await runCli(['webhook', 'rotate-secret', id, '--data-dir', dir]);
    expect(rotated.code).toBe(0);
    expect(lastLine(rotated.stdout)).toMatch(/^whsec_/);
    expect(lastLine(rotated.stdout)).not.toBe(secret);

    const deliveries = await runCli(['webhook', 'deliveries', id, '--data-dir', dir]);
    expect(deliveries).toMatchObject({ code: 0, stdout: 'No deliveries.\n' });

    expect((await runCli(['webhook', 'remove', id, '--data-dir', dir])).code).toBe(0);
    const again = await runCli(['webhook', 'remove', id, '--data-dir', dir]);
    expect(again.code).toBe(1);
    expect(again.stderr).toContain(`No webhook subscription has id ${id}`);
  });

  it('refuses bad input with a message naming the problem', async () => {
    const cases: [string[], RegExp][] = [
      [['add', 'gopher://x', '--org', 'acme'], /must use http or https, not gopher/],
      [
        ['add', 'http://127.0.0.1/', '--org', 'acme', '--events', 'pull_request.nope'],
        /unknown webhook event type "pull_request.nope"/,
      ],
      [['redeliver', 'msg_nope'], /No webhook delivery has id msg_nope/],
    ];
    const results = await Promise.all(cases.map(([args]) => runCli(['webhook', ...args, '--data-dir', dir])));
    cases.forEach(([args, message], i) => {
      expect(results[i]!.code, args.join(' ')).not.toBe(0);
      expect(results[i]!.stderr, args.join(' ')).toMatch(message);
    });
  });

  it('follows the allow-list of the configuration', async () => {
    const env = { GREENLINE_WEBHOOK_ALLOWED_HOSTS: 'hooks.example.com,*.internal.example' };
    const refused = await runCli(['webhook', 'add', 'http://127.0.0.1/', '--org', 'acme', '--data-dir', dir], env);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toMatch(
      /127\.0\.0\.1 is not on the webhook allow-list \(webhookAllowedHosts: hooks\.example\.com, \*\.internal\.example\)/,
    );
  });
});
