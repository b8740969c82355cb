// file_input: reads a file from its start, in chunks cut at line ends; with `follow`, keeps reading
// what is appended (polling its size: fs.watch misses appends on some file systems). A missing or
// unreadable file is a transport error; the endpoint retries, and the read goes on from the last
// complete line it took, so nothing is read twice. JSON `array` input is one document: read whole.
// The offset is the endpoint's position: a checkpoint records it and a resume reads on from there.
import { open } from 'node:fs/promises';
import type { JsonValue } from '../../model/json.js';
import { sleep } from '../backoff.js';
import type { InputRun } from '../input-endpoint.js';
import { positionCount } from './position.js';

const CHUNK_BYTES = 1024 * 1024;
const FOLLOW_POLL_MS = 100;

export function fileInput(
  config: { path: string; follow: boolean },
  wholeDocument: boolean,
  resume?: JsonValue,
): InputRun {
  /** Bytes of the file already taken (complete lines only); a resume starts after them. */
  let offset = positionCount(resume, 'offset') ?? 0;
  return async (sink) => {
    const file = await open(config.path, 'r');
    try {
      if (wholeDocument) {
        if (offset === 0) {
          const text = await file.readFile('utf8');
          await sink.push(text, true, { offset: Buffer.byteLength(text) });
        }
        return sink.endOfInput();
      }
      const buffer = Buffer.alloc(CHUNK_BYTES);
      let pending = Buffer.alloc(0);
      for (;;) {
        if (sink.signal.aborted) return;
        await sink.ready();
        const { bytesRead } = await file.read(buffer, 0, CHUNK_BYTES, offset + pending.length);
        if (bytesRead === 0 && !config.follow) {
          // The last line without a line end is still a record.
          const last = { offset: offset + pending.length };
          if (pending.length > 0) await sink.push(pending.toString('utf8'), offset === 0, last);
          return sink.endOfInput();
        }
        if (bytesRead === 0) {
          await sleep(FOLLOW_POLL_MS, sink.signal);
          continue;
        }
        const data = Buffer.concat([pending, buffer.subarray(0, bytesRead)]);
        const end = data.lastIndexOf(0x0a) + 1;
        pending = data.subarray(end);
        if (end === 0) continue;
        await sink.push(data.subarray(0, end).toString('utf8'), offset === 0, { offset: offset + end });
        offset += end;
      }
    } finally {
      await file.close();
    }
  };
}
