// The verdict on a server certificate once the handshake is done: chain (Node's verification, which
// also checked the host name through the connection's checkServerIdentity), validity dates and the
// name the client meant to reach (a host name, or the address of an IP-literal URL).
import { checkServerIdentity, type PeerCertificate, type TLSSocket } from "node:tls";

type TlsProblem =
  | "expired"
  | "not_yet_valid"
  | "self_signed"
  | "hostname_mismatch"
  | "untrusted_chain"
  | "handshake_failed"
  | "other";

export interface TlsInfo {
  valid: boolean;
  problem: TlsProblem | null;
  /** OpenSSL or Node code behind the problem, for operators. */
  detail: string | null;
  issuer: string | null;
  subject: string | null;
  validFrom: string | null;
  validTo: string | null;
  /** Whole days until notAfter; negative once expired. */
  daysToExpiry: number | null;
  protocol: string | null;
}

const CHAIN_PROBLEMS: Record<string, TlsProblem> = {
  CERT_HAS_EXPIRED: "expired",
  CERT_NOT_YET_VALID: "not_yet_valid",
  DEPTH_ZERO_SELF_SIGNED_CERT: "self_signed",
  SELF_SIGNED_CERT_IN_CHAIN: "untrusted_chain",
  UNABLE_TO_VERIFY_LEAF_SIGNATURE: "untrusted_chain",
  UNABLE_TO_GET_ISSUER_CERT_LOCALLY: "untrusted_chain",
  UNABLE_TO_GET_ISSUER_CERT: "untrusted_chain",
  CERT_UNTRUSTED: "untrusted_chain",
  ERR_TLS_CERT_ALTNAME_INVALID: "hostname_mismatch",
};

/** The certificate verdict: chain (Node's own verification), validity dates and host name. */
export function describeCertificate(socket: TLSSocket, host: string): TlsInfo {
  const cert = socket.getPeerCertificate(false) as PeerCertificate | Record<string, never>;
  const hasCert = "valid_to" in cert && Boolean(cert.valid_to);
  const validTo = hasCert ? new Date(cert.valid_to) : null;
  const validFrom = hasCert ? new Date(cert.valid_from) : null;
  const now = Date.now();
  let problem: TlsProblem | null = null;
  let detail: string | null = null;
  if (!hasCert) [problem, detail] = ["other", "no peer certificate"];
  else if (validTo && validTo.getTime() < now) [problem, detail] = ["expired", "CERT_HAS_EXPIRED"];
  else if (!socket.authorized) {
    detail = String(socket.authorizationError ?? "unknown");
    problem = CHAIN_PROBLEMS[detail] ?? "other";
  } else if (checkServerIdentity(host, cert as PeerCertificate)) {
    // Node checks the name only after a good chain and only against its own idea of the host.
    [problem, detail] = ["hostname_mismatch", "ERR_TLS_CERT_ALTNAME_INVALID"];
  }
  return {
    valid: problem === null,
    problem,
    detail,
    issuer: hasCert ? distinguishedName(cert.issuer) : null,
    subject: hasCert ? distinguishedName(cert.subject) : null,
    validFrom: validFrom ? validFrom.toISOString() : null,
    validTo: validTo ? validTo.toISOString() : null,
    daysToExpiry: validTo ? Math.floor((validTo.getTime() - now) / 86_400_000) : null,
    protocol: socket.getProtocol(),
  };
}

function distinguishedName(name: PeerCertificate["issuer"] | undefined): string | null {
  if (!name) return null;
  const parts = (["CN", "O", "C"] as const).filter((k) => name[k]).map((k) => `${k}=${name[k]}`);
  return parts.length > 0 ? parts.join(", ") : null;
}
