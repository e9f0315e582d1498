// "Stale" beside a verdict older than the re-validation schedule's age (olderThanDays): the
// schedule will validate it again; without a schedule nothing is called stale.
import { useApi, useLoader } from "../api.js";

const DAY_MS = 86_400_000;

/** The schedule's age in days, or null when re-validation is off (or not readable). */
export function useStaleAfterDays(): number | null {
  const { client } = useApi();
  const schedule = useLoader((_api, signal) => client.leads.revalidation({ signal }), []);
  return schedule.data?.olderThanDays ?? null;
}

function isStale(validatedAt: string | null, staleAfterDays: number | null, nowMs = Date.now()): boolean {
  if (validatedAt === null || staleAfterDays === null) return false;
  return nowMs - Date.parse(validatedAt) > staleAfterDays * DAY_MS;
}

export function StaleBadge({
  validatedAt,
  staleAfterDays,
}: {
  validatedAt: string | null;
  staleAfterDays: number | null;
}) {
  if (!isStale(validatedAt, staleAfterDays)) return null;
  return (
    <span
      className="badge tone-warn"
      data-testid="stale-badge"
      title={`Validated more than ${staleAfterDays} days ago; the re-validation schedule will check it again`}
    >
      stale
    </span>
  );
}
