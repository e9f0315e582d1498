// HubSpot CRM v3 through @hubspot/api-client. The client's own limiter (Bottleneck) bounds the
// calls in flight; HubSpot's per-account rolling window is kept by a RateGate shared by every
// client of the same token in the process (Bottleneck's reservoir refills on a fixed timer of its
// own client, so each new client, one per sync attempt, started with a full window:
// docs/decisions/0032). The client's retry decorator is not used (numberOfApiCallRetries unset)
// because it waits a fixed 10 s x attempt without jitter and logs to the console: `call` retries
// 429 and 5xx with our jittered backoff instead (docs/decisions/0030), each attempt through the
// gate. Contacts are read in batches, never one by one.

import type http from "node:http";
import { Client } from "@hubspot/api-client";
import {
  createConfiguration,
  HttpMethod,
  RequestContext,
} from "@hubspot/api-client/lib/codegen/crm/contacts/index.js";
import { FilterOperatorEnum } from "@hubspot/api-client/lib/codegen/crm/contacts/models/Filter.js";
import {
  PropertyCreateFieldTypeEnum,
  PropertyCreateTypeEnum,
} from "@hubspot/api-client/lib/codegen/crm/properties/models/PropertyCreate.js";
import { type BackoffSettings, backoffDelayMs, sleep } from "./backoff.js";
import { refusalIn } from "./guarded-transport.js";
import { RateGate, RemoteError } from "./remote-error.js";

export interface HubSpotSettings {
  apiUrl: string;
  agent: http.Agent | undefined;
  backoff: BackoffSettings;
  requestsPerWindow: number;
  windowMs: number;
  /** The token's share of the account's window, shared by its clients (else one of its own). */
  gate?: RateGate;
  signal?: AbortSignal;
}

export interface HubSpotContact {
  id: string;
  properties: Record<string, string | null>;
}

const LEADCHECK_GROUP = "leadcheck";
const CONTACT_PROPERTIES = ["email", "firstname", "lastname", "company", "jobtitle", "phone", "website"];

export class HubSpotGateway {
  private readonly client: Client;
  /** Per-call options carrying the guarded agent: 13.x drops the configuration's middleware (where
   *  its `httpAgent` option lives) unless a call passes middleware of its own. */
  private readonly opts: never;
  /** Calls made, retries included (figures for the benchmark). */
  calls = 0;
  private readonly gate: RateGate;

  constructor(
    private readonly accessToken: string,
    private readonly settings: HubSpotSettings,
  ) {
    this.client = new Client({
      accessToken,
      basePath: settings.apiUrl,
      limiterOptions: { maxConcurrent: 4 },
    });
    this.gate = settings.gate ?? hubspotGate(settings.requestsPerWindow, settings.windowMs);
    const agent = settings.agent;
    this.opts = {
      middleware: [
        {
          pre: async (context: { setAgent(agent: http.Agent): void }) => {
            if (agent) context.setAgent(agent);
            return context;
          },
          post: async (response: unknown) => response,
        },
      ],
      middlewareMergeStrategy: "replace",
    } as never;
  }

  /** One cheap call that proves the token: the account's contact properties. */
  async verify(): Promise<void> {
    await this.call("read contact properties", () =>
      this.client.crm.properties.coreApi.getAll("contacts", undefined, undefined, this.opts),
    );
  }

  /** The portal id the token reaches (GET /account-info/v3/details), for links to contact
   *  records. 13.x has no generated API for account-info and its `apiRequest` drops the agent (the
   *  SSRF guard), so the request goes through the HTTP library of the client's generated APIs
   *  (its default configuration's httpApi), which takes the agent per request. */
  async portalId(): Promise<string> {
    const info = await this.call("read account details", async () => {
      const request = new RequestContext(`${this.settings.apiUrl}/account-info/v3/details`, HttpMethod.GET);
      request.setHeaderParam("Authorization", `Bearer ${this.accessToken}`);
      request.setHeaderParam("Accept", "application/json");
      if (this.settings.agent) request.setAgent(this.settings.agent);
      const response = await createConfiguration().httpApi.send(request).toPromise();
      const body = await response.body.text();
      // The same shape the generated APIs throw, so hubspotFailure reads it alike.
      if (response.httpStatusCode >= 300)
        throw Object.assign(new Error(body), { code: response.httpStatusCode, body });
      return JSON.parse(body) as { portalId?: number };
    });
    if (typeof info.portalId !== "number")
      throw new RemoteError("refused", "HubSpot's account details name no portal");
    return String(info.portalId);
  }

