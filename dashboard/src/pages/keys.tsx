// API keys: create (the key is shown once, with a copy button), list with partial keys and last
// use, revoke after a confirmation. Key management needs an identity sign-in: with an API key the
// API answers 403, so the page says so instead of offering forms that cannot work.
import { type FormEvent, useState } from "react";
import type { ApiKeyList, CreatedApiKey } from "../../../sdk/src/api-types.js";
import { useApi, useLoader } from "../api.js";
import { DataTable } from "../components/data-table.js";
import { ConfirmDialog, Empty, ErrorMessage, formatDate, Loading, SecretField } from "../components/ui.js";

type KeySummary = ApiKeyList["keys"][number];

export function KeysPage() {
  const { session } = useApi();
  return (
    <section aria-labelledby="keys-title">
      <h1 id="keys-title">API keys</h1>
      {session.kind === "api_key" ? (
        <div className="info" role="note" data-testid="keys-need-identity">
          <p>
            <strong>Managing API keys needs an identity sign-in.</strong> You signed in with an API key, and
            an API key cannot create, list or revoke keys (the API answers 403).
          </p>
          <p>Sign out, then sign in with a sign-in link or a token from your identity provider.</p>
        </div>
      ) : (
        <Keys />
      )}
    </section>
  );
}

function Keys() {
  const { client, guard } = useApi();
  const keys = useLoader((_api, signal) => client.keys.list({ signal }), []);
  const [created, setCreated] = useState<CreatedApiKey | null>(null);
  const [revoking, setRevoking] = useState<KeySummary | null>(null);
  const [actionError, setActionError] = useState<unknown>(null);
  const [status, setStatus] = useState("");

  const revoke = async () => {
    const key = revoking;
    setRevoking(null);
    if (!key) return;
    setActionError(null);
    try {
      await guard(client.keys.revoke(key.key_id));
      setStatus(`Key “${key.name}” revoked: requests with it are refused from now on.`);
      keys.reload();
    } catch (e) {
      setActionError(e);
    }
  };

  return (
    <>
      <CreateKey
        onCreated={(key) => {
          setCreated(key);
          setStatus("");
          keys.reload();
        }}
      />
      {created ? (
        <div className="panel success" data-testid="created-key">
          <h2>Your new key “{created.name}”</h2>
          <p className="warning" role="alert">
            Copy this key now and keep it somewhere safe: it is shown only this once.
          </p>
          <SecretField label="API key" value={created.api_key} testId="new-key-value" />
          <button type="button" onClick={() => setCreated(null)}>
            I have stored it
          </button>
        </div>
      ) : null}
      <p role="status" data-testid="keys-status">
        {status}
      </p>
      <ErrorMessage error={actionError} />
      <h2>Your keys</h2>
      {keys.error ? <ErrorMessage error={keys.error} /> : null}
      {keys.loading && !keys.data ? <Loading what="keys" /> : null}
      {keys.data && keys.data.keys.length === 0 ? (
        <Empty title="No API keys yet.">Create one above to call the API from your code or the CLI.</Empty>
      ) : null}
      {keys.data && keys.data.keys.length > 0 ? (
        <DataTable
          label="Your API keys"
          rows={keys.data.keys}
          rowKey={(key) => key.key_id}
          testId="keys-table"
          rowTestId="key-row"
          columns={[
            {
              key: "name",
              header: "Name",
              primary: true,
              sortValue: (key) => key.name.toLowerCase(),
              cell: (key) => (
                <>
                  <strong>{key.name}</strong>
                  {key.description ? <div className="muted">{key.description}</div> : null}
                </>
              ),
            },
            { key: "key", header: "Key", cell: (key) => <code>{key.partial_key}</code> },
            {
              key: "created",
              header: "Created",
              sortValue: (key) => key.created_at,
              cell: (key) => formatDate(key.created_at),
            },
            {
              key: "lastUsed",
              header: "Last used",
              sortValue: (key) => key.last_used ?? null,
              cell: (key) => (key.last_used ? formatDate(key.last_used) : "never"),
            },
          ]}
          actions={(key) => (
            <button
              type="button"
              className="danger"
              onClick={() => setRevoking(key)}
              aria-label={`Revoke ${key.name}`}
            >
              Revoke
            </button>
          )}
        />
      ) : null}
      <ConfirmDialog
        open={revoking !== null}
        title="Revoke this API key?"
        confirmLabel="Revoke key"
        onConfirm={revoke}
        onCancel={() => setRevoking(null)}
      >
        <p>
          “{revoking?.name}” (<code>{revoking?.partial_key}</code>) stops working on its next request. This
          cannot be undone.
        </p>
      </ConfirmDialog>
    </>
  );
}

function CreateKey({ onCreated }: { onCreated(key: CreatedApiKey): void }) {
  const { client, guard } = useApi();
  const [name, setName] = useState("");
  const [description, setDescription] = useState("");
  const [error, setError] = useState<unknown>(null);
  const [busy, setBusy] = useState(false);

  const submit = async (event: FormEvent) => {
    event.preventDefault();
    setBusy(true);
    setError(null);
    try {
      const key = await guard(
        client.keys.create({
          name: name.trim(),
          ...(description.trim() ? { description: description.trim() } : {}),
        }),
      );
      setName("");
      setDescription("");
      onCreated(key);
    } catch (e) {
      setError(e);
    } finally {
      setBusy(false);
    }
  };

  return (
    <form onSubmit={submit} className="inline-form" data-testid="create-key-form">
      <h2>Create a key</h2>
      <label>
        Name
        <input required value={name} onChange={(e) => setName(e.target.value)} placeholder="my laptop" />
      </label>
      <label>
        Description (optional)
        <input value={description} onChange={(e) => setDescription(e.target.value)} />
      </label>
      <button type="submit" disabled={busy}>
        {busy ? "Creating…" : "Create key"}
      </button>
      <ErrorMessage error={error} />
    </form>
  );
}
