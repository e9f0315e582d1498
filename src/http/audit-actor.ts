// Who made a request, as the audit log records it: the key for API keys, the member (the identity's
// member id, mem_...) for bearer tokens and dashboard sessions, the admin token for admin routes; with the client's address and agent.
import type { FastifyRequest } from "fastify";
import type { AuditActor } from "../audit/audit.service.js";
import { principalOf } from "./auth.js";

export function auditActorOf(request: FastifyRequest): AuditActor {
  const principal = principalOf(request);
  const where = { ip: request.ip, userAgent: request.headers["user-agent"] ?? null };
  if (principal.via === "api_key" && principal.keyId) return { kind: "key", id: principal.keyId, ...where };
  if (principal.via === "admin") return { kind: "admin", id: "admin", ...where };
  return { kind: "member", id: principal.member?.memberId ?? principal.accountId, ...where };
}
