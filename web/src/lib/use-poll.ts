import { useCallback, useEffect, useRef, useState } from 'react';

export interface Polled<T> {
  data: T | undefined;
  error: Error | undefined;
  /** Ask again now (after an action), without waiting for the next tick. */
  refresh: () => void;
}

/**
 * Calls `load` now and every `intervalMs` while the component is shown: the console's "live" views
 * (the list, a pipeline's statuses, its statistics) are the API read again, as any client would.
 * A call still in flight is not started twice.
 */
export function usePoll<T>(load: () => Promise<T>, intervalMs: number, key: string): Polled<T> {
  const [data, setData] = useState<T>();
  const [error, setError] = useState<Error>();
  const [tick, setTick] = useState(0);
  const loadRef = useRef(load);
  loadRef.current = load;
  useEffect(() => {
    let stopped = false;
    let busy = false;
    const once = async () => {
      if (busy) return;
      busy = true;
      try {
        const value = await loadRef.current();
        if (!stopped) {
          setData(value);
          setError(undefined);
        }
      } catch (e) {
        if (!stopped) setError(e instanceof Error ? e : new Error(String(e)));
      } finally {
        busy = false;
      }
    };
    void once();
    const timer = setInterval(() => void once(), intervalMs);
    return () => {
      stopped = true;
      clearInterval(timer);
    };
  }, [intervalMs, key, tick]);
  const refresh = useCallback(() => setTick((t) => t + 1), []);
  return { data, error, refresh };
}
