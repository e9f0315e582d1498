// What each team role may do, as sets of the permissions routes declare (config.permission, the
// same declaration API keys are checked against: src/http/auth.ts). Pure rules, no I/O.
import { PERMISSIONS, type Permission } from "../keys/key-policy.js";

export const ROLES = ["owner", "admin", "developer", "analyst"] as const;
export type Role = (typeof ROLES)[number];

/**
 * Permissions only people hold (routes reached with an identity token): managing keys, seeing
 * and changing the team, buying credits. `billing:write` is also the checkout route's
 * permission; a key reaches it through `credits:read` (keyPermissionFor), as before teams.
 */
const MEMBER_PERMISSIONS = ["keys:write", "team:read", "team:write", "billing:write"] as const;
export type MemberPermission = (typeof MEMBER_PERMISSIONS)[number];
export type RolePermission = Permission | MemberPermission;

const ALL: readonly RolePermission[] = [...PERMISSIONS, ...MEMBER_PERMISSIONS];

/**
 * The role matrix of issue 25. Admins hold everything but billing; that they cannot touch owners
 * is a rule of the team service (it depends on the target, not the route). Analysts read and
 * export leads, batches and usage and run checks (a batch is a run of checks): no lead writes,
 * hence no deletions, no keys, no webhooks.
 */
export const ROLE_PERMISSIONS: Readonly<Record<Role, ReadonlySet<RolePermission>>> = {
  owner: new Set(ALL),
  admin: new Set(ALL.filter((p) => p !== "billing:write")),
  developer: new Set<RolePermission>([
    "checks:write",
    "leads:read",
    "leads:write",
    "batches:write",
    "webhooks:read",
    "webhooks:write",
    "credits:read",
    "connections:write",
    "keys:write",
    "team:read",
  ]),
  analyst: new Set<RolePermission>([
    "checks:write",
    "leads:read",
    "batches:write",
    "credits:read",
    "team:read",
  ]),
};

export const isRole = (value: string): value is Role => (ROLES as readonly string[]).includes(value);

export const roleAllows = (role: Role, permission: RolePermission): boolean =>
  ROLE_PERMISSIONS[role].has(permission);

/** The least role holding the permission (roles from analyst up to owner): what a 403 names. */
export function requiredRoleFor(permission: RolePermission): Role {
  for (const role of [...ROLES].reverse()) if (roleAllows(role, permission)) return role;
  return "owner";
}

const isMemberPermission = (value: string): value is MemberPermission =>
  (MEMBER_PERMISSIONS as readonly string[]).includes(value);

/** The key permission that opens a route declaring `permission`; null: no key may use it. */
export function keyPermissionFor(permission: RolePermission): Permission | null {
  if (permission === "billing:write") return "credits:read";
  return isMemberPermission(permission) ? null : permission;
}
