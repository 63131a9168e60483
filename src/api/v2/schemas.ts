/**
 * Request schemas of the v2 API (Trunk's names and bounds): every body object refuses keys it does
 * not list, and enums take only their lowerCamelCase spelling. Answers are described by name
 * (Trunk's v2 schema of the same name) in the OpenAPI document.
 */
import { Type, type TProperties } from '@sinclair/typebox';

export const Body = <T extends TProperties>(properties: T, description?: string) =>
  Type.Object(properties, { additionalProperties: false, ...(description ? { description } : {}) });

export const Query = Body;

export const IdParams = Type.Object({ id: Type.String({ minLength: 1 }) });
export const UuidParams = Type.Object({ id: Type.String({ format: 'uuid' }) });

export const Mode = Type.Union([Type.Literal('queue'), Type.Literal('graph')]);
export const PrNumber = Type.Integer({ minimum: 1, maximum: 10_000_000 });
export const PriorityValue = Type.Integer({ minimum: 0, maximum: 32767 });
export const PriorityName = Type.Union(
  [Type.Literal('urgent'), Type.Literal('high'), Type.Literal('medium'), Type.Literal('low')],
  { description: 'urgent (0), high (10), medium (100) or low (200)' },
);
export const DateTime = Type.String({ format: 'date-time' });

/** An answer described by the name of Trunk's v2 schema it follows. */
export const Answer = (name: string, description: string) =>
  Type.Unsafe<unknown>({ description: `${description} (schema ${name})` });

/** An empty answer (202, 204). */
export const NoContent = (description: string) => Type.Unsafe<undefined>({ description });
