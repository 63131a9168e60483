/**
 * Ajv's validators kept between test files. Each test file runs in a process of its own and would
 * compile the same schemas of a description again, and compiling is what a fake's checks cost most
 * (GitHub's pull request schema: about 0.8 s; a test file of the fake of GitHub compiles 20 to 50).
 * A compiled validator is stored as Ajv's standalone code, under a hash of all that decides it (the
 * description, the schema, Ajv's version and options), in `<tmpdir>/greenline-validators/`; loading
 * that code costs a twentieth of compiling it. Written atomically (a temporary file renamed), so
 * test files running at once may share the directory; a file that does not load is compiled again.
 */
import { createHash } from 'node:crypto';
import { mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { Ajv, ValidateFunction } from 'ajv';
import standaloneModule from 'ajv/dist/standalone/index.js';

// ajv's standalone module is CommonJS: its default export arrives as the module object under NodeNext.
const standaloneCode = ((standaloneModule as unknown as { default?: unknown }).default ??
  standaloneModule) as unknown as (ajv: Ajv, validate: ValidateFunction) => string;

const require = createRequire(import.meta.url);
const AJV_VERSION = (require('ajv/package.json') as { version: string }).version;
const DIR = path.join(tmpdir(), 'greenline-validators');

/** Ajv's `compile` of `schema`, or the same validator as compiled before for the same `context`. */
export function cachedCompile(ajv: Ajv, schema: object, context: string): ValidateFunction {
  const { allErrors, verbose, coerceTypes, strict } = ajv.opts;
  const key = createHash('sha256')
    .update(JSON.stringify([AJV_VERSION, allErrors, verbose, coerceTypes, strict, context, schema]))
    .digest('hex');
  const file = path.join(DIR, `${key}.cjs`);
  try {
    return load(readFileSync(file, 'utf8'));
  } catch {
    // Not compiled yet (or unreadable): compiled and stored below.
  }
  const validate = ajv.compile(schema);
  const code = standaloneCode(ajv, validate);
  mkdirSync(DIR, { recursive: true });
  const partial = `${file}.${process.pid}.partial`;
  writeFileSync(partial, code);
  renameSync(partial, file);
  return validate;
}

/** A validator from Ajv's standalone (CommonJS) code; its `require`s resolve from this package. */
function load(code: string): ValidateFunction {
  const module = { exports: {} as unknown };
  new Function('require', 'module', 'exports', code)(require, module, module.exports);
  return module.exports as ValidateFunction;
}
