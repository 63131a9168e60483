import type { FastifyTypeProvider } from 'fastify';
import type { Static, TSchema } from '@sinclair/typebox';

/**
 * Types request bodies and replies from the TypeBox schemas of each route, so the schema that Ajv
 * validates, the type the handler sees and the OpenAPI document all come from one definition.
 */
export interface TypeBoxTypeProvider extends FastifyTypeProvider {
  validator: this['schema'] extends TSchema ? Static<this['schema']> : unknown;
  serializer: this['schema'] extends TSchema ? Static<this['schema']> : unknown;
}
