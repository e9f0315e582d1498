// Who is signed in, in which account, with which role; and for a person in several accounts, a
// switcher between them (the choice is sent as X-Account-Id and kept across reloads).
import { useId } from "react";
import { useApi } from "../api.js";
import { ROLE_TEXT, useMe } from "../me.js";
import { isTestSpace, liveAccountOf, testSpaceOf } from "../pages/test-mode.js";

export function AccountSwitcher({ onSwitch }: { onSwitch(accountId: string): void }) {
  const me = useMe();
  const { session } = useApi();
  const id = useId();
  const who = me.member?.email ?? me.member?.subject ?? (session.kind === "api_key" ? "API key" : null);
  return (
    <>
      <span data-testid="signed-in-as" className="signed-in-as">
        {me.accounts.length > 1 ? null : liveAccountOf(me.accountId)}
        {who && who !== liveAccountOf(me.accountId) ? <span className="muted"> {who}</span> : null}
        {me.role ? (
          <span className="badge" data-testid="my-role" title={ROLE_TEXT[me.role]}>
            {me.role}
          </span>
        ) : null}
      </span>
      {me.accounts.length > 1 ? (
        <span className="account-switcher">
          <label htmlFor={id}>Account</label>
          <select
            id={id}
            data-testid="account-switcher"
            value={liveAccountOf(me.accountId)}
            // The test view follows to the other account's test data.
            onChange={(event) =>
              onSwitch(isTestSpace(me.accountId) ? testSpaceOf(event.target.value) : event.target.value)
            }
          >
            {me.accounts.map((account) => (
              <option key={account.accountId} value={account.accountId}>
                {account.accountId} ({account.role})
              </option>
            ))}
          </select>
        </span>
      ) : null}
    </>
  );
}
