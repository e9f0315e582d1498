// Small shared pieces: error and empty states, paging, a confirmation dialog, a copyable secret,
// a progress bar, and formatting.
import { type ReactNode, useEffect, useId, useRef, useState } from "react";
import { LeadcheckError } from "../../../sdk/src/errors.js";
import { Link } from "../router.js";

export const formatDate = (iso: string | null | undefined): string =>
  iso ? new Date(iso).toLocaleString(undefined, { dateStyle: "medium", timeStyle: "short" }) : "—";

export const formatNumber = (n: number | null | undefined): string =>
  n === null || n === undefined ? "—" : n.toLocaleString();

/** "1 lead", "2 leads": a count with its noun in the right number. */
export const plural = (n: number, one: string, many = `${one}s`): string =>
  `${formatNumber(n)} ${n === 1 ? one : many}`;

/** Display credits in words: "1 credit", "6,979 credits" (1 credit per check, the dashboard's unit). */
export const creditsText = (displayCredits: number): string => plural(displayCredits, "credit");

/** Stored credits in display credits (the spec's unit conversion: x 1000), for the fields the API
 *  gives only in stored credits. Amounts the API gives in display credits are shown as given. */
export const displayCredits = (stored: number): string => formatNumber(Math.round(stored * 1000));

export const yesNo = (value: boolean | null | undefined): string =>
  value === null || value === undefined ? "—" : value ? "yes" : "no";

/** The API's own words for a failed call; a 402 also shows the balance and what the call would cost. */
export function ErrorMessage({ error, title }: { error: unknown; title?: string }) {
  if (!error) return null;
  if (error instanceof LeadcheckError) {
    const body = error.errorBody;
    if (error.status === 402 && body) {
      return (
        <div className="alert" role="alert" data-testid="error-402">
          <strong>Not enough credits.</strong> This needs{" "}
          <span data-testid="credits-required">{formatNumber(body.displayCreditsRequired)}</span>{" "}
          {body.displayCreditsRequired === 1 ? "credit" : "credits"}; your balance is{" "}
          <span data-testid="credits-available">{formatNumber(body.displayCreditsAvailable)}</span>{" "}
          {body.displayCreditsAvailable === 1 ? "credit" : "credits"}.{" "}
          <Link to="/credits">See your credits</Link>.
        </div>
      );
    }
    const fieldErrors = (error.details.errors ?? []) as { field?: string; message?: string }[];
    return (
      <div className="alert" role="alert" data-testid="error">
        {title ? <strong>{title} </strong> : null}
        {error.message}
        {error.status === 429 && error.retryAfterSeconds !== undefined
          ? ` Try again in ${error.retryAfterSeconds} s.`
          : null}
        {Array.isArray(fieldErrors) && fieldErrors.length > 0 ? (
          <ul data-testid="field-errors">
            {fieldErrors.slice(0, 50).map((e, i) => (
              // biome-ignore lint/suspicious/noArrayIndexKey: the server's list, shown as given
              <li key={i}>
                {e.field ? <strong>{e.field}: </strong> : null}
                {e.message}
              </li>
            ))}
          </ul>
        ) : null}
        {error.requestId ? <small className="muted"> (request {error.requestId})</small> : null}
      </div>
    );
  }
  return (
    <div className="alert" role="alert" data-testid="error">
      {title ? <strong>{title} </strong> : null}
      {error instanceof Error ? error.message : String(error)}
    </div>
  );
}

export function Empty({ title, children }: { title: string; children?: ReactNode }) {
  return (
    <div className="empty" data-testid="empty">
      <p>
        <strong>{title}</strong>
      </p>
      {children ? <p>{children}</p> : null}
    </div>
  );
}

export function Loading({ what }: { what: string }) {
  return (
    <p className="muted" role="status">
      Loading {what}…
    </p>
  );
}

/** Previous/next over an offset-paged list, with the position in words. */
export function Pager(props: {
  offset: number;
  limit: number;
  total: number;
  shown: number;
  onChange(offset: number): void;
  label: string;
}) {
  const { offset, limit, total, shown, onChange, label } = props;
  if (total === 0) return null;
  return (
    <nav className="pager" aria-label={`${label} pages`}>
      <button type="button" disabled={offset === 0} onClick={() => onChange(Math.max(0, offset - limit))}>
        ← Previous
      </button>
      <span data-testid="pager-position">
        {formatNumber(offset + 1)}–{formatNumber(offset + shown)} of {formatNumber(total)}
      </span>
      <button type="button" disabled={offset + shown >= total} onClick={() => onChange(offset + limit)}>
        Next →
      </button>
    </nav>
  );
}

/** A modal confirmation (the native <dialog>: focus trapped, Escape cancels). */
export function ConfirmDialog(props: {
  open: boolean;
  title: string;
  children: ReactNode;
  confirmLabel: string;
  onConfirm(): void;
  onCancel(): void;
}) {
  const ref = useRef<HTMLDialogElement>(null);
  const titleId = useId();
  useEffect(() => {
    const dialog = ref.current;
    if (!dialog) return;
    if (props.open && !dialog.open) dialog.showModal();
    if (!props.open && dialog.open) dialog.close();
  }, [props.open]);
  return (
    <dialog ref={ref} onCancel={props.onCancel} aria-labelledby={titleId} data-testid="confirm-dialog">
      <h2 id={titleId}>{props.title}</h2>
      <div>{props.children}</div>
      <div className="actions">
        <button type="button" onClick={props.onCancel}>
          Cancel
        </button>
        <button type="button" className="danger" onClick={props.onConfirm} data-testid="confirm">
          {props.confirmLabel}
        </button>
      </div>
    </dialog>
  );
}

/** A secret shown once: read-only, selectable, with a copy button. */
export function SecretField({ label, value, testId }: { label: string; value: string; testId: string }) {
  const [copied, setCopied] = useState<"" | "copied" | "failed">("");
  const inputRef = useRef<HTMLInputElement>(null);
  const copy = async () => {
    try {
      await navigator.clipboard.writeText(value);
      setCopied("copied");
    } catch {
      inputRef.current?.select();
      setCopied("failed");
    }
  };
  return (
    <div className="secret">
      <label>
        {label}
        <input
          ref={inputRef}
          readOnly
          value={value}
          data-testid={testId}
          onFocus={(e) => e.currentTarget.select()}
        />
      </label>
      <button type="button" onClick={copy}>
        Copy
      </button>
      <span role="status" className="muted">
        {copied === "copied" ? "Copied." : copied === "failed" ? "Select it and copy with Ctrl+C." : ""}
      </span>
    </div>
  );
}

export function ProgressBar({ value, label }: { value: number; label: string }) {
  const pct = Math.max(0, Math.min(100, Math.round(value)));
  return (
    <div className="progress">
      <progress max={100} value={pct} aria-label={label} data-testid="progress" />
      <span data-testid="progress-text">{pct}%</span>
    </div>
  );
}

/** Offers `text` as a file download. */
export function download(filename: string, text: string, type = "text/csv;charset=utf-8"): void {
  const url = URL.createObjectURL(new Blob([text], { type }));
  const a = document.createElement("a");
  a.href = url;
  a.download = filename;
  document.body.append(a);
  a.click();
  a.remove();
  setTimeout(() => URL.revokeObjectURL(url), 10_000);
}
