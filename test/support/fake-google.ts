// A local stand-in for Google's OAuth token endpoint and the Sheets v4 API, on 127.0.0.1 (port 0),
// for the official clients pointed at it (GOOGLE_OAUTH_TOKEN_URL, GOOGLE_SHEETS_API_URL).
// The token endpoint takes the JWT-bearer grant as Google does (form body, RS256 assertion whose
// signature is checked against the service account's public key, `aud` must be this endpoint,
// iat/exp within an hour) and hands out bearer tokens. The Sheets API serves spreadsheets.get,
// values.get and values.batchUpdate with Google's request and response shapes (trailing empty
// cells and rows omitted, A1 ranges with quoted sheet names, `{error:{code,message,status}}`
// bodies), per-user read and write quotas (Google: 60 of each per minute per user), 403
// for a sheet not shared with the account, 404 for a deleted spreadsheet, 401 for a revoked token,
// and scripted 5xx. Every cell written is recorded so tests can prove nothing else was touched.
import { type createPublicKey, generateKeyPairSync, randomBytes, verify } from "node:crypto";
import type { IncomingMessage, ServerResponse } from "node:http";
import {
  closeServer,
  type JsonReply,
  listen,
  type RecordedCall,
  readBody,
  type ScriptedFailure,
  send,
  takeFailure,
  WindowCounter,
} from "./fake-api-server.js";

interface ServiceAccountKey {
  type: "service_account";
  project_id: string;
  private_key_id: string;
  private_key: string;
  client_email: string;
  client_id: string;
  auth_uri: string;
  token_uri: string;
}

interface FakeSheet {
  sheetId: number;
  title: string;
  /** Rows of cells as the user sees them; "" is an empty cell. */
  rows: string[][];
}

interface FakeSpreadsheet {
  spreadsheetId: string;
  title: string;
  sheets: FakeSheet[];
  /** Service-account emails the spreadsheet is shared with. */
  sharedWith: Set<string>;
}

interface CellWrite {
  spreadsheetId: string;
  sheet: string;
  /** 0-based row and column. */
  row: number;
  column: number;
  value: string;
  /** The row's cells just before the batch that wrote this cell (tests find whose row it was). */
  rowBefore: string[];
  /** Which values.batchUpdate wrote it (index into batchUpdates). */
  batch: number;
}

export interface FakeGoogle {
  url: string;
  tokenUrl: string;
  sheetsUrl: string;
  spreadsheets: Map<string, FakeSpreadsheet>;
  calls: RecordedCall[];
  writes: CellWrite[];
  /** values.batchUpdate bodies as received. */
  batchUpdates: { spreadsheetId: string; body: Record<string, unknown> }[];
  failures: ScriptedFailure[];
  /** Read requests per user per window (Google: 60 a minute). */
  quota: WindowCounter;
  /** Write requests per user per window (Google: 60 a minute, counted apart from reads). */
  writeQuota: WindowCounter;
  /** Awaited after a Sheets call took effect and before its answer is sent (tests kill the
   *  caller there: the change is made, the caller never hears of it). */
  beforeReply?: (method: string, path: string) => Promise<void> | void;
  /** Called after each values.get is answered (tests reorder rows between read and write). */
  afterValuesGet?: (spreadsheetId: string, range: string) => void;
  newServiceAccount(email?: string): ServiceAccountKey;
  /** Deletes the account's key and revokes its tokens: grants and API calls are refused. */
  revoke(clientEmail: string): void;
  addSpreadsheet(sheet: {
    spreadsheetId?: string;
    title?: string;
    sheets: Record<string, string[][]>;
  }): FakeSpreadsheet;
  sheet(spreadsheetId: string, title: string): FakeSheet;
  close(): Promise<void>;
}

const GRANT_TYPE = "urn:ietf:params:oauth:grant-type:jwt-bearer";
const SHEETS_SCOPES = [
  "https://www.googleapis.com/auth/spreadsheets",
  "https://www.googleapis.com/auth/drive",
  "https://www.googleapis.com/auth/drive.file",
];