  /** The `leadcheck` group and our properties, created when missing (a 409 means it exists). */
  async ensureProperties(
    definitions: { name: string; label: string; type: "string" | "number" | "datetime" }[],
  ) {
    const groups = await this.call("read property groups", () =>
      this.client.crm.properties.groupsApi.getAll("contacts", this.opts),
    );
    if (!groups.results.some((g) => g.name === LEADCHECK_GROUP)) {
      await this.createIgnoringConflict("create property group", () =>
        this.client.crm.properties.groupsApi.create(
          "contacts",
          { name: LEADCHECK_GROUP, label: "leadcheck", displayOrder: -1 },
          this.opts,
        ),
      );
    }
    const existing = await this.call("read contact properties", () =>
      this.client.crm.properties.coreApi.getAll("contacts", undefined, undefined, this.opts),
    );
    const names = new Set(existing.results.map((p) => p.name));
    for (const definition of definitions) {
      if (names.has(definition.name)) continue;
      await this.createIgnoringConflict(`create property ${definition.name}`, () =>
        this.client.crm.properties.coreApi.create(
          "contacts",
          {
            name: definition.name,
            label: definition.label,
            groupName: LEADCHECK_GROUP,
            type: PropertyCreateTypeEnum.String,
            fieldType: PropertyCreateFieldTypeEnum.Text,
            description: "Written by leadcheck",
          },
          this.opts,
        ),
      );
    }
  }

  async listMembers(
    listId: string,
    after: string | undefined,
  ): Promise<{ ids: string[]; next: string | undefined }> {
    const page = await this.call(`list ${listId}`, () =>
      this.client.crm.lists.membershipsApi.getPage(listId, after, undefined, 100, this.opts),
    );
    return { ids: page.results.map((m) => String(m.recordId)), next: page.paging?.next?.after };
  }

  async contactsPage(
    after: string | undefined,
  ): Promise<{ contacts: HubSpotContact[]; next: string | undefined }> {
    const page = await this.call("list contacts", () =>
      this.client.crm.contacts.basicApi.getPage(
        100,
        after,
        CONTACT_PROPERTIES,
        undefined,
        undefined,
        false,
        this.opts,
      ),
    );
    return { contacts: page.results.map(toContact), next: page.paging?.next?.after };
  }

  /** Up to 100 contacts by id; ids deleted meanwhile are simply absent. */
  async readContacts(ids: string[], properties = CONTACT_PROPERTIES): Promise<HubSpotContact[]> {
    if (ids.length === 0) return [];
    const res = await this.call("batch read contacts", () =>
      this.client.crm.contacts.batchApi.read(
        { inputs: ids.map((id) => ({ id })), properties, propertiesWithHistory: [] },
        false,
        this.opts,
      ),
    );
    return res.results.map(toContact);
  }

  /** How many contacts the account has, and the first `limit` (one search call: the preview). */
  async firstContacts(limit: number): Promise<{ total: number; contacts: HubSpotContact[] }> {
    const res = await this.call("search contacts", () =>
      this.client.crm.contacts.searchApi.doSearch(
        { filterGroups: [], sorts: [], properties: CONTACT_PROPERTIES, limit, after: "0" },
        this.opts,
      ),
    );
    return { total: res.total, contacts: res.results.map(toContact) };
  }

