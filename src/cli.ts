#!/usr/bin/env node
/** Entry point of the `greenline` command. Errors print one line saying what to do, and exit non-zero. */
import { ConfigError } from './config/config.js';
import { buildProgram } from './cli/program.js';
import { EXIT_USAGE, UsageError } from './cli/usage-error.js';

try {
  await buildProgram().parseAsync(process.argv);
} catch (err) {
  const usage = err instanceof UsageError || err instanceof ConfigError;
  process.stderr.write(`error: ${err instanceof Error ? err.message : String(err)}\n`);
  process.exitCode = usage ? EXIT_USAGE : 1;
}
