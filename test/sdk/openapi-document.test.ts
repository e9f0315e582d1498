// What client generators read from the OpenAPI document besides the shapes: operation names,
// which query parameters a caller may leave out, and the media type of every answer.
import assert from "node:assert/strict";
import { before, describe, it } from "node:test";
import { buildOpenApiDocument } from "../../sdk/tools/generate-types.js";

interface Parameter {
  in: string;
  name: string;
  required?: boolean;
  schema?: { default?: unknown };
}
interface Operation {
  operationId?: string;
  description?: string;
  tags?: string[];
  parameters?: Parameter[];
  responses: Record<string, { content?: Record<string, { schema?: { $ref?: string } }> }>;
}
interface Listed {
  label: string;
  op: Operation;
}

describe("OpenAPI document for SDK generators", () => {
  let operations: Listed[] = [];
  let doc: Record<string, unknown>;

  before(async () => {
    doc = await buildOpenApiDocument();
    const paths = doc.paths as Record<string, Record<string, Operation>>;
    operations = Object.entries(paths).flatMap(([path, ops]) =>
      Object.entries(ops).map(([method, op]) => ({ label: `${method.toUpperCase()} ${path}`, op })),
    );
    assert.ok(operations.length > 30, "the document lists the API's routes");
  });

  it("names every operation with a unique camelCase operationId", () => {
    const seen = new Map<string, string>();
    for (const { label, op } of operations) {
      assert.match(op.operationId ?? "", /^[a-z][a-zA-Z0-9]*$/, `${label} has a camelCase operationId`);
      const clash = seen.get(op.operationId!);
      assert.equal(clash, undefined, `${label} reuses the operationId of ${clash}`);
      seen.set(op.operationId!, label);
    }
  });

  it("leaves every query parameter with a server-side default optional", () => {
    const defaulted = operations.flatMap(({ label, op }) =>
      (op.parameters ?? [])
        .filter((p) => p.in === "query" && p.schema?.default !== undefined)
        .map((p) => ({ label: `${label} ?${p.name}`, required: p.required })),
    );
    assert.ok(defaulted.some((p) => p.label === "GET /v1/leads ?limit"));
    for (const p of defaulted) assert.notEqual(p.required, true, `${p.label} is optional`);
  });

  it("documents CSV exports as text/csv and their errors as the JSON error body", () => {
    const exports = operations.filter(({ op }) =>
      Object.values(op.responses).some((r) => r.content && "text/csv" in r.content),
    );
    assert.ok(exports.some((e) => e.label === "GET /v1/leads/export"));
    for (const { label, op } of exports) {
      const { 200: ok, ...rest } = op.responses;
      assert.deepEqual(Object.keys(ok?.content ?? {}), ["text/csv"], `${label} 200`);
      const errors = Object.entries(rest).filter(([status]) => Number(status) >= 400);
      assert.ok(errors.length >= 5, `${label} documents its errors`);
      for (const [status, response] of errors) {
        assert.deepEqual(Object.keys(response.content ?? {}), ["application/json"], `${label} ${status}`);
        assert.equal(
          response.content?.["application/json"]?.schema?.$ref,
          "#/components/schemas/ErrorResponse",
          `${label} ${status}`,
        );
      }
    }
  });

  it("answers errors in JSON on every operation", () => {
    for (const { label, op } of operations) {
      for (const [status, response] of Object.entries(op.responses)) {
        if (Number(status) < 400) continue;
        assert.deepEqual(Object.keys(response.content ?? {}), ["application/json"], `${label} ${status}`);
      }
    }
  });

  // What spectral:oas asks of an API portal's input (npm run lint:openapi runs the ruleset itself).
  it("describes every operation, defines every tag it uses, and names its server and a contact", () => {
    const defined = new Map((doc.tags as { name: string; description?: string }[]).map((t) => [t.name, t]));
    for (const { label, op } of operations) {
      assert.ok(op.description?.trim(), `${label} has a description`);
      for (const tag of op.tags ?? [])
        assert.ok(defined.get(tag)?.description, `${label}: tag ${tag} is defined`);
    }
    assert.deepEqual(doc.servers, [
      { url: "http://localhost:8080", description: "This server (PUBLIC_URL)" },
    ]);
    assert.ok((doc.info as { contact?: { name?: string } }).contact?.name);
  });
});