  /** A list's member count, reading at most `maxPages` pages of 250 ids (HubSpot's largest page;
   *  the memberships API reports no total). `exact` is false when the list is longer. */
  async countListMembers(
    listId: string,
    maxPages: number,
  ): Promise<{ count: number; exact: boolean; first: string[] }> {
    let after: string | undefined;
    let count = 0;
    let first: string[] = [];
    for (let page = 0; page < maxPages; page++) {
      const res = await this.call(`list ${listId}`, () =>
        this.client.crm.lists.membershipsApi.getPage(listId, after, undefined, 250, this.opts),
      );
      if (page === 0) first = res.results.slice(0, 5).map((m) => String(m.recordId));
      count += res.results.length;
      after = res.paging?.next?.after;
      if (!after) return { count, exact: true, first };
    }
    return { count, exact: false, first };
  }

  /** Contacts modified at or after `sinceMs`, oldest first (watches). */
  async modifiedSince(sinceMs: number, after: string | undefined) {
    const res = await this.call("search contacts", () =>
      this.client.crm.contacts.searchApi.doSearch(
        {
          filterGroups: [
            {
              filters: [
                {
                  propertyName: "lastmodifieddate",
                  operator: FilterOperatorEnum.Gte,
                  value: String(sinceMs),
                },
              ],
            },
          ],
          sorts: ["lastmodifieddate"],
          properties: CONTACT_PROPERTIES,
          limit: 100,
          after: after ?? "0",
        },
        this.opts,
      ),
    );
    return { contacts: res.results.map(toContact), next: res.paging?.next?.after };
  }

  /** One batch/update of at most 100 contacts. */
  async update(inputs: { id: string; properties: Record<string, string> }[]): Promise<void> {
    if (inputs.length > 100) throw new Error("batch/update takes at most 100 inputs");
    await this.call("batch update contacts", () =>
      this.client.crm.contacts.batchApi.update({ inputs }, this.opts),
    );
  }

  private async createIgnoringConflict(what: string, run: () => Promise<unknown>): Promise<void> {
    try {
      await this.call(what, run);
    } catch (error) {
      if (error instanceof RemoteError && error.status === 409) return;
      throw error;
    }
  }

  private async call<T>(what: string, run: () => Promise<T>): Promise<T> {
    const { backoff } = this.settings;
    for (let attempt = 0; ; attempt++) {
      await this.gate.take();
      this.calls++;
      try {
        return await run();
      } catch (error) {
        const failure = hubspotFailure(error, what);
        if (failure.kind !== "unavailable" || attempt >= backoff.retryLimit) throw failure;
        await sleep(backoffDelayMs(attempt, backoff), this.settings.signal);
      }
    }
  }
}

/** At most `limit` calls start in any window, plus 1 % (at least 50 ms) for calls that reach
 *  HubSpot a little later than others started before them. */
export function hubspotGate(limit: number, windowMs: number): RateGate {
  return new RateGate(limit, windowMs + Math.max(50, Math.ceil(windowMs / 100)), (ms) => sleep(ms));
}

function toContact(object: { id: string; properties: Record<string, string | null> }): HubSpotContact {
  return { id: String(object.id), properties: { ...object.properties } };
}

function hubspotFailure(error: unknown, what: string): RemoteError {
  if (error instanceof RemoteError) return error;
  const refused = refusalIn(error);
  if (refused) return new RemoteError("refused", refused.message);
  const err = error as { code?: unknown; body?: unknown; message?: string };
  const status = typeof err.code === "number" ? err.code : null;
  const body = (typeof err.body === "string" ? safeJson(err.body) : err.body) as
    | { message?: string; category?: string }
    | undefined;
  const detail = body?.message ?? err.message ?? "unknown error";
  if (status === 401) return new RemoteError("auth", `HubSpot refused the token: ${detail}`, status);
  if (status === 403) return new RemoteError("auth", `${what}: the token lacks a scope (${detail})`, status);
  if (status === 404) return new RemoteError("not_found", `${what}: not found (${detail})`, status);
  if (status === null || status === 429 || status >= 500)
    return new RemoteError(
      "unavailable",
      `${what}: HubSpot unavailable (${status ?? "no answer"}: ${detail})`,
      status,
    );
  return new RemoteError("refused", `${what}: ${detail}`, status);
}

function safeJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}
