/**
 * The orphan watchdog of a locally run pipeline: its runner asks for /status every few seconds
 * (and keeps it alive on purpose while the database is away). When nobody has asked for
 * `timeoutMs`, the runner is gone for good — killed and not restarted — and the process stops
 * itself instead of running unmanaged forever. A runner restarted in time adopts it instead.
 */
export function startWatchdog(timeoutMs: number, onOrphaned: () => void): { touch(): void; stop(): void } {
  let last = Date.now();
  const timer = setInterval(
    () => {
      if (Date.now() - last > timeoutMs) {
        clearInterval(timer);
        onOrphaned();
      }
    },
    Math.min(1_000, timeoutMs),
  );
  timer.unref();
  return {
    touch: () => {
      last = Date.now();
    },
    stop: () => clearInterval(timer),
  };
}
