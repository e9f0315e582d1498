// A local stand-in for HubSpot's CRM v3 API, on 127.0.0.1 (port 0), for @hubspot/api-client pointed
// at it (HUBSPOT_API_URL). It serves what the sync uses with HubSpot's request and response shapes:
// the account's details (portalId), contact properties (read, create; 409 OBJECT_ALREADY_EXISTS), property groups, contacts list and
// batch read (207 with OBJECT_NOT_FOUND errors for deleted ids), list memberships (404 for a
// deleted list), search on lastmodifieddate, and batch update (at most 100 inputs). It enforces the
// per-account ten-second rolling limit (HubSpot: 100 requests per 10 s; scaled down in tests) with
// the X-HubSpot-RateLimit-* headers and the TEN_SECONDLY_ROLLING 429 body, answers 401 to a revoked
// private-app token, and scripted 5xx. Every property written is recorded.
import { randomUUID } from "node:crypto";
import type { ServerResponse } from "node:http";
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

interface FakeContact {
  id: string;
  properties: Record<string, string | null>;
  createdAt: string;
  updatedAt: string;
}

interface PropertyDefinition {
  name: string;
  label: string;
  type: string;
  fieldType: string;
  groupName: string;
  description: string;
  displayOrder: number;
  hidden: boolean;
  formField: boolean;
  hasUniqueValue: boolean;
  options: unknown[];
  createdAt: string;
  updatedAt: string;
  archived: boolean;
  modificationMetadata: { archivable: boolean; readOnlyDefinition: boolean; readOnlyValue: boolean };
}

interface PropertyWrite {
  contactId: string;
  property: string;
  value: string;
}

export interface FakeHubSpot {
  url: string;
  contacts: Map<string, FakeContact>;
  properties: Map<string, PropertyDefinition>;
  groups: Map<string, { name: string; label: string; displayOrder: number; archived: boolean }>;
  lists: Map<string, string[]>;
  calls: RecordedCall[];
  writes: PropertyWrite[];
  failures: ScriptedFailure[];
  /** Requests per account per rolling window (HubSpot: 100 per 10 s). */
  limit: WindowCounter;
  /** Called after each batch read is answered (tests delete a contact mid-sync). */
  afterBatchRead?: (ids: string[]) => void;
  /** Called after each batch update is applied (tests fail the calls that follow). */
  afterBatchUpdate?: (ids: string[]) => void;
  /** Awaited after a call took effect and before its answer is sent (tests kill the caller
   *  there: the change is made, the caller never hears of it). */
  beforeReply?: (method: string, path: string) => Promise<void> | void;
  /** A private-app token for a new portal. */
  newToken(portalId?: number): string;
  revoke(token: string): void;
  addContact(properties: Record<string, string>, at?: Date): FakeContact;
  touch(contactId: string, properties: Record<string, string>, at?: Date): void;
  close(): Promise<void>;
}

const STANDARD = ["email", "firstname", "lastname", "company", "jobtitle", "phone", "website"];

