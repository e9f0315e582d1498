// Erasing a person: their email, then the word ERASE typed to confirm, because nothing brings the
// data back. The server removes every lead with that mailbox and every copy of its data.
import { type FormEvent, useState } from "react";
import type { PersonErasure } from "../../../sdk/src/api-types.js";
import { useApi } from "../api.js";
import { ErrorMessage, formatNumber } from "../components/ui.js";

const ERASE_WORD = "ERASE";

/** What an erasure removes, in the words the confirmation and the result use. */
export const ERASURE_REACH =
  "the lead, its place in the search index, its batch items (kept only as counts), its events, webhook deliveries, job payloads, one-off checks and stored exports";

export function ErasePerson() {
  const { client, guard } = useApi();
  const [email, setEmail] = useState("");
  const [typed, setTyped] = useState("");
  const [error, setError] = useState<unknown>(null);
  const [result, setResult] = useState<PersonErasure | null>(null);
  const [busy, setBusy] = useState(false);

  const submit = async (event: FormEvent) => {
    event.preventDefault();
    if (typed !== ERASE_WORD) return;
    setBusy(true);
    setError(null);
    setResult(null);
    try {
      setResult(await guard(client.privacy.erasePerson(email.trim())));
      setEmail("");
      setTyped("");
    } catch (e) {
      setError(e);
    } finally {
      setBusy(false);
    }
  };
  const removed = (result?.leads ?? []).reduce(
    (sum, lead) => sum + Object.values(lead.removed ?? {}).reduce((a, b) => a + b, 0),
    0,
  );
  return (
    <section className="panel danger-zone" aria-labelledby="erase-title">
      <h2 id="erase-title">Erase a person</h2>
      <p>
        Removes, for every lead with this email (aliases folded, archived leads too), {ERASURE_REACH}. A
        tombstone keeps only a keyed hash of the address. This cannot be undone.
      </p>
      <form onSubmit={submit} className="settings-form" data-testid="erase-form">
        <label>
          Email
          <input
            type="text"
            inputMode="email"
            autoComplete="off"
            required
            value={email}
            onChange={(e) => setEmail(e.target.value)}
            data-testid="erase-email"
          />
        </label>
        <label>
          Type {ERASE_WORD} to confirm
          <input
            autoComplete="off"
            value={typed}
            onChange={(e) => setTyped(e.target.value)}
            data-testid="erase-confirm"
          />
        </label>
        <button
          type="submit"
          className="danger"
          disabled={busy || typed !== ERASE_WORD || email.trim() === ""}
          data-testid="erase-submit"
        >
          {busy ? "Erasing…" : "Erase this person"}
        </button>
      </form>
      <ErrorMessage error={error} title="Nothing erased." />
      {result ? (
        <p role="status" className="ok" data-testid="erase-result">
          Erased {result.email}: {formatNumber(result.leads.length)}{" "}
          {result.leads.length === 1 ? "lead" : "leads"}
          {result.leads.some((l) => l.already_erased) ? " (some already erased before)" : ""},{" "}
          {formatNumber(removed)} records removed in all.
        </p>
      ) : null}
    </section>
  );
}
