// Google Sheets through the official clients (@googleapis/sheets over google-auth-library). The
// service account's JWT is exchanged at the configured token URL, which is also its audience:
// google-auth-library fixes both to Google's own, so ConfiguredTokenJWT overrides the one method
// that fetches the token. A `token_uri` in the pasted key is never used (it comes from a user and
// would be an SSRF path). gaxios retries 429 and 5xx (values.batchUpdate too: it writes absolute
// values to fixed cells, so a repeat is harmless) with our jittered backoff, and two RateGates
// keep each client under Google's per-user quotas, which count read and write requests apart
// (60 of each per minute per user).
import { sign } from "node:crypto";
import { sheets, type sheets_v4 } from "@googleapis/sheets";
import { type Credentials, JWT } from "google-auth-library";
import { type BackoffSettings, backoffDelayMs, sleep } from "./backoff.js";
import { type FetchImplementation, refusalIn } from "./guarded-transport.js";
import { RateGate, RemoteError } from "./remote-error.js";

const SHEETS_SCOPE = "https://www.googleapis.com/auth/spreadsheets";
const JWT_BEARER = "urn:ietf:params:oauth:grant-type:jwt-bearer";

export interface ServiceAccount {
  client_email: string;
  private_key: string;
  private_key_id?: string;
}

export interface GoogleSettings {
  sheetsApiUrl: string;
  tokenUrl: string;
  fetch: FetchImplementation;
  backoff: BackoffSettings;
  requestsPerWindow: number;
  windowMs: number;
  requestTimeoutMs: number;
  /** The service account's quotas, shared by its clients in the process (else its own). */
  gates?: SheetsGates;
}

export type SheetsGates = Record<"read" | "write", RateGate>;

export function sheetsGates(requestsPerWindow: number, windowMs: number): SheetsGates {
  const gate = () => new RateGate(requestsPerWindow, windowMs, (ms) => sleep(ms));
  return { read: gate(), write: gate() };
}

type TokenResponse = { tokens: Credentials; res: null };

/** A service-account JWT client whose token exchange goes to the configured token URL. */
export class ConfiguredTokenJWT extends JWT {
  constructor(
    private readonly account: ServiceAccount,
    private readonly tokenUrl: string,
    fetchImplementation: FetchImplementation,
    timeoutMs: number,
  ) {
    super({
      email: account.client_email,
      key: account.private_key,
      scopes: [SHEETS_SCOPE],
      transporterOptions: { fetchImplementation: fetchImplementation as never, timeout: timeoutMs },
    });
  }

  protected override async refreshTokenNoCache(): Promise<TokenResponse> {
    const iat = Math.floor(Date.now() / 1000);
    const encode = (value: object) => Buffer.from(JSON.stringify(value)).toString("base64url");
    const header = encode({
      alg: "RS256",
      typ: "JWT",
      ...(this.account.private_key_id ? { kid: this.account.private_key_id } : {}),
    });
    const claims = encode({
      iss: this.account.client_email,
      scope: SHEETS_SCOPE,
      aud: this.tokenUrl,
      iat,
      exp: iat + 3600,
    });
    const signature = sign(
      "RSA-SHA256",
      Buffer.from(`${header}.${claims}`),
      this.account.private_key,
    ).toString("base64url");
    const res = await this.transporter.request<{ access_token: string; expires_in: number }>({
      method: "POST",
      url: this.tokenUrl,
      data: new URLSearchParams({ grant_type: JWT_BEARER, assertion: `${header}.${claims}.${signature}` }),
      headers: { "content-type": "application/x-www-form-urlencoded" },
      responseType: "json",
      retryConfig: { httpMethodsToRetry: ["POST"], statusCodesToRetry: [[500, 599]] },
    });
    const tokens: Credentials = {
      access_token: res.data.access_token,
      token_type: "Bearer",
      expiry_date: Date.now() + res.data.expires_in * 1000,
    };
    this.emit("tokens", tokens);
    return { tokens, res: null };
  }
}

export interface SheetInfo {
  title: string;
  sheets: { sheetId: number; title: string }[];
}

export class SheetsGateway {
  private readonly auth: ConfiguredTokenJWT;
  private readonly api: sheets_v4.Sheets;
  /** Google counts read requests (get) and write requests (batchUpdate) against separate quotas. */
  private readonly gates: SheetsGates;

