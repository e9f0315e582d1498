// Webhooks: list, create (the signing secret is shown once), edit, delete after a confirmation;
// per webhook, the delivery log page by page and a "send test" button that shows the outcome.
import { type FormEvent, useState } from "react";
import type {
  CreatedWebhook,
  Webhook,
  WebhookCreateInput,
  WebhookEvent,
  WebhookTestResult,
} from "../../../sdk/src/api-types.js";
import { useApi, useLoader } from "../api.js";
import { Breakable } from "../components/breakable.js";
import { DataTable } from "../components/data-table.js";
import {
  ConfirmDialog,
  Empty,
  ErrorMessage,
  formatDate,
  formatNumber,
  Loading,
  Pager,
  SecretField,
} from "../components/ui.js";
import { labelOf, WEBHOOK_EVENTS } from "../labels.js";
import { useCan } from "../me.js";
import { Link, navigate } from "../router.js";

const EVENTS = Object.keys(WEBHOOK_EVENTS) as WebhookEvent[];

export function WebhooksPage({ selected }: { selected?: string }) {
  const { client, guard } = useApi();
  const list = useLoader((_api, signal) => client.webhooks.list({ signal }), []);
  const [editing, setEditing] = useState<Webhook | "new" | null>(null);
  const [secret, setSecret] = useState<{ name: string; secret: string } | null>(null);
  const [deleting, setDeleting] = useState<Webhook | null>(null);
  const [status, setStatus] = useState("");
  const [actionError, setActionError] = useState<unknown>(null);

  const remove = async () => {
    const hook = deleting;
    setDeleting(null);
    if (!hook) return;
    setActionError(null);
    try {
      await guard(client.webhooks.delete(hook.webhook_id));
      setStatus(`Webhook “${hook.name}” deleted.`);
      if (selected === hook.webhook_id) navigate("/webhooks");
      list.reload();
    } catch (e) {
      setActionError(e);
    }
  };
  const rotate = async (hook: Webhook) => {
    setActionError(null);
    try {
      const rotated = await guard(client.webhooks.rotateSecret(hook.webhook_id));
      setSecret({ name: hook.name, secret: rotated.secret });
    } catch (e) {
      setActionError(e);
    }
  };

  const canWrite = useCan()("webhooks:write");
  const hooks = list.data?.webhooks ?? [];
  const current = hooks.find((h) => h.webhook_id === selected);
  return (
    <section aria-labelledby="webhooks-title">
      <div className="title-row">
        <h1 id="webhooks-title">Webhooks</h1>
        {editing === null && canWrite ? (
          <button type="button" onClick={() => setEditing("new")}>
            Add a webhook
          </button>
        ) : null}
      </div>
      {editing !== null ? (
        <WebhookForm
          existing={editing === "new" ? null : editing}
          onDone={(saved) => {
            setEditing(null);
            if (saved && "secret" in saved) setSecret({ name: saved.name, secret: saved.secret });
            if (saved) setStatus(`Webhook “${saved.name}” saved.`);
            list.reload();
          }}
        />
      ) : null}
      {secret ? (
        <div className="panel success" data-testid="webhook-secret">
          <h2>Signing secret of “{secret.name}”</h2>
          <p className="warning" role="alert">
            Store this secret now: it is shown only this once. Verify each delivery's X-Webhook-Signature with
            it.
          </p>
          <SecretField label="Signing secret" value={secret.secret} testId="webhook-secret-value" />
          <button type="button" onClick={() => setSecret(null)}>
            I have stored it
          </button>
        </div>
      ) : null}
      <p role="status">{status}</p>
      <ErrorMessage error={actionError} />
      <ErrorMessage error={list.error} />
      {list.loading && !list.data ? <Loading what="webhooks" /> : null}
      {list.data && hooks.length === 0 ? (
        <Empty title="No webhooks yet.">
          Add one to be told when leads are validated, batches finish or credits run low.
        </Empty>
      ) : null}
      {hooks.length > 0 ? (
        <DataTable
          label="Webhooks"
          rows={hooks}
          rowKey={(hook) => hook.webhook_id}
          testId="webhooks-table"
          rowTestId="webhook-row"
          columns={[
            {
              key: "name",
              header: "Name",
              primary: true,
              sortValue: (hook) => hook.name.toLowerCase(),
              cell: (hook) => (
                <Link
                  to={`/webhooks/${encodeURIComponent(hook.webhook_id)}`}
                  aria-current={hook.webhook_id === selected ? "true" : undefined}
                >
                  {hook.name}
                </Link>
              ),
            },
            {
              key: "url",
              header: "URL",
              sortValue: (hook) => hook.url,
              cell: (hook) => <Breakable text={hook.url} className="url-cell" />,
            },
            {
              key: "events",
              header: "Events",
              cell: (hook) => hook.events.map((e) => labelOf(WEBHOOK_EVENTS, e)).join(", "),
            },
            {
              key: "active",
              header: "Active",
              sortValue: (hook) => (hook.active ? 0 : 1),
              cell: (hook) => (hook.active ? "yes" : "paused"),
            },
            {
              key: "deliveries",
              header: "Delivered / failed",
              className: "num",
              sortValue: (hook) => hook.delivery_stats.failed_deliveries,
              cell: (hook) =>
                `${formatNumber(hook.delivery_stats.successful_deliveries)} / ${formatNumber(hook.delivery_stats.failed_deliveries)}`,
            },
          ]}
          actions={(hook) =>
            canWrite ? (
              <>
                <button type="button" onClick={() => setEditing(hook)} aria-label={`Edit ${hook.name}`}>
                  Edit
                </button>
                <button type="button" onClick={() => rotate(hook)} aria-label={`New secret for ${hook.name}`}>
                  New secret
                </button>
                <button
                  type="button"
                  className="danger"
                  onClick={() => setDeleting(hook)}
                  aria-label={`Delete ${hook.name}`}
                >
                  Delete
                </button>
              </>
            ) : null
          }
        />
      ) : null}
      {selected && list.data && !current ? (
        <p className="alert">That webhook does not exist (any more).</p>
      ) : null}
      {current ? <Deliveries key={current.webhook_id} hook={current} onTested={list.reload} /> : null}
      <ConfirmDialog
        open={deleting !== null}
        title="Delete this webhook?"
        confirmLabel="Delete webhook"
        onConfirm={remove}
        onCancel={() => setDeleting(null)}
      >
        <p>“{deleting?.name}” stops receiving events at once, and its delivery log goes with it.</p>
      </ConfirmDialog>
    </section>
  );
}

