// Renders docs/api.md, the API reference kept in the repository, from the OpenAPI document the
// routes generate (so it cannot drift: the SDK staleness test compares it too). Every field is
// listed with its type and description; credit fields state their unit there.

type Schema = {
  type?: string | string[];
  description?: string;
  properties?: Record<string, Schema>;
  required?: string[];
  items?: Schema;
  anyOf?: Schema[];
  enum?: unknown[];
  const?: unknown;
  format?: string;
  minimum?: number;
  maximum?: number;
  minLength?: number;
  maxLength?: number;
  default?: unknown;
  $ref?: string;
};

type Operation = {
  summary?: string;
  description?: string;
  tags?: string[];
  security?: Record<string, string[]>[];
  parameters?: { name: string; in: string; required?: boolean; schema?: Schema; description?: string }[];
  requestBody?: { content?: Record<string, { schema?: Schema }> };
  responses?: Record<string, { description?: string; content?: Record<string, { schema?: Schema }> }>;
};

const PREAMBLE = `# leadcheck API reference

Generated from the routes' schemas by \`npm run sdk:types\` (do not edit by hand); a running server
serves the same document at \`GET /openapi.json\` and an interactive version at \`/docs\`.

Authentication: data endpoints take \`X-API-Key: sk_...\` or \`Authorization: Bearer <identity JWT>\`;
key management takes only the identity JWT; \`/v1/admin/*\` takes \`Authorization: Bearer <ADMIN_TOKEN>\`.
Every error has the body \`error\`, \`error_code\`, \`message\`, \`details\` (see the end of this page).

## Credit units

The API keeps the specification's unit; the dashboard and the CLI show display credits.

| Unit | Where | 1 email or website check | New account | 1 currency unit buys |
|---|---|---|---|---|
| **stored credits** (number, up to 3 decimals) | API fields \`credits\`, \`amount\`, \`balanceAfter\`, \`usedThisMonth\`, \`lastPurchase.credits\`, \`creditsDeducted\`, \`creditsRemaining\`, 402 \`required\`/\`available\` | 0.001 | 2.0 | 1.0 |
| **display credits** (integer = stored x 1,000) | API fields named \`displayCredits…\`/\`displayAmount\`; the dashboard and CLI ("credits") | 1 | 2,000 | 1,000 |

Internally balances are integer milli-credits, which equal display credits.
`;

const ERRORS = `## Errors

| Status | \`error_code\` | Extra fields |
|---|---|---|
| 400 | \`BAD_REQUEST\`, \`INVALID_JSON\`, \`DUPLICATE_LEAD\` | |
| 401 | \`UNAUTHORIZED\`, \`INVALID_API_KEY\` | |
| 402 | \`PAYMENT_REQUIRED\` | \`required\`, \`available\` (stored credits), \`displayCreditsRequired\`, \`displayCreditsAvailable\` (display credits) |
| 403 | \`FORBIDDEN\` | |
| 404 | \`NOT_FOUND\` | |
| 409 | \`CONFLICT\` | |
| 413 | \`PAYLOAD_TOO_LARGE\` | |
| 415 | \`UNSUPPORTED_MEDIA_TYPE\` | |
| 422 | \`VALIDATION_ERROR\` | \`details.errors[]\` (\`field\`, \`message\`, \`type\`; imports name the \`line N\`), \`detail[]\` |
| 429 | \`RATE_LIMIT_EXCEEDED\`, \`CONCURRENT_BATCH_LIMIT\`, \`DAILY_LIMIT_EXCEEDED\` | \`retry_after\` (seconds) and a \`Retry-After\` header |
| 500 | \`INTERNAL_ERROR\` | |
| 503 | \`SERVICE_UNAVAILABLE\` | |
`;

