// Failures that mean a backing service (PostgreSQL) cannot be reached right now, as opposed to a
// bug: the request may succeed if retried in a moment, so the API answers 503, not 500.

/** PostgreSQL SQLSTATEs of a connection that is gone or cannot be made right now. */
const UNAVAILABLE_SQLSTATES = new Set([
  "57P01", // admin_shutdown: the server is stopping (fast shutdown, restart)
  "57P02", // crash_shutdown
  "57P03", // cannot_connect_now: starting up or shutting down
  "53300", // too_many_connections
]);

/** Socket errors of the connection to the database server. */
const UNAVAILABLE_SOCKET_CODES = new Set([
  "ECONNREFUSED",
  "ECONNRESET",
  "EPIPE",
  "ETIMEDOUT",
  "EHOSTUNREACH",
]);

/** node-postgres and pg-pool report lost or impossible connections with these messages. */
const UNAVAILABLE_MESSAGES = [
  /^Connection terminated/,
  /^timeout exceeded when trying to connect/,
  /is not queryable/,
  /^Client was closed and is not queryable/,
];

export function isBackendUnavailable(error: unknown): boolean {
  if (typeof error !== "object" || error === null) return false;
  const { code, message } = error as { code?: unknown; message?: unknown };
  if (typeof code === "string") {
    if (UNAVAILABLE_SQLSTATES.has(code) || code.startsWith("08")) return true;
    if (UNAVAILABLE_SOCKET_CODES.has(code)) return true;
  }
  if (typeof message === "string" && UNAVAILABLE_MESSAGES.some((re) => re.test(message))) return true;
  // AggregateError (a connect to several addresses that all failed) and wrapped causes.
  const { errors, cause } = error as { errors?: unknown; cause?: unknown };
  if (Array.isArray(errors) && errors.length > 0 && errors.every(isBackendUnavailable)) return true;
  return cause !== undefined && cause !== error && isBackendUnavailable(cause);
}
