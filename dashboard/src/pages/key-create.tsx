// The create-key form: secret keys with permissions, allowed IPs and an expiry; publishable keys
// with their origins (an editor that names each origin's problem as the API would) and test mode.
import { type FormEvent, useId, useState } from "react";
import type { ApiKeyCreateInput, CreatedApiKey } from "../../../sdk/src/api-types.js";
import { useApi } from "../api.js";
import { ErrorMessage } from "../components/ui.js";
import { cidrProblem, type KeyMode, originProblem, PERMISSION_LABELS, PERMISSIONS } from "../key-rules.js";
import { useMe } from "../me.js";
import { isTestSpace } from "./test-mode.js";

type KeyType = "secret" | "publishable";

const lines = (text: string) =>
  text
    .split(/[\n,]/)
    .map((l) => l.trim())
    .filter(Boolean);

export function CreateKey({ onCreated }: { onCreated(key: CreatedApiKey): void }) {
  const { client, guard } = useApi();
  const me = useMe();
  const [name, setName] = useState("");
  const [description, setDescription] = useState("");
  const [type, setType] = useState<KeyType>("secret");
  // In the test view a new key starts as a test key: it sees the data on screen.
  const defaultMode: KeyMode = isTestSpace(me.accountId) ? "test" : "live";
  const [mode, setMode] = useState<KeyMode>(defaultMode);
  const [origins, setOrigins] = useState<string[]>([]);
  const [allPermissions, setAllPermissions] = useState(true);
  const [permissions, setPermissions] = useState<Set<string>>(new Set());
  const [ips, setIps] = useState("");
  const [expires, setExpires] = useState("");
  const [error, setError] = useState<unknown>(null);
  const [busy, setBusy] = useState(false);
  const ipsId = useId();

  const secret = type === "secret";
  const ipProblems = secret ? lines(ips).map((ip) => [ip, cidrProblem(ip)] as const) : [];
  const originProblems = secret ? [] : origins.map((o) => originProblem(o, mode));
  const expiresAt = secret && expires ? new Date(expires) : null;
  const expiryProblem =
    expiresAt && (Number.isNaN(expiresAt.getTime()) || expiresAt.getTime() <= Date.now())
      ? "must be in the future"
      : null;
  const problems = [
    ...ipProblems.filter(([, p]) => p),
    ...originProblems.filter(Boolean),
    ...(expiryProblem ? [expiryProblem] : []),
    ...(!secret && origins.length === 0 ? ["origins"] : []),
    ...(secret && !allPermissions && permissions.size === 0 ? ["permissions"] : []),
  ];

  const submit = async (event: FormEvent) => {
    event.preventDefault();
    if (problems.length > 0) return;
    setBusy(true);
    setError(null);
    const input: ApiKeyCreateInput = {
      name: name.trim(),
      type,
      mode,
      ...(description.trim() ? { description: description.trim() } : {}),
      ...(secret && !allPermissions ? { permissions: [...permissions] } : {}),
      ...(secret && lines(ips).length > 0 ? { allowedIps: lines(ips) } : {}),
      ...(expiresAt ? { expiresAt: expiresAt.toISOString() } : {}),
      ...(!secret ? { allowedOrigins: origins } : {}),
    };
    try {
      const key = await guard(client.keys.create(input));
      setName("");
      setDescription("");
      setOrigins([]);
      setIps("");
      setExpires("");
      // Each key's mode is a choice of its own: the next one starts from the default again.
      setMode(defaultMode);
      onCreated(key);
    } catch (e) {
      setError(e);
    } finally {
      setBusy(false);
    }
  };

  return (
    <form onSubmit={submit} className="panel key-form" data-testid="create-key-form" noValidate>
      <h2>Create a key</h2>
      <fieldset className="choice-row">
        <legend>Type</legend>
        <label>
          <input type="radio" name="key-type" checked={secret} onChange={() => setType("secret")} />
          Secret (<code>sk_</code>): for your server, the CLI and the SDK
        </label>
        <label>
          <input
            type="radio"
            name="key-type"
            checked={!secret}
            onChange={() => setType("publishable")}
            data-testid="type-publishable"
          />
          Publishable (<code>pk_</code>): for the signup-form widget in visitors' browsers
        </label>
      </fieldset>
      <label>
        Name
        <input required value={name} onChange={(e) => setName(e.target.value)} placeholder="my laptop" />
      </label>
      <label>
        Description (optional)
        <input value={description} onChange={(e) => setDescription(e.target.value)} />
      </label>
      <label className="check">
        <input
          type="checkbox"
          checked={mode === "test"}
          onChange={(e) => setMode(e.target.checked ? "test" : "live")}
          data-testid="test-mode"
        />
        Test mode: its own empty data space, scripted answers from magic inputs, no network, never charged
      </label>
      {mode === "test" ? (
        <p className="hint" data-testid="test-mode-hint">
          A test key has the same format as a live one; switch to production by changing the key. What it
          makes shows under “Test data” in the header.
        </p>
      ) : null}
      {secret ? (
        <>
          <fieldset data-testid="permissions">
            <legend>Permissions</legend>
            <label className="check">
              <input
                type="checkbox"
                checked={allPermissions}
                onChange={(e) => setAllPermissions(e.target.checked)}
                data-testid="all-permissions"
              />
              Every permission (also those added later)
            </label>
            {allPermissions
              ? null
              : PERMISSIONS.map((p) => (
                  <label className="check" key={p}>
                    <input
                      type="checkbox"
                      value={p}
                      checked={permissions.has(p)}
                      onChange={(e) => {
                        const next = new Set(permissions);
                        if (e.target.checked) next.add(p);
                        else next.delete(p);
                        setPermissions(next);
                      }}
                    />
                    <code>{p}</code> {PERMISSION_LABELS[p]}
                  </label>
                ))}
            {!allPermissions && permissions.size === 0 ? (
              <p className="field-problem">Choose at least one permission.</p>
            ) : null}
          </fieldset>
          <label htmlFor={ipsId}>Allowed IP addresses (optional; one address or CIDR block a line)</label>
          <textarea
            id={ipsId}
            rows={3}
            value={ips}
            onChange={(e) => setIps(e.target.value)}
            placeholder={"203.0.113.0/24\n2001:db8::/32"}
            data-testid="allowed-ips"
          />
          <ul className="field-problems" data-testid="ip-problems">
            {ipProblems
              .filter(([, p]) => p)
              .map(([ip, p]) => (
                <li key={ip} className="field-problem">
                  <code>{ip}</code> {p}
                </li>
              ))}
          </ul>
          <label>
            Expires (optional)
            <input
              type="datetime-local"
              value={expires}
              onChange={(e) => setExpires(e.target.value)}
              data-testid="expires"
            />
          </label>
          {expiryProblem ? <p className="field-problem">Expiry {expiryProblem}.</p> : null}
        </>
      ) : (
        <OriginsEditor origins={origins} problems={originProblems} onChange={setOrigins} />
      )}
      <button type="submit" disabled={busy || problems.length > 0 || !name.trim()}>
        {busy ? "Creating…" : secret ? "Create secret key" : "Create publishable key"}
      </button>
      <ErrorMessage error={error} />
    </form>
  );
}