function typeOf(schema: Schema | undefined): string {
  if (!schema) return "";
  if (schema.$ref) return schema.$ref.replace(/#$/, "");
  if (schema.anyOf) return schema.anyOf.map(typeOf).join(" \\| ");
  if (schema.const !== undefined) return JSON.stringify(schema.const);
  if (schema.enum) return schema.enum.map((v) => JSON.stringify(v)).join(" \\| ");
  if (schema.type === "array") return `${typeOf(schema.items)}[]`;
  const base = Array.isArray(schema.type) ? schema.type.join(" \\| ") : (schema.type ?? "any");
  return schema.format ? `${base} (${schema.format})` : base;
}

function limits(schema: Schema): string {
  const parts: string[] = [];
  if (schema.minLength !== undefined || schema.maxLength !== undefined)
    parts.push(`length ${schema.minLength ?? 0}-${schema.maxLength ?? "…"}`);
  if (schema.minimum !== undefined || schema.maximum !== undefined)
    parts.push(`range ${schema.minimum ?? "…"}-${schema.maximum ?? "…"}`);
  if (schema.default !== undefined) parts.push(`default ${JSON.stringify(schema.default)}`);
  return parts.join(", ");
}

const cell = (text: string) => text.replaceAll("|", "\\|").replaceAll("\n", " ");

/** Field rows, nested objects as dotted names (two levels deep), arrays of objects as `name[].field`. */
function fieldRows(schema: Schema | undefined, prefix = "", depth = 0): string[] {
  if (!schema?.properties) return [];
  const rows: string[] = [];
  for (const [name, field] of Object.entries(schema.properties)) {
    const path = `${prefix}${name}`;
    const required = schema.required?.includes(name) ? "yes" : "";
    const notes = [field.description ?? "", limits(field)].filter(Boolean).join("; ");
    rows.push(`| \`${path}\` | ${cell(typeOf(field))} | ${required} | ${cell(notes)} |`);
    if (depth >= 2) continue;
    const objectVariant = field.anyOf?.find((s) => s.properties) ?? field;
    if (objectVariant.properties) rows.push(...fieldRows(objectVariant, `${path}.`, depth + 1));
    else if (field.type === "array" && field.items?.properties)
      rows.push(...fieldRows(field.items, `${path}[].`, depth + 1));
  }
  return rows;
}

function table(rows: string[]): string {
  return ["| Field | Type | Required | Notes |", "|---|---|---|---|", ...rows].join("\n");
}

function authOf(op: Operation): string {
  if (!op.security || op.security.length === 0) return "none";
  const schemes = op.security.flatMap((s) => Object.keys(s));
  return schemes.map((s) => (s === "apiKey" ? "X-API-Key" : "Bearer token")).join(" or ");
}

export function renderApiDoc(document: Record<string, unknown>): string {
  const paths = document.paths as Record<string, Record<string, Operation>>;
  const byTag = new Map<string, string[]>();
  for (const [path, ops] of Object.entries(paths)) {
    for (const [method, op] of Object.entries(ops)) {
      const tag = op.tags?.[0] ?? "other";
      const out: string[] = [`### ${method.toUpperCase()} ${path}`, ""];
      if (op.summary) out.push(`${op.summary}.`.replace(/\.\.$/, "."), "");
      if (op.description) out.push(op.description, "");
      out.push(`Auth: ${authOf(op)}.`, "");
      const params = op.parameters ?? [];
      if (params.length > 0) {
        out.push("| Parameter | In | Type | Required | Notes |", "|---|---|---|---|---|");
        for (const p of params) {
          const notes = [p.description ?? p.schema?.description ?? "", p.schema ? limits(p.schema) : ""]
            .filter(Boolean)
            .join("; ");
          out.push(
            `| \`${p.name}\` | ${p.in} | ${cell(typeOf(p.schema))} | ${p.required ? "yes" : ""} | ${cell(notes)} |`,
          );
        }
        out.push("");
      }
      const body = op.requestBody?.content?.["application/json"]?.schema;
      const bodyRows = fieldRows(body);
      if (bodyRows.length > 0) out.push("Request body (JSON):", "", table(bodyRows), "");
      for (const [status, response] of Object.entries(op.responses ?? {})) {
        if (!status.startsWith("2")) continue;
        const schema = response.content?.["application/json"]?.schema;
        const rows = fieldRows(schema);
        if (rows.length > 0) out.push(`Response ${status}:`, "", table(rows), "");
        else if (response.content)
          out.push(`Response ${status}: ${Object.keys(response.content).join(", ")}.`, "");
      }
      byTag.set(tag, [...(byTag.get(tag) ?? []), out.join("\n")]);
    }
  }
  const tagDescriptions = new Map(
    ((document.tags ?? []) as { name: string; description?: string }[]).map((t) => [t.name, t.description]),
  );
  const sections = [...byTag.entries()].map(([tag, ops]) => {
    const about = tagDescriptions.get(tag);
    return `## ${tag}\n\n${about ? `${about}\n\n` : ""}${ops.join("\n")}`;
  });
  return `${[PREAMBLE, ...sections, ERRORS].join("\n")}`.replace(/\n{3,}/g, "\n\n");
}
