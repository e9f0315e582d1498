// A new key's policy from what the caller asked for, and the policy of a stored row. The rules of
// docs/widget.md: publishable keys need allowedOrigins and cannot carry permissions or IPs (they
// work only on the widget endpoints, from browsers anywhere); secret keys cannot carry origins;
// expiry is in the future.
import type { FieldError } from "../lib/errors.js";
import type { KeyType } from "./key-format.js";
import {
  type CaptchaProvider,
  cidrProblem,
  type KeyMode,
  type KeyPolicy,
  originProblem,
  PERMISSIONS,
  type Permission,
  type WidgetLimits,
} from "./key-policy.js";

export interface KeyInput {
  type?: KeyType;
  mode?: KeyMode;
  permissions?: string[];
  allowedIps?: string[];
  allowedOrigins?: string[];
  expiresAt?: string;
  widget?: Partial<WidgetLimits> & { captcha?: CaptchaProvider };
}

export type PolicyOutcome = { ok: true; policy: KeyPolicy } | { ok: false; errors: FieldError[] };

export function policyFromInput(input: KeyInput, now: Date): PolicyOutcome {
  const type = input.type ?? "secret";
  const mode = input.mode ?? "live";
  const errors: FieldError[] = [];
  const fail = (field: string, message: string, kind = "invalid") =>
    errors.push({ field, message, type: kind });

  const permissions = input.permissions === undefined ? null : [...new Set(input.permissions)];
  for (const [i, p] of (permissions ?? []).entries())
    if (!(PERMISSIONS as readonly string[]).includes(p))
      fail(`permissions.${i}`, `unknown permission "${p}"; one of ${PERMISSIONS.join(", ")}`, "enum");
  for (const [i, cidr] of (input.allowedIps ?? []).entries()) {
    const problem = cidrProblem(cidr);
    if (problem) fail(`allowedIps.${i}`, problem, "format");
  }
  let expiresAt: string | null = null;
  if (input.expiresAt !== undefined) {
    const at = Date.parse(input.expiresAt);
    if (Number.isNaN(at) || !/^\d{4}-\d\d-\d\dT/.test(input.expiresAt))
      fail("expiresAt", "must be an ISO 8601 date-time", "format");
    else if (at <= now.getTime()) fail("expiresAt", "must be in the future", "minimum");
    else expiresAt = new Date(at).toISOString();
  }
  if (type === "publishable") {
    if (!input.allowedOrigins?.length)
      fail("allowedOrigins", "is required for publishable keys: the web origins of your forms", "required");
    for (const [i, origin] of (input.allowedOrigins ?? []).entries()) {
      const problem = originProblem(origin, mode);
      if (problem) fail(`allowedOrigins.${i}`, problem, "format");
    }
    if (input.permissions !== undefined)
      fail("permissions", "publishable keys work only on the widget endpoints; they take no permissions");
    if (input.allowedIps !== undefined)
      fail("allowedIps", "publishable keys are used from visitors' browsers; they take no IP list");
  } else {
    if (input.allowedOrigins !== undefined) fail("allowedOrigins", "only publishable keys take origins");
    if (input.widget !== undefined) fail("widget", "only publishable keys take widget settings");
  }
  if (errors.length > 0) return { ok: false, errors };
  const { captcha, ...limits } = input.widget ?? {};
  return {
    ok: true,
    policy: {
      type,
      mode,
      permissions: permissions as Permission[] | null,
      allowedIps: input.allowedIps ?? null,
      allowedOrigins: input.allowedOrigins?.map((o) => o.toLowerCase()) ?? null,
      expiresAt,
      widgetLimits: Object.keys(limits).length > 0 ? limits : null,
      captcha: captcha ?? null,
    },
  };
}

export interface PolicyColumns {
  type: string;
  mode: string;
  permissions: string | null;
  allowed_ips: string | null;
  allowed_origins: string | null;
  expires_at: string | null;
  widget_settings: string | null;
}

const json = (value: unknown) => (value === null ? null : JSON.stringify(value));
const parsed = <T>(text: string | null): T | null => (text === null ? null : (JSON.parse(text) as T));

export function policyColumns(policy: KeyPolicy): PolicyColumns {
  const settings =
    policy.widgetLimits || policy.captcha ? { limits: policy.widgetLimits, captcha: policy.captcha } : null;
  return {
    type: policy.type,
    mode: policy.mode,
    permissions: json(policy.permissions),
    allowed_ips: json(policy.allowedIps),
    allowed_origins: json(policy.allowedOrigins),
    expires_at: policy.expiresAt,
    widget_settings: json(settings),
  };
}

export function policyOfRow(row: PolicyColumns): KeyPolicy {
  const settings = parsed<{ limits: Partial<WidgetLimits> | null; captcha: CaptchaProvider | null }>(
    row.widget_settings,
  );
  return {
    type: row.type === "publishable" ? "publishable" : "secret",
    mode: row.mode === "test" ? "test" : "live",
    permissions: parsed<Permission[]>(row.permissions),
    allowedIps: parsed<string[]>(row.allowed_ips),
    allowedOrigins: parsed<string[]>(row.allowed_origins),
    expiresAt: row.expires_at,
    widgetLimits: settings?.limits ?? null,
    captcha: settings?.captcha ?? null,
  };
}