const googleError = (code: number, status: string, message: string): JsonReply => ({
  status: code,
  body: { error: { code, message, status } },
});

export async function startFakeGoogle(
  options: { now?: () => number; perUserPerWindow?: number; windowMs?: number } = {},
): Promise<FakeGoogle> {
  const now = options.now ?? Date.now;
  const publicKeys = new Map<string, ReturnType<typeof createPublicKey>>();
  const tokens = new Map<string, string>();
  let counter = 0;

  const fake: FakeGoogle = {
    url: "",
    tokenUrl: "",
    sheetsUrl: "",
    spreadsheets: new Map(),
    calls: [],
    writes: [],
    batchUpdates: [],
    failures: [],
    quota: new WindowCounter(options.perUserPerWindow ?? 60, options.windowMs ?? 60_000),
    writeQuota: new WindowCounter(options.perUserPerWindow ?? 60, options.windowMs ?? 60_000),
    newServiceAccount(email) {
      const { privateKey, publicKey } = generateKeyPairSync("rsa", { modulusLength: 2048 });
      const n = ++counter;
      const clientEmail = email ?? `sync-${n}@leadcheck-test.iam.gserviceaccount.com`;
      publicKeys.set(clientEmail, publicKey);
      return {
        type: "service_account",
        project_id: "leadcheck-test",
        private_key_id: randomBytes(20).toString("hex"),
        private_key: privateKey.export({ type: "pkcs8", format: "pem" }).toString(),
        client_email: clientEmail,
        client_id: String(100000000000000000000n + BigInt(n)),
        auth_uri: "https://accounts.google.com/o/oauth2/auth",
        token_uri: "https://oauth2.googleapis.com/token",
      };
    },
    revoke(clientEmail) {
      publicKeys.delete(clientEmail);
      for (const [token, email] of tokens) if (email === clientEmail) tokens.delete(token);
    },
    addSpreadsheet(input) {
      const spreadsheetId = input.spreadsheetId ?? `1${randomBytes(21).toString("base64url")}`;
      const spreadsheet: FakeSpreadsheet = {
        spreadsheetId,
        title: input.title ?? "Leads",
        sheets: Object.entries(input.sheets).map(([title, rows], index) => ({
          sheetId: index === 0 ? 0 : 1000 + index,
          title,
          rows: rows.map((row) => [...row]),
        })),
        sharedWith: new Set(),
      };
      fake.spreadsheets.set(spreadsheetId, spreadsheet);
      return spreadsheet;
    },
    sheet(spreadsheetId, title) {
      const found = fake.spreadsheets.get(spreadsheetId)?.sheets.find((s) => s.title === title);
      if (!found) throw new Error(`no fake sheet ${spreadsheetId}!${title}`);
      return found;
    },
    close: async () => closeServer(server),
  };

  function tokenGrant(body: string): JsonReply {
    const form = new URLSearchParams(body);
    const grantType = form.get("grant_type");
    if (grantType !== GRANT_TYPE) {
      return {
        status: 400,
        body: {
          error: "unsupported_grant_type",
          error_description: `Invalid grant_type: ${grantType ?? ""}`,
        },
      };
    }
    const invalid = (description: string): JsonReply => ({
      status: 400,
      body: { error: "invalid_grant", error_description: description },
    });
    const parts = (form.get("assertion") ?? "").split(".");
    if (parts.length !== 3) return invalid("Invalid JWT: malformed assertion");
    let header: { alg?: string };
    let claims: { iss?: string; aud?: string; scope?: string; iat?: number; exp?: number };
    try {
      header = JSON.parse(Buffer.from(parts[0]!, "base64url").toString("utf8"));
      claims = JSON.parse(Buffer.from(parts[1]!, "base64url").toString("utf8"));
    } catch {
      return invalid("Invalid JWT: malformed assertion");
    }
    const key = claims.iss ? publicKeys.get(claims.iss) : undefined;
    if (!key) return invalid("Invalid grant: account not found");
    const signed = Buffer.from(`${parts[0]}.${parts[1]}`);
    if (header.alg !== "RS256" || !verify("RSA-SHA256", signed, key, Buffer.from(parts[2]!, "base64url"))) {
      return invalid("Invalid JWT Signature.");
    }
    if (claims.aud !== fake.tokenUrl) return invalid(`Invalid JWT: audience must be ${fake.tokenUrl}`);
    const nowSeconds = Math.floor(now() / 1000);
    const { iat, exp } = claims;
    if (
      typeof iat !== "number" ||
      typeof exp !== "number" ||
      exp - iat > 3600 ||
      Math.abs(iat - nowSeconds) > 300 ||
      exp < nowSeconds
    ) {
      return invalid(
        "Invalid JWT: Token must be a short-lived token (60 minutes) and in a reasonable timeframe. Check your iat and exp values in the JWT claim.",
      );
    }
    const scopes = (claims.scope ?? "").split(" ");
    if (!scopes.some((s) => SHEETS_SCOPES.includes(s))) {
      return { status: 400, body: { error: "invalid_scope", error_description: "Invalid OAuth scope." } };
    }
    const accessToken = `ya29.fake-${randomBytes(24).toString("base64url")}`;
    tokens.set(accessToken, claims.iss!);
    return { status: 200, body: { access_token: accessToken, expires_in: 3599, token_type: "Bearer" } };
  }

  function sheetsCall(req: IncomingMessage, user: string, path: string, body: string): JsonReply {
    const match = /^\/v4\/spreadsheets\/([^/:]+)(\/values\/([^?]+)|\/values:batchUpdate)?$/.exec(path);
    if (!match) return googleError(404, "NOT_FOUND", "Method not found.");
    const spreadsheet = fake.spreadsheets.get(decodeURIComponent(match[1]!));
    if (!spreadsheet) return googleError(404, "NOT_FOUND", "Requested entity was not found.");
    if (!spreadsheet.sharedWith.has(user))
      return googleError(403, "PERMISSION_DENIED", "The caller does not have permission");
    if (req.method === "GET" && !match[2]) return { status: 200, body: spreadsheetResource(spreadsheet) };
    if (req.method === "GET" && match[3]) {
      const range = decodeURIComponent(match[3]);
      const reply = valuesGet(spreadsheet, range);
      if (reply.status === 200) queueMicrotask(() => fake.afterValuesGet?.(spreadsheet.spreadsheetId, range));
      return reply;
    }
    if (req.method === "POST" && match[2] === "/values:batchUpdate") {
      let parsed: Record<string, unknown>;
      try {
        parsed = JSON.parse(body) as Record<string, unknown>;
      } catch {
        return googleError(400, "INVALID_ARGUMENT", "Invalid JSON payload received.");
      }
      fake.batchUpdates.push({ spreadsheetId: spreadsheet.spreadsheetId, body: parsed });
      return valuesBatchUpdate(spreadsheet, parsed);
    }
    return googleError(404, "NOT_FOUND", "Method not found.");
  }

  function valuesBatchUpdate(spreadsheet: FakeSpreadsheet, body: Record<string, unknown>): JsonReply {
    const option = body.valueInputOption;
    if (option !== "RAW" && option !== "USER_ENTERED")
      return googleError(400, "INVALID_ARGUMENT", "'valueInputOption' is required but not specified");
    const data = Array.isArray(body.data) ? (body.data as { range?: string; values?: unknown[][] }[]) : [];
    // Check every range first: Google applies a batch all or nothing.
    const targets = [];
    for (const entry of data) {
      const parsed = parseA1(entry.range ?? "");
      const sheet = parsed && spreadsheet.sheets.find((s) => s.title === parsed.sheet);
      if (!parsed || !sheet)
        return googleError(400, "INVALID_ARGUMENT", `Unable to parse range: ${entry.range}`);
      targets.push({ parsed, sheet, values: entry.values ?? [] });
    }
    const responses = [];
    let cells = 0;
    const batch = fake.batchUpdates.length - 1;
    const before = new Map<string[], string[]>();
    for (const { parsed, sheet, values } of targets) {
      const top = parsed.startRow ?? 0;
      const left = parsed.startColumn ?? 0;
      let width = 0;
      values.forEach((rowValues, r) => {
        rowValues.forEach((value, c) => {
          if (value === null || value === undefined) return; // null leaves a cell as it is
          const rowIndex = top + r;
          while (sheet.rows.length <= rowIndex) sheet.rows.push([]);
          const row = sheet.rows[rowIndex]!;
          if (!before.has(row)) before.set(row, [...row]);
          while (row.length <= left + c) row.push("");
          row[left + c] = String(value);
          fake.writes.push({
            spreadsheetId: spreadsheet.spreadsheetId,
            sheet: sheet.title,
            row: rowIndex,
            column: left + c,
            value: String(value),
            rowBefore: before.get(row)!,
            batch,
          });
          cells++;
        });
        width = Math.max(width, rowValues.length);
      });
      responses.push({
        spreadsheetId: spreadsheet.spreadsheetId,
        updatedRange: `${quoteSheet(sheet.title)}!${a1Cell(top, left)}:${a1Cell(top + values.length - 1, left + width - 1)}`,
        updatedRows: values.length,
        updatedColumns: width,
        updatedCells: values.reduce((n, row) => n + row.length, 0),
      });
    }
    return {
      status: 200,
      body: {
        spreadsheetId: spreadsheet.spreadsheetId,
        totalUpdatedRows: responses.reduce((n, r) => n + r.updatedRows, 0),
        totalUpdatedColumns: Math.max(0, ...responses.map((r) => r.updatedColumns)),
        totalUpdatedCells: cells,
        totalUpdatedSheets: new Set(targets.map((t) => t.sheet.title)).size,
        responses,
      },
    };
  }

  const { server, url } = await listen(async (req, res: ServerResponse) => {
    const body = await readBody(req);
    const path = (req.url ?? "/").split("?")[0]!;
    const record = (status: number, caller: string | null) =>
      fake.calls.push({ method: req.method ?? "GET", url: req.url ?? "/", status, caller, at: now() });
    if (path === "/token" && req.method === "POST") {
      const reply = tokenGrant(body);
      record(reply.status, null);
      send(res, reply);
      return;
    }
    const auth = /^Bearer (.+)$/.exec(req.headers.authorization ?? "");
    const user = auth ? tokens.get(auth[1]!) : undefined;
    if (!user) {
      const reply = googleError(
        401,
        "UNAUTHENTICATED",
        "Request had invalid authentication credentials. Expected OAuth 2 access token, login cookie or other valid authentication credential.",
      );
      record(reply.status, null);
      send(res, reply);
      return;
    }
    const scripted = takeFailure(fake.failures, `${req.method} ${path}`);
    if (scripted !== null) {
      record(scripted, user);
      send(
        res,
        scripted === 429
          ? googleError(
              429,
              "RESOURCE_EXHAUSTED",
              "Quota exceeded for quota metric 'Write requests' and limit 'Write requests per minute per user' of service 'sheets.googleapis.com'.",
            )
          : googleError(
              scripted,
              scripted >= 500 ? "UNAVAILABLE" : "UNKNOWN",
              "The service is currently unavailable.",
            ),
      );
      return;
    }
    const isWrite = req.method === "POST";
    const quota = (isWrite ? fake.writeQuota : fake.quota).take(user, now());
    if (!quota.allowed) {
      record(429, user);
      const metric = isWrite ? "Write requests" : "Read requests";
      send(
        res,
        googleError(
          429,
          "RESOURCE_EXHAUSTED",
          `Quota exceeded for quota metric '${metric}' and limit '${metric} per minute per user' of service 'sheets.googleapis.com' for consumer 'project_number:000000000000'.`,
        ),
      );
      return;
    }
    const reply = sheetsCall(req, user, path, body);
    record(reply.status, user);
    await fake.beforeReply?.(req.method ?? "GET", path);
    send(res, reply);
  });

  fake.url = url;
  fake.tokenUrl = `${url}/token`;
  fake.sheetsUrl = `${url}/`;
  return fake;
}

