// TypeBox primitives shared by domain schemas and routes (timestamps, nullables, paging). Neutral:
// domain modules import these from here, never from src/http/.
import { type TArray, type TProperties, type TSchema, Type } from "@sinclair/typebox";

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

/** The paging facts every paged list answers next to its items (spec: `hasMore`, `nextOffset`). */
const PageFacts = {
  total: Type.Integer(),
  limit: Type.Integer(),
  offset: Type.Integer(),
  hasMore: Type.Boolean(),
  nextOffset: Nullable(Type.Integer()),
};

/**
 * The one paging envelope: `{ ...head, [key]: Item[], total, limit, offset, hasMore, nextOffset }`.
 * `head` holds fields that describe the paged parent (a batch's id and status), listed first.
 */
export function Page<K extends string, T extends TSchema, H extends TProperties = Record<never, never>>(
  key: K,
  item: T,
  head: H = {} as H,
) {
  const items = { [key]: Type.Array(item) } as { [P in K]: TArray<T> };
  return Type.Object({ ...head, ...items, ...PageFacts });
}

export interface PageWindow {
  limit: number;
  offset: number;
}

export type PageOf<K extends string, T> = { [P in K]: T[] } & {
  total: number;
  limit: number;
  offset: number;
  hasMore: boolean;
  nextOffset: number | null;
};

/** One page of `total` items from `window.offset`; the next page starts right after `items`. */
export function pageOf<K extends string, T>(
  key: K,
  items: T[],
  total: number,
  window: PageWindow,
): PageOf<K, T> {
  const hasMore = window.offset + items.length < total;
  return {
    [key]: items,
    total,
    limit: window.limit,
    offset: window.offset,
    hasMore,
    nextOffset: hasMore ? window.offset + items.length : null,
  } as PageOf<K, T>;
}
