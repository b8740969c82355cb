/**
 * The orphan watchdog of a locally run pipeline: its runner asks for /status every few seconds
 * (and keeps it alive on purpose while the database is away). When nobody has asked for
 * `timeoutMs`, the runner is gone for good — killed and not restarted — and the process stops
 * itself instead of running unmanaged forever. A runner restarted in time adopts it instead.
 *
 * It judges the runner's absence, not this process's own stall: time during which its timer could
 * not run (the event loop blocked) is not counted as silence, since the runner's calls of that time
 * are still waiting to be read.
 */
export function startWatchdog(timeoutMs: number, onOrphaned: () => void): { touch(): void; stop(): void } {
  const tickMs = Math.min(1_000, timeoutMs);
  let last = Date.now();
  let lastTick = last;
  const timer = setInterval(() => {
    const now = Date.now();
    const stalled = now - lastTick - tickMs;
    lastTick = now;
    if (stalled > tickMs) last += stalled;
    if (now - last > timeoutMs) {
      clearInterval(timer);
      onOrphaned();
    }
  }, tickMs);
  timer.unref();
  return {
    touch: () => {
      last = Date.now();
    },
    stop: () => clearInterval(timer),
  };
}
