// Emails and URLs on a narrow screen break where a reader expects: after "@" and "/", before a
// dot, after "-", "_", "?", "&" and "=". Only a single part longer than the line falls back to
// overflow-wrap (the .breakable class), so "alice@acme.test" never becomes "alic/e@ac/me".
import { Fragment } from "react";

const POINTS = /(?<=[@/\-_?&=])|(?=\.)/;

export function Breakable({ text, className }: { text: string; className?: string }) {
  const parts = text.split(POINTS);
  return (
    <span className={className ? `breakable ${className}` : "breakable"}>
      {parts.map((part, i) => (
        // biome-ignore lint/suspicious/noArrayIndexKey: the parts of one fixed string, in order
        <Fragment key={i}>
          {i > 0 ? <wbr /> : null}
          {part}
        </Fragment>
      ))}
    </span>
  );
}
