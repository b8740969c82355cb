/** One CSV field per RFC 4180: quoted when it holds a comma, a quote or a line break. */
function field(v: unknown): string {
  if (v === null || v === undefined) return '';
  const s = typeof v === 'object' ? JSON.stringify(v) : String(v);
  return /[",\r\n]/.test(s) ? `"${s.replaceAll('"', '""')}"` : s;
}

/** Rows of JSON objects as CSV with a header line, columns in `columns` order. */
export function toCsv(columns: readonly string[], rows: readonly Record<string, unknown>[]): string {
  const lines = [columns.map(field).join(',')];
  for (const r of rows) lines.push(columns.map((c) => field(r[c])).join(','));
  return `${lines.join('\r\n')}\r\n`;
}

/** Offers `blob` to the user as a file download. */
export function download(blob: Blob, filename: string): void {
  const url = URL.createObjectURL(blob);
  const a = document.createElement('a');
  a.href = url;
  a.download = filename;
  a.click();
  setTimeout(() => URL.revokeObjectURL(url), 10_000);
}