  constructor(
    readonly account: ServiceAccount,
    settings: GoogleSettings,
  ) {
    this.auth = new ConfiguredTokenJWT(account, settings.tokenUrl, settings.fetch, settings.requestTimeoutMs);
    this.gates = settings.gates ?? sheetsGates(settings.requestsPerWindow, settings.windowMs);
    this.api = sheets({
      version: "v4",
      auth: this.auth,
      rootUrl: settings.sheetsApiUrl,
      fetchImplementation: settings.fetch as never,
      timeout: settings.requestTimeoutMs,
      retryConfig: {
        retry: settings.backoff.retryLimit,
        noResponseRetries: 2,
        httpMethodsToRetry: ["GET", "POST"],
        statusCodesToRetry: [
          [429, 429],
          [500, 599],
        ],
        retryBackoff: async (error) => {
          const attempt = (error.config.retryConfig?.currentRetryAttempt ?? 1) - 1;
          await sleep(backoffDelayMs(attempt, settings.backoff));
        },
      },
    });
  }

  /** One cheap call that proves the key: a token from the token endpoint. */
  async verify(): Promise<void> {
    await this.call("token", null, () => this.auth.getAccessToken());
  }

  async spreadsheet(spreadsheetId: string): Promise<SheetInfo> {
    const res = await this.call(`spreadsheet ${spreadsheetId}`, "read", () =>
      this.api.spreadsheets.get({
        spreadsheetId,
        fields: "properties.title,sheets.properties(sheetId,title)",
      }),
    );
    return {
      title: res.data.properties?.title ?? "",
      sheets: (res.data.sheets ?? []).map((s) => ({
        sheetId: s.properties?.sheetId ?? 0,
        title: s.properties?.title ?? "",
      })),
    };
  }

  /** The cells of `range` as shown (formatted values), trailing empties omitted as Google does. */
  async values(spreadsheetId: string, range: string): Promise<string[][]> {
    const res = await this.call(`range ${range}`, "read", () =>
      this.api.spreadsheets.values.get({
        spreadsheetId,
        range,
        majorDimension: "ROWS",
        valueRenderOption: "FORMATTED_VALUE",
      }),
    );
    return (res.data.values ?? []).map((row) =>
      row.map((cell) => (cell === null || cell === undefined ? "" : String(cell))),
    );
  }

  /** One values.batchUpdate: RAW values into exactly these ranges. Returns the cells updated. */
  async write(spreadsheetId: string, data: { range: string; values: string[][] }[]): Promise<number> {
    const res = await this.call(`write ${spreadsheetId}`, "write", () =>
      this.api.spreadsheets.values.batchUpdate({
        spreadsheetId,
        requestBody: { valueInputOption: "RAW", data },
      }),
    );
    return res.data.totalUpdatedCells ?? 0;
  }

  /** `quota`: which per-user quota the call counts against (null: the token endpoint's own). */
  private async call<T>(what: string, quota: "read" | "write" | null, run: () => Promise<T>): Promise<T> {
    if (quota) await this.gates[quota].take();
    try {
      return await run();
    } catch (error) {
      throw googleFailure(error, what, this.account.client_email);
    }
  }
}

function googleFailure(error: unknown, what: string, clientEmail: string): RemoteError {
  if (error instanceof RemoteError) return error;
  const refused = refusalIn(error);
  if (refused) return new RemoteError("refused", refused.message);
  const err = error as { status?: number; response?: { status?: number; data?: unknown }; message?: string };
  const status = err.response?.status ?? err.status ?? null;
  const data = err.response?.data as
    | { error?: string | { message?: string }; error_description?: string }
    | undefined;
  const detail =
    typeof data?.error === "string"
      ? `${data.error}: ${data.error_description ?? ""}`
      : (data?.error?.message ?? err.message ?? "unknown error");
  if (typeof data?.error === "string") {
    // The token endpoint's answers: invalid_grant is a deleted key or a bad signature.
    return status !== null && status >= 500
      ? new RemoteError("unavailable", `Google token endpoint unavailable (${status})`, status)
      : new RemoteError("auth", `Google refused the service account's credentials (${detail})`, status);
  }
  if (status === 401) return new RemoteError("auth", `Google refused the access token: ${detail}`, status);
  if (status === 403)
    return new RemoteError("not_found", `${what}: not shared with ${clientEmail} (${detail})`, status);
  if (status === 404) return new RemoteError("not_found", `${what}: not found (${detail})`, status);
  if (status === 400 && /Unable to parse range/i.test(detail))
    return new RemoteError("not_found", `${what}: no such sheet (${detail})`, status);
  if (status === null || status === 429 || status >= 500)
    return new RemoteError(
      "unavailable",
      `${what}: Google unavailable (${status ?? "no answer"}: ${detail})`,
      status,
    );
  return new RemoteError("refused", `${what}: ${detail}`, status);
}
