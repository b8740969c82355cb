/** The Prometheus text format read as metric name → sum of its samples (labels summed over). */
export function parseMetrics(text: string): Map<string, number> {
  const out = new Map<string, number>();
  for (const line of text.split('\n')) {
    if (!line || line.startsWith('#')) continue;
    const m = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(\{[^}]*\})?\s+(\S+)/.exec(line);
    if (!m?.[1] || m[3] === undefined) continue;
    const v = Number(m[3]);
    if (Number.isFinite(v)) out.set(m[1], (out.get(m[1]) ?? 0) + v);
  }
  return out;
}
