// Response serialization: fast-json-stringify (Fastify's own compiler), given each response schema
// with its nullable primitives written as one schema. A TypeBox `Nullable(Type.String())` is
// `anyOf: [{ type: "string" }, { type: "null" }]`, and fast-json-stringify picks an anyOf branch
// by running a validator per branch for every value it writes: a list of 100 leads made thousands
// of validator calls. `{ type: ["string", "null"] }` means the same and is written directly.
// Validation and the OpenAPI document keep the schemas as declared.
import { SerializerSelector } from "@fastify/fast-json-stringify-compiler";

const PRIMITIVES = new Set(["string", "integer", "number", "boolean"]);
/** Keywords that make a branch more than a plain primitive (null would not satisfy them). */
const NOT_PLAIN = ["anyOf", "oneOf", "allOf", "$ref", "const", "enum", "not"];

type Json = Record<string | symbol, unknown>;
const isObject = (v: unknown): v is Json => typeof v === "object" && v !== null && !Array.isArray(v);

/** `[primitive, null]` as one primitive schema with a type list, else undefined. */
function asNullablePrimitive(node: Json): Json | undefined {
  const branches = node.anyOf;
  if (!Array.isArray(branches) || branches.length !== 2) return undefined;
  const nullAt = branches.findIndex((b) => isObject(b) && b.type === "null");
  const other = branches[1 - nullAt];
  if (nullAt < 0 || !isObject(other)) return undefined;
  if (typeof other.type !== "string" || !PRIMITIVES.has(other.type)) return undefined;
  if (NOT_PLAIN.some((k) => k in other)) return undefined;
  const { anyOf: _branches, ...siblings } = node;
  return { ...other, ...siblings, type: [other.type, "null"] };
}

/** Keywords whose value maps names to schemas. */
const SCHEMA_MAPS = new Set(["properties", "patternProperties", "$defs", "definitions"]);
/** Keywords whose value is data, not a schema. */
const DATA = new Set(["default", "examples", "const", "enum"]);

/** A copy of `schema` with every nullable primitive flattened; the input is not changed. */
export function flattenNullablePrimitives(schema: unknown): unknown {
  if (Array.isArray(schema)) return schema.map(flattenNullablePrimitives);
  if (!isObject(schema)) return schema;
  const flat = asNullablePrimitive(schema);
  if (flat) return flat;
  const out: Json = {};
  for (const key of Reflect.ownKeys(schema)) {
    const value = schema[key];
    if (typeof key === "string" && DATA.has(key)) out[key] = value;
    else if (typeof key === "string" && SCHEMA_MAPS.has(key) && isObject(value))
      out[key] = Object.fromEntries(Object.entries(value).map(([k, v]) => [k, flattenNullablePrimitives(v)]));
    else out[key] = flattenNullablePrimitives(value);
  }
  return out;
}

type SerializerFactory = ReturnType<typeof SerializerSelector>;

/** Fastify's `buildSerializer`: its default compiler, on the flattened response schema. */
export function nullableAwareSerializer(): SerializerFactory {
  const factory = SerializerSelector();
  return (externalSchemas, serializerOpts) => {
    const build = factory(externalSchemas, serializerOpts);
    return (route) => build({ ...route, schema: flattenNullablePrimitives(route.schema) as never });
  };
}
