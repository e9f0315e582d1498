// Connections (issue 26): a HubSpot private-app token or a Google service account, verified with
// one cheap call before anything is stored, kept encrypted, never returned or logged. The pasted
// key's `token_uri` is dropped: tokens come only from the configured token URL (ADR 0030).
import { createPrivateKey } from "node:crypto";
import type { Clock } from "../lib/clock.js";
import { fail, invalid, notFound } from "../lib/errors.js";
import { newId } from "../lib/ids.js";
import type { Database } from "../storage/db.js";
import type { ConnectionsTable } from "../storage/schema.js";
import type { CredentialsCipher } from "./credentials-cipher.js";
import type { ServiceAccount, SheetsGateway } from "./google-sheets.gateway.js";
import type { HubSpotGateway } from "./hubspot.gateway.js";
import type { IntegrationsRepo } from "./integrations.repo.js";
import type {
  ConnectionCreateInput,
  ConnectionKind,
  ConnectionStatus,
  ConnectionView,
} from "./integrations.schemas.js";
import { RemoteError } from "./remote-error.js";

export type StoredCredentials =
  | { kind: "hubspot"; accessToken: string }
  | ({ kind: "google_sheets" } & ServiceAccount);

export interface GatewayFactory {
  hubspot(accessToken: string): HubSpotGateway;
  sheets(account: ServiceAccount): SheetsGateway;
}

export interface ConnectionsDeps {
  database: Database;
  repo: IntegrationsRepo;
  clock: Clock;
  cipher: CredentialsCipher | undefined;
  gateways: GatewayFactory;
}

export class ConnectionsService {
  constructor(private readonly deps: ConnectionsDeps) {}

  /** Verifies the credentials with one cheap call, then stores them sealed. Throws unavailable
   *  (no LEADCHECK_SECRET_KEY: connections are off) or invalid (the credentials are malformed or
   *  the provider refused them; nothing is stored). */
  async create(accountId: string, input: ConnectionCreateInput): Promise<ConnectionView> {
    const { cipher } = this.deps;
    if (!cipher)
      throw fail({
        kind: "unavailable",
        message: "Connections are off: the operator has not set LEADCHECK_SECRET_KEY",
      });
    const parsed = parseCredentials(input);
    if ("message" in parsed) throw invalidCredentials(parsed.field, parsed.message);
    let portalId: string | null = null;
    try {
      if (parsed.kind === "hubspot") {
        const gateway = this.deps.gateways.hubspot(parsed.accessToken);
        await gateway.verify();
        portalId = await portalOf(gateway);
      } else await this.deps.gateways.sheets(parsed).verify();
    } catch (error) {
      if (!(error instanceof RemoteError)) throw error;
      throw invalidCredentials(parsed.kind === "hubspot" ? "accessToken" : "serviceAccount", error.message);
    }
    const now = this.deps.clock.now().toISOString();
    const id = newId("con", this.deps.clock.now().getTime());
    const row: ConnectionsTable = {
      id,
      account_id: accountId,
      kind: input.kind,
      name: input.name,
      status: "active",
      status_reason: null,
      client_email: parsed.kind === "google_sheets" ? parsed.client_email : null,
      portal_id: portalId,
      credentials: cipher.seal(id, JSON.stringify(parsed)),
      created_at: now,
      updated_at: now,
      last_sync_at: null,
      deleted_at: null,
    };
    await this.deps.repo.insertConnection(this.deps.database.db, row);
    return toConnectionView(row);
  }

  async list(accountId: string): Promise<{ connections: ConnectionView[]; total: number }> {
    const rows = await this.deps.repo.listLiveConnections(this.deps.database.db, accountId);
    return { connections: rows.map(toConnectionView), total: rows.length };
  }

  /** Throws not_found for a connection that is deleted or another account's. */
  async get(accountId: string, connectionId: string): Promise<ConnectionView> {
    const row = await this.deps.repo.findLiveConnection(this.deps.database.db, accountId, connectionId);
    if (!row) throw notFound("Connection");
    return toConnectionView(row);
  }

  /** Soft delete; the credentials are overwritten so nothing usable stays behind. Throws
   *  not_found as `get` does. */
  async delete(accountId: string, connectionId: string): Promise<void> {
    const row = await this.deps.repo.findLiveConnection(this.deps.database.db, accountId, connectionId);
    if (!row) throw notFound("Connection");
    const now = this.deps.clock.now().toISOString();
    await this.deps.repo.updateConnection(this.deps.database.db, connectionId, {
      deleted_at: now,
      updated_at: now,
      status: "disabled",
      credentials: "",
    });
  }

