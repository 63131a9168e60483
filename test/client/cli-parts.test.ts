/**
 * The pure parts of the client commands: where settings come from, the client config file, addresses,
 * target files, the Prometheus text reader and its per-queue summary, and options from the schemas.
 */
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { Command } from 'commander';
import { afterAll, describe, expect, it } from 'vitest';
import { QueueSettingsInput } from '../../src/api/v1/schemas/queue.js';
import { readClientConfigFile } from '../../src/cli/client-config-file.js';
import { DEFAULT_URL, defaultClientConfigPath, resolveClientSettings } from '../../src/cli/client-options.js';
import { summarize } from '../../src/cli/metrics-summary.js';
import { formatStack } from '../../src/cli/pr-format.js';
import { parsePrometheusText } from '../../src/cli/prometheus-text.js';
import { parsePrNumber, parseRepoSlug } from '../../src/cli/queue-address.js';
import { addSettingOptions, settingsFrom } from '../../src/cli/queue-settings-options.js';
import { readTargetsFile } from '../../src/cli/targets.js';
import { UsageError } from '../../src/cli/usage-error.js';
import { makeTempDirSync, removeTempDir } from '../helpers/temp-dir.js';

const dir = makeTempDirSync('greenline-client-');
afterAll(() => removeTempDir(dir));
const file = (name: string, text: string): string => {
  const p = path.join(dir, name);
  writeFileSync(p, text);
  return p;
};

describe('client settings', () => {
  const fromFile = { url: 'http://file:1', token: 'file-token', repo: 'h/o/file', branch: 'file-branch' };

  it('flags win over the environment, which wins over the file, which wins over the default URL', () => {
    expect(resolveClientSettings({}, {}, {})).toEqual({
      url: DEFAULT_URL,
      token: undefined,
      repo: undefined,
      branch: undefined,
    });
    expect(resolveClientSettings({}, {}, fromFile)).toEqual(fromFile);
    expect(
      resolveClientSettings({}, { GREENLINE_URL: 'http://env:2', GREENLINE_TOKEN: 'env-token' }, fromFile),
    ).toEqual({ ...fromFile, url: 'http://env:2', token: 'env-token' });
    expect(
      resolveClientSettings(
        { url: 'http://flag:3', token: 'flag-token', repo: 'h/o/flag', branch: 'b' },
        { GREENLINE_URL: 'http://env:2', GREENLINE_TOKEN: 'env-token' },
        fromFile,
      ),
    ).toEqual({ url: 'http://flag:3', token: 'flag-token', repo: 'h/o/flag', branch: 'b' });
  });

  it('an empty environment variable counts as unset', () => {
    expect(resolveClientSettings({}, { GREENLINE_TOKEN: '' }, fromFile).token).toBe('file-token');
  });

  it('finds the file under XDG_CONFIG_HOME, else under HOME/.config', () => {
    expect(defaultClientConfigPath({ XDG_CONFIG_HOME: '/x', HOME: '/home/a' })).toBe('/x/greenline/client.yaml');
    expect(defaultClientConfigPath({ HOME: '/home/a' })).toBe('/home/a/.config/greenline/client.yaml');
  });

  it('reads the file, and refuses unknown keys, non-string values and bad YAML; a missing file is empty unless named', () => {
    expect(readClientConfigFile(file('ok.yaml', 'url: http://gl:8080\ntoken: gl_abc\n'), true)).toEqual({
      url: 'http://gl:8080',
      token: 'gl_abc',
    });
    expect(readClientConfigFile(file('empty.yaml', ''), true)).toEqual({});
    expect(readClientConfigFile(path.join(dir, 'absent.yaml'), false)).toEqual({});
    expect(() => readClientConfigFile(path.join(dir, 'absent.yaml'), true)).toThrow(UsageError);
    expect(() => readClientConfigFile(file('key.yaml', 'server: x\n'), false)).toThrow(
      /Unknown key "server".*known: url, token, repo, branch/,
    );
    expect(() => readClientConfigFile(file('num.yaml', 'url: 8080\n'), false)).toThrow(
      /"url" .* must be a non-empty string/,
    );
    expect(() => readClientConfigFile(file('list.yaml', '- a\n'), false)).toThrow(/must be a mapping/);
    expect(() => readClientConfigFile(file('bad.yaml', 'url: [\n'), false)).toThrow(/not valid YAML/);
  });
});

describe('addresses', () => {
  it('parses HOST/OWNER/NAME and PR numbers, and says what is expected otherwise', () => {
    expect(parseRepoSlug('github.com/acme/web')).toEqual({ host: 'github.com', owner: 'acme', name: 'web' });
    expect(parseRepoSlug('gitlab.com/acme/tools/web')).toEqual({
      host: 'gitlab.com',
      owner: 'acme/tools',
      name: 'web',
    });
    for (const bad of ['acme/web', 'github.com/acme/web/', 'github.com//web'])
      expect(() => parseRepoSlug(bad)).toThrow(/HOST\/OWNER\/NAME/);
    expect(parsePrNumber('42')).toBe(42);
    for (const bad of ['0', '-1', '1.5', '#42', '4294967296', ''])
      expect(() => parsePrNumber(bad), bad).toThrow(UsageError);
  });
});

describe('target files', () => {
  it('reads one target per line (blank lines dropped) or a JSON array of strings', () => {
    expect(readTargetsFile(file('t.txt', ' //web:app \r\n\n//lib:core\n'))).toEqual(['//web:app', '//lib:core']);
    expect(readTargetsFile(file('t.json', '  ["a", "", "b"]'))).toEqual(['a', '', 'b']);
    expect(readTargetsFile(file('none.txt', '\n'))).toEqual([]);
    expect(() => readTargetsFile(file('bad.json', '[1, 2]'))).toThrow(/JSON array of strings/);
    expect(() => readTargetsFile(file('broken.json', '["a",'))).toThrow(/not a JSON array/);
    expect(() => readTargetsFile(path.join(dir, 'missing.txt'))).toThrow(/Cannot read targets from/);
  });
});