function WebhookForm({
  existing,
  onDone,
}: {
  existing: Webhook | null;
  onDone(saved: Webhook | CreatedWebhook | null): void;
}) {
  const { client, guard } = useApi();
  const [name, setName] = useState(existing?.name ?? "");
  const [url, setUrl] = useState(existing?.url ?? "");
  const [description, setDescription] = useState(existing?.description ?? "");
  const [events, setEvents] = useState<string[]>(existing?.events ?? ["batch.complete"]);
  const [active, setActive] = useState(existing?.active ?? true);
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<unknown>(null);

  const submit = async (event: FormEvent) => {
    event.preventDefault();
    setBusy(true);
    setError(null);
    const input = {
      name: name.trim(),
      url: url.trim(),
      events: events as WebhookCreateInput["events"],
      active,
      description: description.trim() || null,
    };
    try {
      onDone(
        await guard(
          existing ? client.webhooks.update(existing.webhook_id, input) : client.webhooks.create(input),
        ),
      );
    } catch (e) {
      setError(e);
      setBusy(false);
    }
  };
  const toggle = (value: string) =>
    setEvents((list) => (list.includes(value) ? list.filter((e) => e !== value) : [...list, value]));

  return (
    <form onSubmit={submit} className="panel" data-testid="webhook-form" aria-label="Webhook">
      <h2>{existing ? `Edit “${existing.name}”` : "Add a webhook"}</h2>
      <label>
        Name
        <input required value={name} onChange={(e) => setName(e.target.value)} />
      </label>
      <label>
        Endpoint URL
        <input
          required
          type="url"
          value={url}
          onChange={(e) => setUrl(e.target.value)}
          placeholder="https://…"
        />
      </label>
      <label>
        Description (optional)
        <input value={description} onChange={(e) => setDescription(e.target.value)} />
      </label>
      <fieldset>
        <legend>Events</legend>
        <div className="event-grid">
          {EVENTS.map((value) => (
            <label key={value} className="check">
              <input type="checkbox" checked={events.includes(value)} onChange={() => toggle(value)} />{" "}
              {WEBHOOK_EVENTS[value]} <code className="muted">{value}</code>
            </label>
          ))}
        </div>
      </fieldset>
      <label className="check">
        <input type="checkbox" checked={active} onChange={(e) => setActive(e.target.checked)} /> Active
      </label>
      <div className="actions">
        <button type="submit" disabled={busy}>
          {busy ? "Saving…" : existing ? "Save changes" : "Add webhook"}
        </button>
        <button type="button" onClick={() => onDone(null)}>
          Cancel
        </button>
      </div>
      <ErrorMessage error={error} title="Not saved." />
    </form>
  );
}

