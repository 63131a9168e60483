/**
 * Schemas shared by every endpoint: the queue address, PR numbers, enums matched in any letter case,
 * nullable values and the error body. Field names are the wire contract (contract §1, §2).
 */
import {
  Type,
  type ObjectOptions,
  type SchemaOptions,
  type Static,
  type TProperties,
  type TSchema,
} from '@sinclair/typebox';
import { PrState, QueueState } from '../../../engine/types.js';

/**
 * An object of a request body, at any depth, or a query string: a field it does not list is refused with 400
 * VALIDATION_FAILED naming the field and the ones it has (validation-message.ts), so that a typo such
 * as `concurency` is an error instead of a change that silently does nothing.
 */
export const RequestObject = <T extends TProperties>(properties: T, options: ObjectOptions = {}) =>
  Type.Object(properties, { additionalProperties: false, ...options });

/** A string equal to one of `values` in any letter case (see ajv-keywords.ts). */
export const AnyCaseEnum = <T extends string>(values: readonly T[], options: SchemaOptions = {}) =>
  Type.Unsafe<string>({ type: 'string', 'x-enum-any-case': values, ...options });

/** `schema` or null, as an OpenAPI 3.1 type list (only for schemas with a single `type`). */
export const Nullable = <T extends TSchema>(schema: T) =>
  Type.Unsafe<Static<T> | null>({ ...schema, type: [schema.type as string, 'null'] });

export const DateTime = (description: string) => Type.String({ format: 'date-time', description });

const CONTROL = '\\u0000-\\u001f\\u007f';

/**
 * A name sent by a client (repository, branch, check, test run id, label): non-empty and free of
 * control characters. Git refs and forge names cannot hold them, and PostgreSQL text cannot hold NUL.
 */
export const Name = (options: SchemaOptions = {}) =>
  Type.String({
    minLength: 1,
    pattern: `^[^${CONTROL}]+$`,
    'x-expected': 'a non-empty name without control characters',
    ...options,
  });

/** Free text sent by a client (a status description): anything but NUL. */
export const Text = (options: SchemaOptions = {}) =>
  Type.String({
    pattern: '^[^\\u0000]*$',
    'x-expected': 'text without NUL characters',
    ...options,
  });

/** An impacted target: like a name, but empty strings are accepted (and dropped, contract §2.6). */
export const Target = Type.String({
  pattern: `^[^${CONTROL}]*$`,
  'x-expected': 'a target name without control characters',
});

export const Repo = RequestObject(
  {
    host: Name({ description: 'Host of the repository', examples: ['github.com'] }),
    owner: Name({ description: 'Owner (user or organization) of the repository' }),
    name: Name({ description: 'Name of the repository' }),
  },
  { description: 'The repository' },
);

/** `repo` + `targetBranch`: the address of one queue (contract §1 "Addressing"). */
export const QueueAddress = {
  repo: Repo,
  targetBranch: Name({ description: 'The branch the merge queue targets', examples: ['main'] }),
};

/** Trunk's merge-action sends `pr.number` as a JSON string (contract §2.6, §3 #9): accept both. */
export const PrNumber = Type.Union(
  [Type.Integer({ minimum: 1, maximum: 4294967295 }), Type.String({ pattern: '^[0-9]{1,10}$' })],
  {
    description: 'Pull request number, as a JSON integer or a decimal string',
    'x-expected': 'a positive integer or a decimal string such as "123"',
    examples: [123, '123'],
  },
);

export const CommitSha = (description: string) =>
  Type.String({
    pattern: '^([0-9a-fA-F]{40}|[0-9a-fA-F]{64})$',
    'x-expected': 'a full commit sha (40 or 64 hexadecimal digits)',
    description,
  });

export const PR_STATES = Object.values(PrState);
export const QUEUE_STATES = Object.values(QueueState);
export const SETTABLE_QUEUE_STATES = [QueueState.RUNNING, QueueState.PAUSED, QueueState.DRAINING] as const;

const CASE_NOTE =
  'UPPERCASE by default; lowercase when the server runs with GREENLINE_ENUM_CASE=lower, and always ' +
  'to Terraform and OpenTofu (User-Agent or X-Source containing terraform or opentofu)';
export const PrStateOut = Type.String({ description: `PR state, one of ${PR_STATES.join(', ')}; ${CASE_NOTE}` });
export const QueueStateOut = Type.String({
  description: `Queue state, one of ${QUEUE_STATES.join(', ')}; ${CASE_NOTE}`,
});

export const Empty = Type.Object({}, { description: 'An empty JSON object' });

export const ErrorBody = Type.Object(
  {
    error: Type.Object({
      code: Type.String({ description: 'Error code from the catalogue in docs/errors.md' }),
      message: Type.String({ description: 'What went wrong and how to fix it' }),
    }),
  },
  { description: 'Every error: 4xx for a request the service refuses, 5xx only for its own faults' },
);

/** Response schemas of a JSON endpoint: its success body, and the error body for everything else. */
export const replies = <T extends TSchema>(ok: T) => ({ 200: ok, default: ErrorBody });
