/**
 * The built-in CI command of an end-to-end repository: it runs the repository's own `check.sh` on the
 * checkout greenline made of the test commit, and appends what it saw (run id, test commit, PRs,
 * exit code) to a record outside the repository — an independent witness of which commits CI really
 * ran on and what it answered.
 */
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';

export interface CiRecord {
  runId: string;
  sha: string;
  prNumbers: number[];
  exitCode: number;
}

export interface CiScript {
  /** The value of `--ci-command`. */
  command: string;
  /** Every finished CI command so far. */
  records(): CiRecord[];
}

/**
 * `prelude`: shell lines run before the check, e.g. a service started in the background and a pause,
 * as real CI scripts have.
 */
export function writeCiScript(dir: string, prelude: string[] = []): CiScript {
  const script = path.join(dir, 'ci.sh');
  const record = path.join(dir, 'ci-runs.txt');
  writeFileSync(
    script,
    [
      ...prelude,
      'sh check.sh',
      'code=$?',
      `echo "$GREENLINE_TEST_RUN_ID $GREENLINE_TEST_SHA $GREENLINE_PR_NUMBERS $code" >> '${record}'`,
      'exit $code',
      '',
    ].join('\n'),
  );
  return {
    command: `sh '${script}'`,
    records: () =>
      (existsSync(record) ? readFileSync(record, 'utf8') : '')
        .split('\n')
        .filter(Boolean)
        .map((line) => {
          const [runId, sha, prs, code] = line.split(' ') as [string, string, string, string];
          return { runId, sha, prNumbers: prs.split(',').map(Number), exitCode: Number(code) };
        }),
  };
}

/** A repository check: every `features/*.txt` must say `works`. */
export const CHECK_SH = [
  'for f in features/*.txt; do',
  '  [ -e "$f" ] || continue',
  '  grep -qx works "$f" || { echo "$f is broken"; exit 1; }',
  'done',
  '',
].join('\n');