function spreadsheetResource(spreadsheet: FakeSpreadsheet) {
  return {
    spreadsheetId: spreadsheet.spreadsheetId,
    properties: { title: spreadsheet.title, locale: "en_US", timeZone: "Etc/GMT", autoRecalc: "ON_CHANGE" },
    sheets: spreadsheet.sheets.map((sheet, index) => ({
      properties: {
        sheetId: sheet.sheetId,
        title: sheet.title,
        index,
        sheetType: "GRID",
        gridProperties: {
          rowCount: Math.max(1000, sheet.rows.length),
          columnCount: Math.max(26, ...sheet.rows.map((r) => r.length)),
        },
      },
    })),
    spreadsheetUrl: `https://docs.google.com/spreadsheets/d/${spreadsheet.spreadsheetId}/edit`,
  };
}

function valuesGet(spreadsheet: FakeSpreadsheet, range: string): JsonReply {
  const parsed = parseA1(range);
  const sheet = parsed && spreadsheet.sheets.find((s) => s.title === parsed.sheet);
  if (!parsed || !sheet) return googleError(400, "INVALID_ARGUMENT", `Unable to parse range: ${range}`);
  const top = parsed.startRow ?? 0;
  const bottom = Math.min(parsed.endRow ?? Number.MAX_SAFE_INTEGER, Math.max(sheet.rows.length - 1, top));
  const left = parsed.startColumn ?? 0;
  const right = parsed.endColumn ?? 25;
  const values: string[][] = [];
  for (let r = top; r <= bottom && r < sheet.rows.length; r++) {
    const cells = (sheet.rows[r] ?? []).slice(left, right + 1);
    while (cells.length > 0 && cells.at(-1) === "") cells.pop();
    values.push(cells);
  }
  while (values.length > 0 && values.at(-1)!.length === 0) values.pop();
  const endRow = parsed.endRow ?? Math.max(top, Math.max(1000, sheet.rows.length) - 1);
  return {
    status: 200,
    body: {
      range: `${quoteSheet(sheet.title)}!${a1Cell(top, left)}:${a1Cell(endRow, right)}`,
      majorDimension: "ROWS",
      ...(values.length > 0 ? { values } : {}),
    },
  };
}

