// The widget live on this page: a sample signup form in a frame loads /widget.js with the chosen
// key, so blur, the typo fix and the blocks behave as on the customer's site; and one address
// asked straight from the widget endpoint, with its answer (or the server's refusal) shown.
import { type FormEvent, useState } from "react";
import type { WidgetAnswer } from "../../../sdk/src/api-types.js";
import { useApi } from "../api.js";
import { ErrorMessage } from "../components/ui.js";
import type { WidgetKey } from "./widget.js";

/** Whether the key allows `origin`: exactly, or under one `*.` wildcard level (docs/widget.md). */
function originAllowed(allowed: string[], origin: string): boolean {
  const here = new URL(origin);
  return allowed.some((entry) => {
    if (entry === origin) return true;
    const wild = /^(https?):\/\/\*\.(.+)$/.exec(entry);
    return wild !== null && `${wild[1]}:` === here.protocol && here.host.endsWith(`.${wild[2]}`);
  });
}

/** A sample form for the frame; the frame shares this page's origin, so its Origin header is ours.
 *  It has no submit button: this page's CSP (form-action 'self') would refuse the submission. */
function sampleForm(origin: string, key: string): string {
  const escapeHtml = (value: string) => value.replace(/[&<>"]/g, (c) => `&#${c.charCodeAt(0)};`);
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Sample signup form</title></head><body>
<form><p><label>Work email <input type="email" name="email" data-testid="preview-email"></label></p>
<p>Type an address, then leave the field.</p></form>
<script src="${escapeHtml(origin)}/widget.js" data-key="${escapeHtml(key)}" data-block="invalid disposable" async></script>
</body></html>`;
}

export function WidgetPreview({ widgetKey }: { widgetKey: WidgetKey }) {
  const { client } = useApi();
  const origin = window.location.origin;
  const allowedHere = originAllowed(widgetKey.allowedOrigins ?? [], origin);
  const [email, setEmail] = useState("");
  const [answer, setAnswer] = useState<WidgetAnswer | null>(null);
  const [error, setError] = useState<unknown>(null);
  const [busy, setBusy] = useState(false);

  const ask = async (event: FormEvent) => {
    event.preventDefault();
    setBusy(true);
    setError(null);
    setAnswer(null);
    try {
      setAnswer(await client.widgetCheckEmail(widgetKey.api_key, email.trim()));
    } catch (e) {
      setError(e);
    } finally {
      setBusy(false);
    }
  };
  return (
    <div className="panel" data-testid="widget-preview">
      <h2>Try it</h2>
      {allowedHere ? null : (
        <p className="info" role="note" data-testid="preview-origin-note">
          This key does not allow this page's origin (<code>{origin}</code>), so the widget is refused here as
          it would be on any site not in its list. Add the origin to a test-mode key to try the widget on this
          page.
        </p>
      )}
      <p className="muted">
        {widgetKey.mode === "test"
          ? "A test-mode key: try valid@example.com, jane@gmial.com or disposable@mailinator.com."
          : "A live key: each new address is charged once a day at the email check's price."}
      </p>
      <form onSubmit={ask} className="inline-form" data-testid="widget-try">
        <label>
          Address
          <input
            type="text"
            inputMode="email"
            value={email}
            onChange={(e) => setEmail(e.target.value)}
            data-testid="widget-try-email"
          />
        </label>
        <button type="submit" disabled={busy || email.trim() === ""} data-testid="widget-try-submit">
          {busy ? "Asking…" : "Check as the widget would"}
        </button>
      </form>
      <ErrorMessage error={error} title="The widget endpoint refused it." />
      {answer ? (
        <dl className="facts" data-testid="widget-try-answer">
          <dt>Status</dt>
          <dd data-testid="widget-try-status">{answer.status}</dd>
          <dt>Reason</dt>
          <dd>{answer.reason ?? "—"}</dd>
          <dt>Did you mean</dt>
          <dd>{answer.didYouMean ?? "—"}</dd>
          <dt>Disposable / role / free</dt>
          <dd>
            {String(answer.disposable)} / {String(answer.role)} / {String(answer.free)}
          </dd>
        </dl>
      ) : null}
      {allowedHere ? (
        <>
          <h3>The widget in a sample form</h3>
          <iframe
            key={widgetKey.key_id}
            title="Sample signup form with the widget"
            className="widget-frame"
            srcDoc={sampleForm(origin, widgetKey.api_key)}
            data-testid="widget-frame"
          />
        </>
      ) : null}
    </div>
  );
}
