// The points behind a score, one table for both places that show one: a lead's rating factors and
// the verify box's email score. One label per factor (the API's own label when it sends one, else
// the dashboard's words for the code, the same words the reason badge uses); the code stays
// available as the row's tooltip, never printed beside it.
import { EMAIL_FACTOR, REASON } from "../labels.js";

export interface Factor {
  code: string;
  label?: string;
  points: number;
}

const factorLabel = (f: Factor): string => {
  if (f.label) return f.label;
  const known = (REASON as Record<string, string>)[f.code] ?? EMAIL_FACTOR[f.code];
  if (known) return known;
  const words = f.code.replaceAll("_", " ");
  return words.charAt(0).toUpperCase() + words.slice(1);
};

export function FactorTable({
  factors,
  caption,
  testId,
  hideCaption,
}: {
  factors: Factor[];
  caption: string;
  testId: string;
  hideCaption?: boolean;
}) {
  if (factors.length === 0) return null;
  return (
    <table className="factors" data-testid={testId}>
      <caption className={hideCaption ? "visually-hidden" : undefined}>{caption}</caption>
      <thead>
        <tr>
          <th scope="col">Factor</th>
          <th scope="col" className="num">
            Points
          </th>
        </tr>
      </thead>
      <tbody>
        {factors.map((f) => (
          <tr key={f.code} title={f.code} data-testid="rating-factor" data-code={f.code}>
            <td>{factorLabel(f)}</td>
            <td className={`num ${f.points < 0 ? "neg" : f.points > 0 ? "pos" : ""}`}>
              {f.points > 0 ? "+" : ""}
              {f.points}
            </td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}
