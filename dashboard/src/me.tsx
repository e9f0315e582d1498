// Who the signed-in person (or key) is in the account on screen: its role and permissions, from
// GET /v1/me. Pages ask `useCan()` before offering an action, so a role sees only what it may do;
// the server still decides, and a 403 that slips through shows its message like any error.
import { createContext, useContext } from "react";
import type { Me } from "../../sdk/src/api-types.js";

export const MeContext = createContext<Me | null>(null);

export function useMe(): Me {
  const me = useContext(MeContext);
  if (!me) throw new Error("useMe outside a signed-in page");
  return me;
}

/** Permissions the API declares per route (x-permission in /openapi.json). */
export type Permission =
  | "checks:write"
  | "leads:read"
  | "leads:write"
  | "batches:write"
  | "webhooks:read"
  | "webhooks:write"
  | "credits:read"
  | "connections:write"
  | "audit:read"
  | "data:admin"
  | "keys:write"
  | "team:read"
  | "team:write"
  | "billing:write";

/** Whether the caller holds a permission here. Outside a signed-in page (tests of parts): yes. */
export function useCan(): (permission: Permission) => boolean {
  const me = useContext(MeContext);
  return (permission) => me === null || me.permissions.includes(permission);
}

/** The words for a role's reach, as the API documents them. */
export const ROLE_TEXT: Record<string, string> = {
  owner: "everything, including billing and members",
  admin: "everything but billing and owners",
  developer: "keys, webhooks, connections, leads, checks, batches",
  analyst: "reads and exports leads, batches and usage, runs checks",
};