describe('metrics', () => {
  const text = [
    '# HELP mq_depth_current PRs currently in the queue',
    '# TYPE mq_depth_current gauge',
    'mq_depth_current{repo="acme/web",branch="main",queue_type="main"} 3',
    'mq_testing_slots_active{repo="acme/web",branch="main",queue_type="main"} 2',
    'mq_pr_conclusions_1h_total{repo="acme/web",branch="main",queue_type="main",conclusion="merged"} 5',
    'mq_pr_conclusions_1h_total{repo="acme/web",branch="main",queue_type="main",conclusion="failed"} 1',
    'mq_pr_test_duration_1h_seconds_bucket{le="+Inf",repo="acme/web",branch="main",queue_type="main"} 4',
    'mq_pr_test_duration_1h_seconds_sum{repo="acme/web",branch="main",queue_type="main"} 600',
    'mq_pr_test_duration_1h_seconds_count{repo="acme/web",branch="main",queue_type="main"} 4',
    'mq_depth_current{repo="acme/web",branch="rel \\"1\\"",queue_type="main"} 0',
    'greenline_bisection_runs_1h_total{repo="acme/web",branch="main",status="failed"} 0',
    'greenline_ci_runs_per_merged_pr_1h{repo="acme/web",branch="main"} 1.5',
    '',
  ].join('\n');

  it('reads samples with their labels (escapes included) and values (+Inf included)', () => {
    const samples = parsePrometheusText(text);
    expect(samples).toHaveLength(10);
    expect(samples[0]).toEqual({
      name: 'mq_depth_current',
      labels: { repo: 'acme/web', branch: 'main', queue_type: 'main' },
      value: 3,
    });
    expect(samples.at(-3)!.labels.branch).toBe('rel "1"');
    expect(parsePrometheusText('x_bucket{le="+Inf"} +Inf')[0]!.value).toBe(Infinity);
  });

  it('summarizes one row per queue: gauges, conclusions by kind, mean durations (null when none); series without a queue type make no row', () => {
    expect(summarize(parsePrometheusText(text))).toEqual([
      {
        repo: 'acme/web',
        branch: 'main',
        queueType: 'main',
        depth: 3,
        awaitingMergeability: 0,
        testing: 2,
        merged1h: 5,
        failed1h: 1,
        cancelled1h: 0,
        restarts1h: 0,
        meanTestSeconds1h: 150,
        meanWaitSeconds1h: null,
      },
      {
        repo: 'acme/web',
        branch: 'rel "1"',
        queueType: 'main',
        depth: 0,
        awaitingMergeability: 0,
        testing: 0,
        merged1h: 0,
        failed1h: 0,
        cancelled1h: 0,
        restarts1h: 0,
        meanTestSeconds1h: null,
        meanWaitSeconds1h: null,
      },
    ]);
  });
});

describe('queue settings options', () => {
  const parse = (args: string[]) => {
    const cmd = addSettingOptions(
      new Command('update').exitOverride().configureOutput({ writeErr: () => {} }),
      QueueSettingsInput,
    );
    cmd.parse(args, { from: 'user' });
    return settingsFrom(cmd.opts(), QueueSettingsInput);
  };

  it('has an option for every updateQueue setting', () => {
    const cmd = addSettingOptions(new Command('update'), QueueSettingsInput);
    const names = new Set(cmd.options.map((o) => o.attributeName()));
    for (const key of Object.keys(QueueSettingsInput)) expect(names, key).toContain(key);
  });

  it('--testing-timeout-minutes takes a number or "auto"; --ci-retries a number', () => {
    expect(parse(['--testing-timeout-minutes', '45', '--ci-retries', '2'])).toEqual({
      testingTimeoutMinutes: 45,
      ciRetries: 2,
    });
    expect(parse(['--testing-timeout-minutes', 'auto', '--required-status-start-timeout-minutes', '15'])).toEqual({
      testingTimeoutMinutes: 'auto',
      requiredStatusStartTimeoutMinutes: 15,
    });
  });

  it('sends only the settings given, typed as the schema says', () => {
    expect(parse([])).toEqual({});
    expect(
      parse([
        '--concurrency',
        '4',
        '--not-ready-timeout-hours',
        '0.5',
        '--no-batch',
        '--can-optimistically-merge',
        '--required-statuses',
        'build',
        'lint',
        '--merge-method',
        'rebase',
        '--delete-required-statuses',
      ]),
    ).toEqual({
      concurrency: 4,
      notReadyTimeoutHours: 0.5,
      batch: false,
      canOptimisticallyMerge: true,
      requiredStatuses: ['build', 'lint'],
      mergeMethod: 'rebase',
      deleteRequiredStatuses: true,
    });
    expect(() => parse(['--concurrency', 'x'])).toThrow(/--concurrency takes a number, got "x"/);
    expect(() => parse(['--no-delete-required-statuses'])).toThrow();
  });
});

describe('pr status: the stack line', () => {
  it('lists the stack bottom first, marking the PR itself, and says - for a PR in none', () => {
    expect(formatStack({ prNumber: 3, stack: [2, 3, 4] })).toBe('#2 > #3 (this) > #4 (lands bottom first)');
    expect(formatStack({ prNumber: 1, stack: [] })).toBe('-');
  });
});
