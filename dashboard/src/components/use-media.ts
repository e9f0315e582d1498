// Which layout the screen gets: tables become cards below 600 px (a phone held upright), and the
// lead filters fold behind a toggle there. Read through matchMedia so a rotated phone re-renders.
import { useSyncExternalStore } from "react";

const NARROW_QUERY = "(max-width: 600px)";

function useMediaQuery(query: string): boolean {
  return useSyncExternalStore(
    (onChange) => {
      const list = window.matchMedia(query);
      list.addEventListener("change", onChange);
      return () => list.removeEventListener("change", onChange);
    },
    () => window.matchMedia(query).matches,
  );
}

export const useNarrow = (): boolean => useMediaQuery(NARROW_QUERY);
