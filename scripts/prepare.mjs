/**
 * npm's `prepare` script: builds dist/ after `npm ci` or `npm install` in a checkout and before
 * `npm pack`. `npx greenline` in a checkout installs the checkout into npm's cache and runs `prepare`
 * too (npm_command `exec`): there it builds only when dist/ has no CLI yet, so that the command starts
 * in about a second and never rebuilds dist/ under a server running from it. Plain Node: it runs
 * before anything else is known to be installed.
 */
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';

if (process.env.npm_command === 'exec' && existsSync(new URL('../dist/cli.js', import.meta.url))) process.exit(0);
const build = spawnSync('npm', ['run', 'build'], { stdio: 'inherit', cwd: new URL('..', import.meta.url) });
process.exit(build.status ?? 1);
