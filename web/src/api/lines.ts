/**
 * The lines of a streamed answer (egress, the followed log) as they arrive, to `onLine`, until the
 * server ends it or `signal` aborts.
 */
export async function readLines(res: Response, onLine: (line: string) => void): Promise<void> {
  if (!res.body) return;
  const reader = res.body.pipeThrough(new TextDecoderStream()).getReader();
  let partial = '';
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    const parts = (partial + value).split('\n');
    partial = parts.pop() ?? '';
    for (const line of parts) onLine(line);
  }
  if (partial) onLine(partial);
}
