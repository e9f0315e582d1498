// Test mode in the dashboard (ADR 0054): the test view of an account (`<account>~test`, the data
// its test-mode keys see), the switch that opens and leaves it, and the banner every page shows
// while test data is on screen, so scripted answers are never read as verdicts on real addresses.
import type { ReactNode } from "react";

const TEST_SUFFIX = "~test";

/** Whether the account on screen is a test data space. */
export const isTestSpace = (accountId: string | null | undefined): boolean =>
  typeof accountId === "string" && accountId.endsWith(TEST_SUFFIX);

/** The live account a data space belongs to (itself when live). */
export const liveAccountOf = (accountId: string): string =>
  isTestSpace(accountId) ? accountId.slice(0, -TEST_SUFFIX.length) : accountId;

export const testSpaceOf = (accountId: string): string => `${liveAccountOf(accountId)}${TEST_SUFFIX}`;

export function TestModeBanner({ children, testId }: { children: ReactNode; testId?: string }) {
  return (
    <div className="banner test-mode" role="note" data-testid={testId ?? "test-mode-banner"}>
      <strong>Test mode.</strong> {children}
    </div>
  );
}

/** The header's switch between an account's live data and its test data. */
export function TestViewSwitch({
  accountId,
  onSwitch,
}: {
  accountId: string;
  onSwitch(accountId: string): void;
}) {
  const testing = isTestSpace(accountId);
  return (
    <button
      type="button"
      className={testing ? "test-view-switch on" : "test-view-switch"}
      aria-pressed={testing}
      data-testid="test-view-switch"
      title={testing ? "Back to your live data" : "See the data your test-mode keys made"}
      onClick={() => onSwitch(testing ? liveAccountOf(accountId) : testSpaceOf(accountId))}
    >
      Test data
    </button>
  );
}
