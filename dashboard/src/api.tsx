// The signed-in context every page uses: the SDK client, the session, and `guard`, which turns a
// 401 from any call into a sign-out with a message, wherever the call was made.
import {
  createContext,
  type DependencyList,
  useCallback,
  useContext,
  useEffect,
  useRef,
  useState,
} from "react";
import type { LeadcheckClient } from "../../sdk/src/client.js";
import { LeadcheckError } from "../../sdk/src/errors.js";
import type { Session } from "./session.js";

export interface Api {
  client: LeadcheckClient;
  session: Session;
  signOut(message?: string): void;
  /** Awaits a call; a 401 signs the user out (with the API's message) before the error is rethrown.
   *  A call cancelled through `signal` (its page went away) signs nobody out. */
  guard<T>(call: Promise<T>, signal?: AbortSignal): Promise<T>;
}

export const ApiContext = createContext<Api | null>(null);

export function useApi(): Api {
  const api = useContext(ApiContext);
  if (!api) throw new Error("useApi outside a signed-in page");
  return api;
}

export function makeGuard(signOut: (message?: string) => void) {
  return async <T,>(call: Promise<T>, signal?: AbortSignal): Promise<T> => {
    try {
      return await call;
    } catch (error) {
      if (error instanceof LeadcheckError && error.status === 401 && !signal?.aborted) {
        signOut(`You were signed out: ${error.message}. Sign in again.`);
      }
      throw error;
    }
  };
}

export interface Loaded<T> {
  data: T | undefined;
  error: unknown;
  loading: boolean;
  reload(): void;
}

/** Loads data for a page and reloads it when `deps` change; stale answers are dropped. */
export function useLoader<T>(
  load: (api: Api, signal: AbortSignal) => Promise<T>,
  deps: DependencyList,
): Loaded<T> {
  const api = useApi();
  const [state, setState] = useState<{ data?: T; error?: unknown; loading: boolean }>({ loading: true });
  const [tick, setTick] = useState(0);
  const loadRef = useRef(load);
  loadRef.current = load;
  // biome-ignore lint/correctness/useExhaustiveDependencies: the caller's deps decide when to reload
  useEffect(() => {
    const controller = new AbortController();
    setState((s) => ({ ...s, loading: true }));
    api.guard(loadRef.current(api, controller.signal), controller.signal).then(
      (data) => !controller.signal.aborted && setState({ data, loading: false }),
      (error) => !controller.signal.aborted && setState({ error, loading: false }),
    );
    return () => controller.abort();
  }, [...deps, tick, api]);
  const reload = useCallback(() => setTick((t) => t + 1), []);
  return { data: state.data, error: state.error, loading: state.loading, reload };
}
