// The rows a user has selected, kept with their last known data: when an action moves a selected
// row out of the active filter (validating "New" leads makes them "Processing"), the list keeps
// showing it until the user refreshes, instead of answering "No leads match" under a busy bar.
// A new address (filter, page) starts with nothing selected: actions never reach rows out of sight.
import { useCallback, useEffect, useMemo, useState } from "react";

export interface SelectionState<T> {
  ids: string[];
  size: number;
  has(id: string): boolean;
  toggle(row: T): void;
  /** Selects every row given, or clears them all when all are selected already. */
  toggleAll(rows: T[]): void;
  clear(): void;
  /** Stores fresher copies of selected rows (after a reload). */
  refresh(rows: T[]): void;
  /** The rows to show: `rows`, then the selected rows they no longer hold, marked as kept. */
  withKept(rows: T[]): { rows: T[]; kept: Set<string> };
}

export function useSelection<T extends { id: string }>(resetKey: string): SelectionState<T> {
  const [selected, setSelected] = useState<Map<string, T>>(() => new Map());
  // biome-ignore lint/correctness/useExhaustiveDependencies: the key is the trigger
  useEffect(() => setSelected(new Map()), [resetKey]);

  const toggle = useCallback(
    (row: T) =>
      setSelected((s) => {
        const next = new Map(s);
        if (next.has(row.id)) next.delete(row.id);
        else next.set(row.id, row);
        return next;
      }),
    [],
  );
  const toggleAll = useCallback(
    (rows: T[]) =>
      setSelected((s) =>
        rows.length > 0 && rows.every((r) => s.has(r.id)) ? new Map() : new Map(rows.map((r) => [r.id, r])),
      ),
    [],
  );
  const clear = useCallback(() => setSelected(new Map()), []);
  const refresh = useCallback(
    (rows: T[]) =>
      setSelected((s) => {
        if (!rows.some((r) => s.has(r.id) && s.get(r.id) !== r)) return s;
        const next = new Map(s);
        for (const r of rows) if (next.has(r.id)) next.set(r.id, r);
        return next;
      }),
    [],
  );

  return useMemo(() => {
    const withKept = (rows: T[]) => {
      const shown = new Set(rows.map((r) => r.id));
      const kept = [...selected.values()].filter((r) => !shown.has(r.id));
      return { rows: [...rows, ...kept], kept: new Set(kept.map((r) => r.id)) };
    };
    return {
      ids: [...selected.keys()],
      size: selected.size,
      has: (id: string) => selected.has(id),
      toggle,
      toggleAll,
      clear,
      refresh,
      withKept,
    };
  }, [selected, toggle, toggleAll, clear, refresh]);
}
