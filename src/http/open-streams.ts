import type { ServerResponse } from 'node:http';
import type { FastifyInstance } from 'fastify';

// A response that lasts as long as its client wants (an egress stream, a log follow) never ends by
// itself, and an HTTP server's close waits for every request in flight: `svc manager` with one open
// hung at SIGTERM, since the stream it forwarded would only end when the pipeline process stopped,
// which the manager does after its server has closed. Node's closeAllConnections() at the start of
// the close (fastify's forceCloseConnections) would not do: it also cuts the normal requests in
// flight, and every client sees a reset, not an end. So each such route registers how to end its
// stream, and the app ends them all when it starts closing; the other requests finish as before.

/** The open long-lived responses of one HTTP server, each with how to end it cleanly. */
export class OpenStreams {
  private readonly ends = new Set<() => void>();
  private closing = false;

  /**
   * Registers how to end one stream; the returned function forgets it (the stream ended by itself).
   * A stream that opens once the server is closing (its request arrived just before) ends right
   * away: after this call, so that `end` may already use what it returns.
   */
  add(end: () => void): () => void {
    if (this.closing) {
      queueMicrotask(end);
      return () => undefined;
    }
    this.ends.add(end);
    return () => this.ends.delete(end);
  }

  /** Ends every open stream (the server is closing); any opened later ends as it opens. */
  endAll(): void {
    this.closing = true;
    for (const end of [...this.ends]) end();
    this.ends.clear();
  }
}

/**
 * Makes the app's close prompt and still graceful: its open streams end first, every other request
 * in flight finishes, and once none is left every connection is closed. Node's server.close()
 * alone closes only the keep-alive connections idle at that moment: one whose response finished
 * later (an ended stream, a slow request) held the server open until its keep-alive timeout
 * (fastify's: 72 s), and so did a connection that never carried a request, which Node counts as
 * active. fetch (undici) opens one of those to replace a connection whose stream it aborted: the
 * manager does that to a pipeline at shutdown, whose close then waited for the runner's SIGKILL.
 */
export function closeGracefully(app: FastifyInstance, streams = new OpenStreams()): OpenStreams {
  let closing = false;
  let inFlight = 0;
  const closeWhenDrained = () => {
    if (closing && inFlight === 0) app.server.closeAllConnections();
  };
  app.server.on('request', (_request: unknown, response: ServerResponse) => {
    inFlight += 1;
    // 'close' comes whether the response finished or its client left; the check runs after Node's
    // own handling of it.
    response.once('close', () => {
      inFlight -= 1;
      setImmediate(closeWhenDrained);
    });
  });
  app.addHook('preClose', async () => {
    closing = true;
    streams.endAll();
    // Next turn: after fastify's server.close(), which follows this hook (no new connection then).
    setImmediate(closeWhenDrained);
  });
  return streams;
}
