// The banner every page shows while test data is on screen, so scripted answers are never read as
// verdicts on real addresses.
import type { ReactNode } from "react";

export function TestModeBanner({ children }: { children: ReactNode }) {
  return (
    <div className="banner test-mode" role="note" data-testid="test-mode-banner">
      <strong>Test mode.</strong> {children}
    </div>
  );
}