function OriginsEditor(props: {
  origins: string[];
  problems: (string | null)[];
  onChange(next: string[]): void;
}) {
  const [draft, setDraft] = useState("");
  const add = () => {
    const origin = draft.trim().replace(/\/+$/, "");
    if (!origin || props.origins.includes(origin)) return;
    props.onChange([...props.origins, origin]);
    setDraft("");
  };
  return (
    <fieldset data-testid="origins-editor">
      <legend>Allowed origins (where your signup forms live)</legend>
      {props.origins.length === 0 ? (
        <p className="field-problem">Add at least one origin: publishable keys work only from them.</p>
      ) : null}
      <ul className="origin-list">
        {props.origins.map((origin, i) => (
          <li key={origin} data-testid="origin">
            <code>{origin}</code>
            <button
              type="button"
              className="link-button"
              onClick={() => props.onChange(props.origins.filter((o) => o !== origin))}
              aria-label={`Remove ${origin}`}
            >
              Remove
            </button>
            {props.problems[i] ? (
              <span className="field-problem" data-testid="origin-problem">
                {props.problems[i]}
              </span>
            ) : null}
          </li>
        ))}
      </ul>
      <div className="search-row">
        <label>
          Origin
          <input
            value={draft}
            onChange={(e) => setDraft(e.target.value)}
            onKeyDown={(e) => {
              if (e.key === "Enter") {
                e.preventDefault();
                add();
              }
            }}
            placeholder="https://www.example.com"
            data-testid="origin-input"
          />
        </label>
        <button type="button" onClick={add}>
          Add origin
        </button>
      </div>
    </fieldset>
  );
}
