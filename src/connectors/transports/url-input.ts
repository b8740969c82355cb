// url_input: one HTTP GET of the URL, its body in the connector's format. A connection error or a
// 5xx answer is a transport error, retried `retries` times with back-off; then the endpoint gives up
// and reports end of input with the error (the pipeline goes on). Other 4xx answers are not retried.
// Its position is `done` once the body went in: a resume from a checkpoint taken after that does not
// read the URL again (its rows are in the checkpoint); one taken before reads it.
import type { JsonValue } from '../../model/json.js';
import { backoff, sleep } from '../backoff.js';
import type { InputRun } from '../input-endpoint.js';
import { positionDone } from './position.js';

class Permanent extends Error {}

export function urlInput(config: { path: string; retries: number }, resume?: JsonValue): InputRun {
  const done = positionDone(resume);
  return async (sink) => {
    if (done) return sink.endOfInput();
    const wait = backoff(200, 5_000);
    for (let attempt = 0; ; attempt++) {
      try {
        const res = await fetch(config.path, { signal: sink.signal });
        const text = await res.text();
        if (res.status >= 500) throw new Error(`GET ${config.path}: HTTP ${res.status}`);
        if (res.status >= 400) throw new Permanent(`GET ${config.path}: HTTP ${res.status}`);
        await sink.push(text, true, { done: true });
        return sink.endOfInput();
      } catch (error) {
        if (sink.signal.aborted) return;
        sink.transportError(error);
        if (error instanceof Permanent || attempt >= config.retries) return sink.endOfInput();
        await sleep(wait.next(), sink.signal);
      }
    }
  };
}
