import { Transform, type TransformCallback } from 'node:stream';

const NEWLINE = 0x0a;

/**
 * How long a stream ended at shutdown may wait for the rest of the line under way. The pipeline
 * writes each line at once, so the rest follows within milliseconds; past this, a clean end is not
 * to be had and the response is cut off (the client sees an error, not a torn last line).
 */
const LINE_END_GRACE_MS = 2_000;

/**
 * Passes the bytes through; once cut, ends after the line under way (at once between lines), then
 * calls `detach` so that nothing more is read from the source.
 */
export class LineCut extends Transform {
  /** Cut (or being cut): an error of the detached source is expected then, not a failure. */
  cutting = false;
  private atLineStart = true;
  /** Past the cut's line: what the source had written before it was detached is dropped. */
  private ended = false;
  private detach: () => void = () => undefined;

  constructor(private readonly graceMs = LINE_END_GRACE_MS) {
    super();
  }

  cut(detach: () => void): void {
    if (this.cutting) return;
    this.cutting = true;
    this.detach = detach;
    if (this.atLineStart) return this.finish();
    setTimeout(() => {
      if (!this.writableEnded) this.destroy(new Error('the stream ended at shutdown in the middle of a line'));
    }, this.graceMs).unref();
  }

  override _transform(chunk: Buffer, _encoding: BufferEncoding, done: TransformCallback): void {
    if (this.ended) return done();
    if (!this.cutting) {
      if (chunk.length > 0) this.atLineStart = chunk[chunk.length - 1] === NEWLINE;
      return done(null, chunk);
    }
    const newline = chunk.indexOf(NEWLINE);
    if (newline < 0) return done(null, chunk);
    done(null, chunk.subarray(0, newline + 1));
    this.finish();
  }

  private finish(): void {
    this.ended = true;
    this.detach();
    // What was passed through is still read out before the end.
    this.end();
  }
}
