// Verdicts, reasons and ratings as coloured badges. Colour is never the only signal: every badge
// carries its word, and the rating bar its number and band.
import type { ReactNode } from "react";
import { labelOf, REASON, RECOMMENDATION, VALIDATION_STATUS, VERDICT } from "../labels.js";

/** The rating's band as the API names it (lead-rating.ts: poor < 50 <= fair < 70 <= good < 90). */
function bandOf(rating: number): "poor" | "fair" | "good" | "excellent" {
  if (rating >= 90) return "excellent";
  if (rating >= 70) return "good";
  if (rating >= 50) return "fair";
  return "poor";
}

/** A 0-100 bar coloured by band, with the number; "Not rated" before the first validation. */
export function RatingBar({ value, rated, large }: { value: number; rated: boolean; large?: boolean }) {
  if (!rated) {
    return (
      <span className="badge tone-none" data-testid="not-rated">
        Not rated
      </span>
    );
  }
  const band = bandOf(value);
  const pct = Math.max(0, Math.min(100, value));
  return (
    <span
      className={`rating${large ? " large" : ""}`}
      title={`Rating ${value} of 100 (${band})`}
      data-band={band}
    >
      <span className={`bar band-${band}`} aria-hidden="true">
        <span style={{ width: `${pct}%` }} />
      </span>
      <strong>{value}</strong>
      <span className="visually-hidden"> of 100, {band}</span>
    </span>
  );
}

const VERDICT_TONE: Record<string, string> = {
  valid: "tone-good",
  risky: "tone-warn",
  invalid: "tone-bad",
  unknown: "tone-unknown",
  processing: "tone-info",
  new: "tone-none",
};

/** An email verdict (valid, risky, invalid, unknown) or a lead's validation status. */
export function VerdictBadge({
  value,
  kind = "verdict",
}: {
  value: string | null;
  kind?: "verdict" | "status";
}) {
  if (value === null) {
    return (
      <span className="badge tone-none" data-testid="verdict">
        Not validated
      </span>
    );
  }
  const words = kind === "status" ? labelOf(VALIDATION_STATUS, value) : labelOf(VERDICT, value);
  return (
    <span className={`badge ${VERDICT_TONE[value] ?? "tone-unknown"}`} data-testid="verdict">
      {words}
    </span>
  );
}

/** Why: the closed list of email reasons in words, the code kept as a tooltip. */
export function ReasonBadge({ reason }: { reason: string | null | undefined }) {
  if (!reason) return null;
  const tone =
    reason === "deliverable"
      ? "tone-good"
      : /not_found|disabled|nxdomain|null_mx|no_mx|invalid_syntax|unsupported_syntax/.test(reason)
        ? "tone-bad"
        : "tone-warn";
  return (
    <span className={`badge reason ${tone}`} title={reason} data-testid="reason" data-reason={reason}>
      {labelOf(REASON, reason)}
    </span>
  );
}

export function RecommendationBadge({ value }: { value: string | null }) {
  if (value === null) return <span className="muted">—</span>;
  return <span className={`badge rec-${value}`}>{labelOf(RECOMMENDATION, value)}</span>;
}

export function Tags({ tags }: { tags: string[] }): ReactNode {
  if (tags.length === 0) return null;
  return (
    <ul className="tag-list" aria-label="Tags">
      {tags.map((t) => (
        <li key={t} className="badge tone-tag">
          {t}
        </li>
      ))}
    </ul>
  );
}
