// Wire shapes shared by several routes.
import { type TSchema, Type } from "@sinclair/typebox";

export const ErrorResponse = Type.Object(
  {
    error: Type.String(),
    error_code: Type.String(),
    message: Type.String(),
    details: Type.Object({}, { additionalProperties: true }),
    detail: Type.Optional(
      Type.Array(
        Type.Object({
          loc: Type.Array(Type.Union([Type.String(), Type.Number()])),
          msg: Type.String(),
          type: Type.String(),
        }),
      ),
    ),
    required: Type.Optional(Type.Number()),
    available: Type.Optional(Type.Number()),
    displayCreditsRequired: Type.Optional(Type.Number()),
    displayCreditsAvailable: Type.Optional(Type.Number()),
    retry_after: Type.Optional(Type.Integer()),
  },
  { $id: "ErrorResponse", additionalProperties: true, description: "The one error body (decisions §7)" },
);

export const ErrorRef = Type.Ref("ErrorResponse");

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

type Security = { [scheme: string]: string[] }[];
/** Data endpoints: X-API-Key or an identity JWT. */
export const DATA_SECURITY: Security = [{ apiKey: [] }, { bearer: [] }];
/** Identity-only endpoints (key management) and admin endpoints: a bearer token. */
export const BEARER_SECURITY: Security = [{ bearer: [] }];
export const NO_SECURITY: Security = [];
