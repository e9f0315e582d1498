// API keys: create (the key is shown once, with a copy button; publishable keys with their widget
// snippet), list with type, mode, permissions, origins, IPs, expiry and last use, revoke after a
// confirmation. Key management needs an identity sign-in: with an API key the
// API answers 403, so the page says so instead of offering forms that cannot work.
import { useState } from "react";
import type { ApiKeyList, CreatedApiKey } from "../../../sdk/src/api-types.js";
import { useApi, useLoader } from "../api.js";
import { DataTable } from "../components/data-table.js";
import { ConfirmDialog, Empty, ErrorMessage, formatDate, Loading, SecretField } from "../components/ui.js";
import { widgetSnippet } from "../key-rules.js";
import { useMe } from "../me.js";
import { CreateKey } from "./key-create.js";
import { isTestSpace, TestModeBanner } from "./test-mode.js";

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
  const me = useMe();
  const keys = useLoader((_api, signal) => client.keys.list({ signal }), []);
  const [created, setCreated] = useState<CreatedApiKey | null>(null);
  const [revoking, setRevoking] = useState<KeySummary | null>(null);
  const [actionError, setActionError] = useState<unknown>(null);
  const [status, setStatus] = useState("");
  const [snippetOf, setSnippetOf] = useState<KeySummary | null>(null);
  const testKeys = keys.data?.keys.filter((key) => key.mode === "test") ?? [];

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
          {created.type === "publishable" ? (
            <>
              <p>Put this tag in the page of your signup form; it checks the email field as visitors type.</p>
              <SecretField
                label="Widget snippet"
                value={widgetSnippet(window.location.origin, created.api_key)}
                testId="new-key-snippet"
              />
            </>
          ) : null}
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
      {isTestSpace(me.accountId) ? (
        <p className="muted" data-testid="keys-whole-account">
          Keys belong to the whole account: live and test keys are listed together, in the test view too.
        </p>
      ) : null}
      {testKeys.length > 0 ? (
        <TestModeBanner>
          {testKeys.length === 1 ? "One key below is" : `${testKeys.length} keys below are`} in test mode:
          they get scripted answers, never reach the network and are never charged. Their results are test
          data, not verdicts on real addresses.
        </TestModeBanner>
      ) : null}
      {snippetOf?.api_key ? (
        <div className="panel" data-testid="key-snippet">
          <h3>Widget snippet for “{snippetOf.name}”</h3>
          <SecretField
            label="Snippet"
            value={widgetSnippet(window.location.origin, snippetOf.api_key)}
            testId="snippet-value"
          />
          <button type="button" onClick={() => setSnippetOf(null)}>
            Close
          </button>
        </div>
      ) : null}
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
            {
              key: "type",
              header: "Type",
              sortValue: (key) => key.type,
              cell: (key) => (
                <>
                  <code>{key.partial_key}</code>{" "}
                  <span className="badge tone-info">
                    {key.type === "publishable" ? "publishable" : "secret"}
                  </span>
                </>
              ),
            },
            {
              key: "mode",
              header: "Mode",
              sortValue: (key) => key.mode,
              cell: (key) =>
                key.mode === "test" ? <span className="badge tone-warn">test</span> : <span>live</span>,
            },
            { key: "access", header: "Access", cell: (key) => <KeyAccess keyInfo={key} /> },
            {
              key: "expires",
              header: "Expires",
              sortValue: (key) => key.expiresAt ?? null,
              cell: (key) =>
                key.expiresAt ? (
                  <>
                    {formatDate(key.expiresAt)}
                    {Date.parse(key.expiresAt) <= Date.now() ? (
                      <span className="badge tone-bad">expired</span>
                    ) : null}
                  </>
                ) : (
                  "never"
                ),
            },
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
            <>
              {key.api_key ? (
                <button
                  type="button"
                  onClick={() => setSnippetOf(key)}
                  aria-label={`Snippet for ${key.name}`}
                >
                  Snippet
                </button>
              ) : null}
              <button
                type="button"
                className="danger"
                onClick={() => setRevoking(key)}
                aria-label={`Revoke ${key.name}`}
              >
                Revoke
              </button>
            </>
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

/** What a key may do and from where: permissions and IPs (secret), origins (publishable). */
function KeyAccess({ keyInfo: key }: { keyInfo: KeySummary }) {
  if (key.type === "publishable")
    return (
      <div data-testid="key-origins">
        <span className="muted">Widget only, from </span>
        {(key.allowedOrigins ?? []).map((o) => (
          <code key={o} className="tag">
            {o}
          </code>
        ))}
      </div>
    );
  return (
    <div data-testid="key-permissions">
      {key.permissions === null ? (
        <span>every permission</span>
      ) : (
        key.permissions.map((p) => (
          <code key={p} className="tag">
            {p}
          </code>
        ))
      )}
      <div className="muted">{key.allowedIps ? `from ${key.allowedIps.join(", ")}` : "from any address"}</div>
    </div>
  );
}
