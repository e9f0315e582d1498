import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { Type } from "@sinclair/typebox";
import fastJson from "fast-json-stringify";
import { Lead } from "../leads/leads.schemas.js";
import { Nullable, Timestamp } from "../lib/schema.js";
import { flattenNullablePrimitives } from "./serializer.js";

describe("response serializer schemas", () => {
  it("writes a nullable primitive as one schema with a type list, keeping its keywords", () => {
    const schema = Type.Object({
      at: Nullable(Timestamp, "when"),
      n: Nullable(Type.Integer({ minimum: 0 })),
    });
    const flat = flattenNullablePrimitives(schema) as { properties: Record<string, unknown> };
    const json = (v: unknown) => JSON.parse(JSON.stringify(v));
    assert.deepEqual(json(flat.properties.at), {
      type: ["string", "null"],
      format: "date-time",
      description: "when",
    });
    assert.deepEqual(json(flat.properties.n), { type: ["integer", "null"], minimum: 0 });
  });

  it("leaves nullable objects, literals and unions, data keywords and the input as they are", () => {
    const literal = Nullable(Type.Literal("x"));
    const object = Nullable(Type.Object({ a: Type.String() }));
    const union = Nullable(Type.Union([Type.Literal("a"), Type.Literal("b")]));
    const schema = Type.Object({ literal, object, union, d: Type.String({ default: "anyOf" }) });
    const before = JSON.stringify(schema);
    const flat = flattenNullablePrimitives(schema) as { properties: Record<string, { anyOf?: unknown }> };
    for (const key of ["literal", "object", "union"]) assert.ok(flat.properties[key]?.anyOf, key);
    assert.equal(JSON.stringify(schema), before);
  });

  it("serializes a lead exactly as the declared schema does", () => {
    const declared = fastJson(Lead);
    const flat = fastJson(flattenNullablePrimitives(Lead) as never);
    const lead = sampleLead();
    assert.equal(flat(lead), declared(lead));
    const nulls = Object.fromEntries(Object.entries(lead).map(([k, v]) => [k, v === "x" ? null : v]));
    assert.equal(flat(nulls), declared(nulls));
  });
});

/** A value for every property of Lead: strings "x", numbers 1, booleans true, arrays empty. */
function sampleLead(): Record<string, unknown> {
  const value = (s: Record<string, unknown>): unknown => {
    const branch = (s.anyOf as Record<string, unknown>[] | undefined)?.find((b) => b.type !== "null") ?? s;
    switch (branch.type) {
      case "string":
        return branch.format === "date-time" ? "2026-11-25T00:00:00.000Z" : (branch.const ?? "x");
      case "integer":
      case "number":
        return 1;
      case "boolean":
        return true;
      case "array":
        return [];
      case "object":
        return s.anyOf ? null : {};
      default:
        return ((branch.anyOf as Record<string, unknown>[] | undefined)?.[0]?.const as string) ?? null;
    }
  };
  const props = (Lead as unknown as { properties: Record<string, Record<string, unknown>> }).properties;
  return Object.fromEntries(Object.entries(props).map(([k, s]) => [k, value(s)]));
}