interface A1Range {
  sheet: string;
  startRow?: number;
  startColumn?: number;
  endRow?: number;
  endColumn?: number;
}

/** `'My sheet'!A2:F`, `Leads!1:1`, `Leads` -> 0-based bounds (absent: unbounded). */
function parseA1(range: string): A1Range | null {
  const bang = range.lastIndexOf("!");
  const rawSheet = bang < 0 ? range : range.slice(0, bang);
  const cells = bang < 0 ? "" : range.slice(bang + 1);
  const sheet = /^'(.*)'$/.test(rawSheet) ? rawSheet.slice(1, -1).replaceAll("''", "'") : rawSheet;
  if (!sheet) return null;
  if (!cells) return { sheet };
  const m = /^([A-Z]*)(\d*)(?::([A-Z]*)(\d*))?$/.exec(cells);
  if (!m) return null;
  const col = (letters: string) =>
    letters ? [...letters].reduce((n, ch) => n * 26 + ch.charCodeAt(0) - 64, 0) - 1 : undefined;
  const row = (digits: string) => (digits ? Number(digits) - 1 : undefined);
  const single = m[3] === undefined && m[4] === undefined;
  return {
    sheet,
    startColumn: col(m[1]!),
    startRow: row(m[2]!),
    endColumn: single ? col(m[1]!) : col(m[3] ?? ""),
    endRow: single ? row(m[2]!) : row(m[4] ?? ""),
  };
}

function quoteSheet(title: string): string {
  return /^[A-Za-z0-9_]+$/.test(title) ? title : `'${title.replaceAll("'", "''")}'`;
}

function a1Cell(row: number, column: number): string {
  let letters = "";
  for (let n = column + 1; n > 0; n = Math.floor((n - 1) / 26))
    letters = String.fromCharCode(65 + ((n - 1) % 26)) + letters;
  return `${letters}${row + 1}`;
}
