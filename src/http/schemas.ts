// Wire shapes shared by several routes: the error body and the security requirements. The TypeBox
// primitives (Timestamp, Nullable, paging) live in src/lib/schema.ts; re-exported here for routes.
import { Type } from "@sinclair/typebox";

export { Nullable, Page, PageQuery, Timestamp } from "../lib/schema.js";

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

type Security = { [scheme: string]: string[] }[];
/** Data endpoints: X-API-Key or an identity JWT. */
export const DATA_SECURITY: Security = [{ apiKey: [] }, { bearer: [] }];
/** Identity-only endpoints (key management) and admin endpoints: a bearer token. */
export const BEARER_SECURITY: Security = [{ bearer: [] }];
export const NO_SECURITY: Security = [];
