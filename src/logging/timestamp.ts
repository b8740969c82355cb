/**
 * Wall-clock timestamps with microsecond digits, `YYYY-MM-DDTHH:MM:SS.ffffffZ` (seed 6.3).
 * `Date` has milliseconds only, so the sub-millisecond part comes from the monotonic clock,
 * anchored to the wall clock and re-anchored whenever the two drift apart by more than 1 ms.
 */
export function microsecondClock(): () => string {
  let offset = Date.now() - performance.now();
  return () => {
    let t = offset + performance.now();
    const wall = Date.now();
    if (Math.abs(t - wall) > 1) {
      offset = wall - performance.now();
      t = offset + performance.now();
    }
    const ms = Math.floor(t);
    const micros = Math.floor((t - ms) * 1000);
    return `${new Date(ms).toISOString().slice(0, -1)}${String(micros).padStart(3, '0')}Z`;
  };
}
