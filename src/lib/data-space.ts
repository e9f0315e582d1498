// Test mode's data space (issue 24, ADR 0051). Every account has a second, test-mode account: its
// "shadow", whose id is the live id plus `~test`. Test-mode keys act on the shadow, so whatever they
// create (leads, batches, webhooks, jobs, ledger, audit entries) is stored under another account
// id and is invisible to live keys, and the other way round, by the same account scoping every
// repository already applies. `~` is outside ACCOUNT_ID (identity.ts), so no identity, sign-in
// link or SSO subject can ever name a shadow: only a test-mode key reaches one.

const TEST_SUFFIX = "~test";

/** The test-mode data space of a live account. */
function testSpaceOf(liveAccountId: string): string {
  return isTestSpace(liveAccountId) ? liveAccountId : `${liveAccountId}${TEST_SUFFIX}`;
}

/** Whether an account id is a test-mode data space: its checks are scripted and never charged. */
export function isTestSpace(accountId: string | null | undefined): boolean {
  return typeof accountId === "string" && accountId.endsWith(TEST_SUFFIX);
}

/** The live account a data space belongs to (itself when live). */
export function liveAccountOf(accountId: string): string {
  return isTestSpace(accountId) ? accountId.slice(0, -TEST_SUFFIX.length) : accountId;
}

/** The account a key's requests act on: the shadow for test-mode keys, the key's own otherwise. */
export function dataSpaceOf(keyAccountId: string, mode: "live" | "test"): string {
  return mode === "test" ? testSpaceOf(keyAccountId) : keyAccountId;
}