const PAGE = 20;

function Deliveries({ hook, onTested }: { hook: Webhook; onTested(): void }) {
  const { client, guard } = useApi();
  const [offset, setOffset] = useState(0);
  const log = useLoader(
    (_api, signal) => client.webhooks.deliveries(hook.webhook_id, { limit: PAGE, offset }, { signal }),
    [hook.webhook_id, offset],
  );
  const [event, setEvent] = useState<WebhookEvent>((hook.events[0] as WebhookEvent) ?? "batch.complete");
  const [testing, setTesting] = useState(false);
  const [outcome, setOutcome] = useState<WebhookTestResult | null>(null);
  const [error, setError] = useState<unknown>(null);

  const sendTest = async () => {
    setTesting(true);
    setError(null);
    setOutcome(null);
    try {
      setOutcome(await guard(client.webhooks.test(hook.webhook_id, event)));
      setOffset(0);
      log.reload();
      onTested();
    } catch (e) {
      setError(e);
    } finally {
      setTesting(false);
    }
  };

  return (
    <section className="panel" aria-labelledby="deliveries-title" data-testid="deliveries">
      <h2 id="deliveries-title">Deliveries of “{hook.name}”</h2>
      <div className="inline-form">
        <label>
          Test event
          <select value={event} onChange={(e) => setEvent(e.target.value as WebhookEvent)}>
            {EVENTS.map((value) => (
              <option key={value} value={value}>
                {WEBHOOK_EVENTS[value]}
              </option>
            ))}
          </select>
        </label>
        <button type="button" onClick={sendTest} disabled={testing} data-testid="send-test">
          {testing ? "Sending…" : "Send test"}
        </button>
      </div>
      <ErrorMessage error={error} title="The test was not sent." />
      {outcome ? (
        <p className={outcome.success ? "info" : "alert"} role="status" data-testid="test-outcome">
          {outcome.success ? "Delivered" : "Not delivered"}: {outcome.event}
          {outcome.http_status !== null ? `, HTTP ${outcome.http_status}` : ""}, {outcome.response_time_ms} ms
          {outcome.error_message ? ` — ${outcome.error_message}` : ""}
        </p>
      ) : null}
      <ErrorMessage error={log.error} />
      {log.loading && !log.data ? <Loading what="deliveries" /> : null}
      {log.data && log.data.total === 0 ? (
        <Empty title="No deliveries yet.">Send a test, or wait for one of its events to happen.</Empty>
      ) : null}
      {log.data && log.data.deliveries.length > 0 ? (
        <>
          <DataTable
            label="Deliveries"
            rows={log.data.deliveries}
            rowKey={(d) => d.delivery_id}
            testId="deliveries-table"
            rowTestId="delivery-row"
            columns={[
              { key: "when", header: "When", primary: true, cell: (d) => formatDate(d.created_at) },
              {
                key: "event",
                header: "Event",
                cell: (d) => (
                  <>
                    {d.event}
                    {d.test ? <span className="tag">test</span> : null}
                  </>
                ),
              },
              { key: "status", header: "Status", sortValue: (d) => d.status, cell: (d) => d.status },
              {
                key: "http",
                header: "HTTP",
                className: "num",
                sortValue: (d) => d.http_status ?? null,
                cell: (d) => d.http_status ?? "—",
              },
              { key: "attempts", header: "Attempts", className: "num", cell: (d) => d.attempts },
              {
                key: "answer",
                header: "Error or answer",
                cell: (d) => <Breakable text={d.error_message ?? d.response_body ?? ""} />,
              },
            ]}
          />
          <Pager
            label="Deliveries"
            offset={offset}
            limit={PAGE}
            total={log.data.total}
            shown={log.data.deliveries.length}
            onChange={setOffset}
          />
        </>
      ) : null}
    </section>
  );
}