export async function startFakeHubSpot(
  options: { now?: () => number; perWindow?: number; windowMs?: number } = {},
): Promise<FakeHubSpot> {
  const now = options.now ?? Date.now;
  const tokens = new Map<string, { portalId: number; revoked: boolean }>();
  let nextId = 1001;
  let nextPortal = 4_000_000;
  const iso = (at?: Date) => (at ?? new Date(now())).toISOString();

  const definition = (name: string, groupName: string, type = "string"): PropertyDefinition => ({
    name,
    label: name,
    type,
    fieldType: type === "datetime" ? "date" : "text",
    groupName,
    description: "",
    displayOrder: -1,
    hidden: false,
    formField: true,
    hasUniqueValue: false,
    options: [],
    createdAt: iso(new Date(0)),
    updatedAt: iso(new Date(0)),
    archived: false,
    modificationMetadata: { archivable: true, readOnlyDefinition: true, readOnlyValue: false },
  });

  const fake: FakeHubSpot = {
    url: "",
    contacts: new Map(),
    properties: new Map([
      ...STANDARD.map((name) => [name, definition(name, "contactinformation")] as const),
      ["lastmodifieddate", definition("lastmodifieddate", "contactinformation", "datetime")],
      ["createdate", definition("createdate", "contactinformation", "datetime")],
      ["hs_object_id", definition("hs_object_id", "contactinformation", "number")],
    ]),
    groups: new Map([
      [
        "contactinformation",
        { name: "contactinformation", label: "Contact information", displayOrder: -1, archived: false },
      ],
    ]),
    lists: new Map(),
    calls: [],
    writes: [],
    failures: [],
    limit: new WindowCounter(options.perWindow ?? 100, options.windowMs ?? 10_000),
    newToken(portalId) {
      const token = `pat-eu1-${randomUUID()}`;
      tokens.set(token, { portalId: portalId ?? nextPortal++, revoked: false });
      return token;
    },
    revoke(token) {
      const entry = tokens.get(token);
      if (entry) entry.revoked = true;
    },
    addContact(properties, at) {
      const id = String(nextId++);
      const stamp = iso(at);
      const contact: FakeContact = {
        id,
        properties: { ...properties, hs_object_id: id, createdate: stamp, lastmodifieddate: stamp },
        createdAt: stamp,
        updatedAt: stamp,
      };
      fake.contacts.set(id, contact);
      return contact;
    },
    touch(contactId, properties, at) {
      const contact = fake.contacts.get(contactId);
      if (!contact) throw new Error(`no fake contact ${contactId}`);
      const stamp = iso(at);
      Object.assign(contact.properties, properties, { lastmodifieddate: stamp });
      contact.updatedAt = stamp;
    },
    close: async () => closeServer(server),
  };

  const hubError = (status: number, category: string, message: string, extra = {}): JsonReply => ({
    status,
    body: { status: "error", message, correlationId: randomUUID(), category, ...extra },
  });

  const view = (contact: FakeContact, names: string[]) => {
    const wanted = names.length > 0 ? names : ["firstname", "lastname", "email"];
    const properties: Record<string, string | null> = {
      createdate: contact.properties.createdate ?? null,
      hs_object_id: contact.id,
      lastmodifieddate: contact.properties.lastmodifieddate ?? null,
    };
    for (const name of wanted) properties[name] = contact.properties[name] ?? null;
    return {
      id: contact.id,
      properties,
      createdAt: contact.createdAt,
      updatedAt: contact.updatedAt,
      archived: false,
    };
  };

  function route(
    method: string,
    path: string,
    query: URLSearchParams,
    body: unknown,
    portalId: number,
  ): JsonReply {
    const input = (body ?? {}) as Record<string, unknown>;
    if (method === "GET" && path === "/account-info/v3/details") {
      return {
        status: 200,
        body: {
          portalId,
          accountType: "STANDARD",
          timeZone: "Europe/Berlin",
          companyCurrency: "EUR",
          additionalCurrencies: [],
          utcOffset: "+01:00",
          utcOffsetMilliseconds: 3_600_000,
          uiDomain: "app-eu1.hubspot.com",
          dataHostingLocation: "eu1",
        },
      };
    }
    if (method === "GET" && path === "/crm/v3/properties/contacts") {
      return { status: 200, body: { results: [...fake.properties.values()] } };
    }
    if (method === "POST" && path === "/crm/v3/properties/contacts") {
      const name = String(input.name ?? "");
      if (fake.properties.has(name))
        return hubError(409, "OBJECT_ALREADY_EXISTS", `Property named '${name}' already exists.`);
      const groupName = String(input.groupName ?? "");
      if (!fake.groups.has(groupName))
        return hubError(400, "VALIDATION_ERROR", `Property group ${groupName} does not exist.`);
      const created = {
        ...definition(name, groupName, String(input.type ?? "string")),
        ...input,
        createdAt: iso(),
        updatedAt: iso(),
      };
      fake.properties.set(name, created as PropertyDefinition);
      return { status: 201, body: created };
    }
    if (method === "GET" && path === "/crm/v3/properties/contacts/groups") {
      return { status: 200, body: { results: [...fake.groups.values()] } };
    }
    if (method === "POST" && path === "/crm/v3/properties/contacts/groups") {
      const name = String(input.name ?? "");
      if (fake.groups.has(name))
        return hubError(409, "OBJECT_ALREADY_EXISTS", `A property group named '${name}' already exists.`);
      const group = {
        name,
        label: String(input.label ?? name),
        displayOrder: Number(input.displayOrder ?? -1),
        archived: false,
      };
      fake.groups.set(name, group);
      return { status: 201, body: group };
    }
    if (method === "GET" && path === "/crm/v3/objects/contacts") {
      const limit = Math.min(Number(query.get("limit") ?? 10), 100);
      const after = query.get("after");
      const names = (query.get("properties") ?? "").split(",").filter(Boolean);
      const all = [...fake.contacts.values()].sort((a, b) => Number(a.id) - Number(b.id));
      const start = after ? all.findIndex((c) => Number(c.id) > Number(after)) : 0;
      const page = start < 0 ? [] : all.slice(start, start + limit);
      const more = start >= 0 && start + limit < all.length;
      return {
        status: 200,
        body: {
          results: page.map((c) => view(c, names)),
          ...(more
            ? {
                paging: {
                  next: { after: page.at(-1)!.id, link: `${fake.url}${path}?after=${page.at(-1)!.id}` },
                },
              }
            : {}),
        },
      };
    }
    if (method === "POST" && path === "/crm/v3/objects/contacts/batch/read") {
      const inputs = (input.inputs as { id: string }[] | undefined) ?? [];
      if (inputs.length > 100)
        return hubError(400, "VALIDATION_ERROR", "Batch input size must be at most 100");
      const names = (input.properties as string[] | undefined) ?? [];
      const found = inputs.map((i) => fake.contacts.get(String(i.id))).filter((c) => c !== undefined);
      const missing = inputs.map((i) => String(i.id)).filter((id) => !fake.contacts.has(id));
      const stamps = { startedAt: iso(), completedAt: iso() };
      queueMicrotask(() => fake.afterBatchRead?.(inputs.map((i) => String(i.id))));
      if (missing.length === 0)
        return {
          status: 200,
          body: { status: "COMPLETE", results: found.map((c) => view(c, names)), ...stamps },
        };
      return {
        status: 207,
        body: {
          status: "COMPLETE",
          results: found.map((c) => view(c, names)),
          numErrors: 1,
          errors: [
            {
              status: "error",
              category: "OBJECT_NOT_FOUND",
              message:
                "Could not get some CONTACT objects, they may be deleted or not exist. Check that ids are valid.",
              context: { ids: missing },
            },
          ],
          ...stamps,
        },
      };
    }
    const members = /^\/crm\/v3\/lists\/([^/]+)\/memberships$/.exec(path);
    if (method === "GET" && members) {
      const ids = fake.lists.get(decodeURIComponent(members[1]!));
      if (!ids) return hubError(404, "OBJECT_NOT_FOUND", `List ${members[1]} does not exist.`);
      const limit = Math.min(Number(query.get("limit") ?? 100), 250);
      const start = Number(query.get("after") ?? 0);
      const page = ids.slice(start, start + limit);
      const more = start + limit < ids.length;
      return {
        status: 200,
        body: {
          results: page.map((recordId) => ({ recordId, membershipTimestamp: iso(new Date(0)) })),
          total: ids.length,
          ...(more ? { paging: { next: { after: String(start + limit) } } } : {}),
        },
      };
    }
    if (method === "POST" && path === "/crm/v3/objects/contacts/search") return search(input);
    if (method === "POST" && path === "/crm/v3/objects/contacts/batch/update") {
      const inputs = (input.inputs as { id: string; properties: Record<string, string> }[] | undefined) ?? [];
      if (inputs.length > 100)
        return hubError(400, "VALIDATION_ERROR", "Batch input size must be at most 100");
      const missing = inputs.map((i) => String(i.id)).filter((id) => !fake.contacts.has(id));
      // The batch is refused whole when an id is not a live contact: nothing of it is written.
      if (missing.length > 0)
        return hubError(400, "VALIDATION_ERROR", "Some of the inputs are not valid contacts.", {
          context: { ids: missing },
        });
      const unknown = inputs
        .flatMap((i) => Object.keys(i.properties ?? {}))
        .filter((p) => !fake.properties.has(p));
      if (unknown.length > 0)
        return hubError(
          400,
          "VALIDATION_ERROR",
          `Property values were not valid: ${[...new Set(unknown)].join(", ")} does not exist`,
        );
      const stamp = iso();
      const results = inputs.map((i) => {
        const contact = fake.contacts.get(String(i.id))!;
        for (const [property, value] of Object.entries(i.properties ?? {})) {
          contact.properties[property] = value;
          fake.writes.push({ contactId: contact.id, property, value });
        }
        contact.properties.lastmodifieddate = stamp;
        contact.updatedAt = stamp;
        return view(contact, Object.keys(i.properties ?? {}));
      });
      queueMicrotask(() => fake.afterBatchUpdate?.(inputs.map((i) => String(i.id))));
      return { status: 200, body: { status: "COMPLETE", results, startedAt: stamp, completedAt: stamp } };
    }
    return hubError(404, "OBJECT_NOT_FOUND", `No route for ${method} ${path}`);
  }

  function search(input: Record<string, unknown>): JsonReply {
    const groups =
      (input.filterGroups as { filters: { propertyName: string; operator: string; value?: string }[] }[]) ??
      [];
    const limit = Math.min(Number(input.limit ?? 10), 200);
    const after = Number(input.after ?? 0);
    const names = (input.properties as string[] | undefined) ?? [];
    const matches = (contact: FakeContact) =>
      groups.length === 0 ||
      groups.some((g) =>
        g.filters.every((f) => {
          const raw = contact.properties[f.propertyName];
          if (raw === null || raw === undefined) return false;
          if (f.operator === "EQ") return raw === f.value;
          // Date properties compare as epoch milliseconds, as HubSpot's search takes them.
          const value = f.propertyName.endsWith("date") ? Date.parse(raw) : Number(raw);
          const wanted = Number(f.value);
          switch (f.operator) {
            case "GTE":
              return value >= wanted;
            case "GT":
              return value > wanted;
            case "LT":
              return value < wanted;
            default:
              return false;
          }
        }),
      );
    const all = [...fake.contacts.values()]
      .filter(matches)
      .sort(
        (a, b) =>
          Date.parse(a.properties.lastmodifieddate ?? "") - Date.parse(b.properties.lastmodifieddate ?? "") ||
          Number(a.id) - Number(b.id),
      );
    const page = all.slice(after, after + limit);
    return {
      status: 200,
      body: {
        total: all.length,
        results: page.map((c) => view(c, names)),
        ...(after + limit < all.length ? { paging: { next: { after: String(after + limit) } } } : {}),
      },
    };
  }

  const { server, url } = await listen(async (req, res: ServerResponse) => {
    const raw = await readBody(req);
    const [path = "/", queryString = ""] = (req.url ?? "/").split("?");
    const method = req.method ?? "GET";
    const token = /^Bearer (.+)$/.exec(req.headers.authorization ?? "")?.[1];
    const account = token ? tokens.get(token) : undefined;
    const record = (status: number) =>
      fake.calls.push({
        method,
        url: req.url ?? "/",
        status,
        caller: account ? String(account.portalId) : null,
        at: now(),
      });
    if (!account || account.revoked) {
      const reply = account
        ? hubError(
            401,
            "EXPIRED_AUTHENTICATION",
            "The OAuth token used to make this call expired or was revoked.",
          )
        : hubError(
            401,
            "INVALID_AUTHENTICATION",
            "Authentication credentials not found. This API supports OAuth 2.0 authentication and you can find more details at https://developers.hubspot.com/docs/methods/auth/oauth-overview",
          );
      record(reply.status);
      send(res, reply);
      return;
    }
    const window = fake.limit.take(String(account.portalId), now());
    const rateHeaders = {
      "x-hubspot-ratelimit-interval-milliseconds": String(fake.limit.windowMs),
      "x-hubspot-ratelimit-max": String(fake.limit.limit),
      "x-hubspot-ratelimit-remaining": String(window.remaining),
    };
    if (!window.allowed) {
      record(429);
      send(res, {
        status: 429,
        headers: rateHeaders,
        body: {
          status: "error",
          message: "You have reached your ten_secondly_rolling limit.",
          errorType: "RATE_LIMIT",
          correlationId: randomUUID(),
          policyName: "TEN_SECONDLY_ROLLING",
          groupName: `portal:${account.portalId}`,
        },
      });
      return;
    }
    const scripted = takeFailure(fake.failures, `${method} ${path}`);
    if (scripted !== null) {
      record(scripted);
      send(res, { ...hubError(scripted, "INTERNAL_ERROR", "internal error"), headers: rateHeaders });
      return;
    }
    let body: unknown;
    try {
      body = raw ? JSON.parse(raw) : undefined;
    } catch {
      send(res, hubError(400, "VALIDATION_ERROR", "Invalid input JSON"));
      return;
    }
    const reply = route(method, path, new URLSearchParams(queryString), body, account.portalId);
    record(reply.status);
    await fake.beforeReply?.(method, path);
    send(res, { ...reply, headers: { ...rateHeaders, ...(reply.headers ?? {}) } });
  });
  fake.url = url;
  return fake;
}