  /** The stored credentials of a live connection (for the sync's gateways). */
  async credentials(
    accountId: string,
    connectionId: string,
  ): Promise<{ row: ConnectionsTable; credentials: StoredCredentials } | null> {
    const row = await this.deps.repo.findLiveConnection(this.deps.database.db, accountId, connectionId);
    if (!row || !this.deps.cipher) return null;
    return {
      row,
      credentials: JSON.parse(this.deps.cipher.open(row.id, row.credentials)) as StoredCredentials,
    };
  }

  async setStatus(connectionId: string, status: ConnectionStatus, reason: string | null): Promise<void> {
    const now = this.deps.clock.now().toISOString();
    await this.deps.repo.updateConnection(this.deps.database.db, connectionId, {
      status,
      status_reason: reason,
      updated_at: now,
    });
  }

  /** A HubSpot connection's portal id: the stored one, else read now and stored (connections made
   *  before it was recorded); null when HubSpot will not say. */
  async hubspotPortal(row: ConnectionsTable, gateway: HubSpotGateway): Promise<string | null> {
    if (row.portal_id) return row.portal_id;
    const portalId = await portalOf(gateway);
    if (portalId)
      await this.deps.repo.updateConnection(this.deps.database.db, row.id, { portal_id: portalId });
    return portalId;
  }

  async touchLastSync(connectionId: string, at: Date): Promise<void> {
    await this.deps.repo.updateConnection(this.deps.database.db, connectionId, {
      last_sync_at: at.toISOString(),
    });
  }

  /** Refuses to start when connections are stored and no key can open them. */
  async assertCanOpenStoredCredentials(): Promise<void> {
    if (this.deps.cipher) return;
    const count = await this.deps.repo.countLiveConnections(this.deps.database.db);
    if (count > 0)
      throw new Error(
        `${count} integration connection(s) are stored but LEADCHECK_SECRET_KEY is not set; set it to start`,
      );
  }
}

/** The portal id, or null when the account-info call is refused (a token without access to it
 *  still syncs; its leads just link to no contact record). */
async function portalOf(gateway: HubSpotGateway): Promise<string | null> {
  try {
    return await gateway.portalId();
  } catch (error) {
    if (error instanceof RemoteError && error.kind !== "auth") return null;
    throw error;
  }
}

function invalidCredentials(field: string, message: string) {
  return invalid([{ field, message, type: "credentials" }], message);
}

function parseCredentials(
  input: ConnectionCreateInput,
): StoredCredentials | { field: string; message: string } {
  if (input.kind === "hubspot") {
    const token = input.accessToken?.trim();
    if (!token) return { field: "accessToken", message: "a HubSpot private-app access token is required" };
    return { kind: "hubspot", accessToken: token };
  }
  const key = input.serviceAccount;
  if (!key) return { field: "serviceAccount", message: "the service account's JSON key is required" };
  if (key.type !== undefined && key.type !== "service_account")
    return {
      field: "serviceAccount.type",
      message: `expected a service_account key, got "${String(key.type)}"`,
    };
  const email = key.client_email;
  if (typeof email !== "string" || !/^[^@\s]+@[^@\s]+$/.test(email))
    return {
      field: "serviceAccount.client_email",
      message: "client_email is missing or not an email address",
    };
  const privateKey = key.private_key;
  if (typeof privateKey !== "string")
    return { field: "serviceAccount.private_key", message: "private_key is missing" };
  try {
    createPrivateKey(privateKey);
  } catch {
    return { field: "serviceAccount.private_key", message: "private_key is not a PEM private key" };
  }
  return {
    kind: "google_sheets",
    client_email: email,
    private_key: privateKey,
    ...(typeof key.private_key_id === "string" ? { private_key_id: key.private_key_id } : {}),
  };
}

function toConnectionView(row: ConnectionsTable): ConnectionView {
  return {
    connectionId: row.id,
    kind: row.kind as ConnectionKind,
    name: row.name,
    status: row.status as ConnectionStatus,
    statusReason: row.status_reason,
    createdAt: row.created_at,
    lastSyncAt: row.last_sync_at,
    clientEmail: row.client_email,
    portalId: row.portal_id ?? null,
  };
}
