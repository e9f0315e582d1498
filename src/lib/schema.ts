// TypeBox primitives shared by domain schemas and routes (timestamps, nullables, paging). Neutral:
// domain modules import these from here, never from src/http/.
import { type TSchema, Type } from "@sinclair/typebox";

export const Timestamp = Type.String({ format: "date-time", description: "ISO 8601 UTC" });

export const Nullable = <T extends TSchema>(schema: T, description?: string) =>
  Type.Union([schema, Type.Null()], description === undefined ? {} : { description });

/**
 * A query field clients may leave out because it has a default. The validator (Ajv `useDefaults`)
 * fills the default in before the handler runs, so the handler's type keeps the field present while
 * the schema, and so the OpenAPI document, leaves it out of `required`.
 */
export function Defaulted<T extends TSchema>(schema: T): T {
  if (schema.default === undefined) throw new Error("Defaulted() needs a schema with a default");
  return Type.Optional(schema) as unknown as T;
}

export const PageLimit = Defaulted(Type.Integer({ minimum: 1, maximum: 100, default: 50 }));
export const PageOffset = Defaulted(Type.Integer({ minimum: 0, default: 0 }));

export const PageQuery = Type.Object({ limit: PageLimit, offset: PageOffset });
