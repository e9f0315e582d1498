// Connecting HubSpot (a private-app token, pasted) or Google Sheets (a service account's JSON key,
// uploaded or pasted). The API verifies the credentials with the provider before storing them and
// never shows them again; the service account's email is shown here before connecting, since the
// sheet has to be shared with it.
import { type ChangeEvent, type FormEvent, useId, useState } from "react";
import type { Connection, ConnectionCreateInput } from "../../../sdk/src/api-types.js";
import { useApi } from "../api.js";
import { ErrorMessage } from "../components/ui.js";

type Kind = Connection["kind"];

/** The service account JSON as pasted: its object and client_email, or what is wrong with it. */
function readServiceAccount(
  text: string,
): { ok: true; value: Record<string, unknown>; email: string | null } | { ok: false; problem: string } {
  if (!text.trim()) return { ok: false, problem: "Paste or upload the JSON key of the service account." };
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return { ok: false, problem: "This is not JSON: upload the .json key file Google Cloud gave you." };
  }
  if (typeof value !== "object" || value === null || Array.isArray(value))
    return { ok: false, problem: "The key file should be one JSON object." };
  const record = value as Record<string, unknown>;
  if (record.type !== undefined && record.type !== "service_account")
    return {
      ok: false,
      problem: `This key is of type "${String(record.type)}"; a service account key is needed.`,
    };
  return {
    ok: true,
    value: record,
    email: typeof record.client_email === "string" ? record.client_email : null,
  };
}

export function ShareHint({ email }: { email: string }) {
  return (
    <p className="hint" data-testid="share-hint">
      Share your sheet with this address, as an <strong>Editor</strong> (verdicts are written back to it):{" "}
      <code data-testid="service-account-email">{email}</code>
    </p>
  );
}

export function ConnectForm({ onConnected }: { onConnected(connection: Connection): void }) {
  const { client, guard } = useApi();
  const [kind, setKind] = useState<Kind>("google_sheets");
  const [name, setName] = useState("");
  const [token, setToken] = useState("");
  const [json, setJson] = useState("");
  const [error, setError] = useState<unknown>(null);
  const [busy, setBusy] = useState(false);
  const jsonId = useId();
  const account = readServiceAccount(json);
  const ready = name.trim() !== "" && (kind === "hubspot" ? token.trim() !== "" : account.ok);

  const upload = async (event: ChangeEvent<HTMLInputElement>) => {
    const file = event.target.files?.[0];
    if (file) setJson(await file.text());
  };

  const submit = async (event: FormEvent) => {
    event.preventDefault();
    if (!ready) return;
    setBusy(true);
    setError(null);
    const input: ConnectionCreateInput =
      kind === "hubspot"
        ? { kind, name: name.trim(), accessToken: token.trim() }
        : { kind, name: name.trim(), serviceAccount: account.ok ? account.value : {} };
    try {
      const connection = await guard(client.connections.create(input));
      setName("");
      setToken("");
      setJson("");
      onConnected(connection);
    } catch (e) {
      setError(e);
    } finally {
      setBusy(false);
    }
  };

  return (
    <form onSubmit={submit} className="panel connection-form" data-testid="connect-form" noValidate>
      <h2>Connect</h2>
      <fieldset className="choice-row">
        <legend>Service</legend>
        <label>
          <input
            type="radio"
            name="connection-kind"
            checked={kind === "google_sheets"}
            onChange={() => setKind("google_sheets")}
            data-testid="kind-sheets"
          />
          Google Sheets (a service account's JSON key)
        </label>
        <label>
          <input
            type="radio"
            name="connection-kind"
            checked={kind === "hubspot"}
            onChange={() => setKind("hubspot")}
            data-testid="kind-hubspot"
          />
          HubSpot (a private app's access token)
        </label>
      </fieldset>
      <label>
        Name
        <input
          required
          value={name}
          onChange={(e) => setName(e.target.value)}
          placeholder={kind === "hubspot" ? "Sales HubSpot" : "Signup sheet"}
          data-testid="connection-name"
        />
      </label>
      {kind === "hubspot" ? (
        <label>
          Private app access token (with scopes to read and write contacts and their properties, and to read
          lists)
          <input
            type="password"
            autoComplete="off"
            value={token}
            onChange={(e) => setToken(e.target.value)}
            placeholder="pat-eu1-…"
            data-testid="hubspot-token"
          />
        </label>
      ) : (
        <>
          <label>
            Service account key file (.json)
            <input type="file" accept="application/json,.json" onChange={upload} data-testid="sa-file" />
          </label>
          <label htmlFor={jsonId}>…or paste the key</label>
          <textarea
            id={jsonId}
            rows={4}
            value={json}
            onChange={(e) => setJson(e.target.value)}
            placeholder='{"type": "service_account", "client_email": "…", "private_key": "…"}'
            data-testid="sa-json"
          />
          {json && !account.ok ? <p className="field-problem">{account.problem}</p> : null}
          {account.ok && account.email ? <ShareHint email={account.email} /> : null}
        </>
      )}
      <button type="submit" disabled={busy || !ready}>
        {busy ? "Checking with the service…" : "Connect"}
      </button>
      <ErrorMessage error={error} />
    </form>
  );
}
