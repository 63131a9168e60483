/**
 * How a server setting is described: its TypeBox schema annotated with its default, environment
 * variable, flag and meaning. The core settings (config/schema.ts) and each forge's own (its
 * definition, forge/<name>/definition.ts) are written with these; config/ builds the type, the
 * defaults, the environment names, the flags, the validation and docs/configuration.md from them.
 */
import { Type, type TLiteral, type TSchema, type TUnion } from '@sinclair/typebox';

/** Where a setting comes from besides greenline.yaml, and how it is explained. */
export interface SettingAnnotations {
  default: unknown;
  /** Its environment variable. */
  env: string;
  /** Its command-line flag with its argument (`--port <port>`); absent = no flag. */
  flag?: string;
  /** What it means: the flag's help text, and its meaning in docs/configuration.md. */
  description: string;
  /** The default as docs/configuration.md states it, when that is not the `default` value itself. */
  defaultText?: string;
  /** What a string must look like, for the error message when its pattern does not match. */
  mustBe?: string;
  /** A credential: error messages never show its value (redact.ts). */
  secret?: true;
  /** A file path: resolved once against the directory the command runs in (config.ts). */
  path?: true;
  /** An http(s) URL whose trailing slashes are dropped (`https://x/api/` → `https://x/api`). */
  trimSlashes?: true;
  /** What its row in docs/configuration.md has no room for ("More about some settings"). */
  more?: string;
}

export type Setting = TSchema & SettingAnnotations;

export const setting = <T extends TSchema>(schema: T, annotations: SettingAnnotations): T & SettingAnnotations =>
  Object.assign(schema, annotations);
export const nullable = <T extends TSchema>(schema: T) => Type.Union([schema, Type.Null()]);
export const oneOf = <const T extends readonly string[]>(values: T): TUnion<TLiteral<T[number]>[]> =>
  Type.Union(values.map((v) => Type.Literal(v)));
