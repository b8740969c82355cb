import { type MessagePort, parentPort, workerData } from 'node:worker_threads';
import { loadModule } from 'libpg-query';
import { ThreadShards } from './exchange.js';
import type { EngineCodec } from '../host/hosted.js';
import { PartDecoder } from './decode.js';
import { exitSlot, READY, type Request, replySlot, replyTransfers, type ShardWorkerData } from './protocol.js';
import { Shard } from './shard.js';
import { notify, packed } from './wire.js';
import { collectWhenIdle } from '../../heap/idle-collection.js';
import { spillPages } from '../traces/page-file.js';

// One shard worker: a Shard (shard.ts) on a thread of its own. The engine's thread sends it the
// control port (for requests) and a port to every other shard (for the exchanges) in one message
// before the first request.

const data = workerData as ShardWorkerData;
const signal = new Int32Array(data.signal);
collectWhenIdle();

// Whoever waits for this shard (the engine's thread for a reply, a peer at an exchange) waits
// synchronously and would never learn that it ended: say so in the shared signal, and wake them.
// 'exit' runs for an uncaught exception, a rejected start (the parser's module) and process.exit.
process.on('exit', () => {
  Atomics.compareExchange(signal, exitSlot(data.count), 0, data.index + 1);
  for (let k = 0; k <= replySlot(data.count); k++) notify(signal, k);
});

function serve(control: MessagePort, peers: (MessagePort | undefined)[], decoder: PartDecoder): void {
  const pages = data.spill && spillPages(data.spill);
  const shard = new Shard(new ThreadShards(data.index, data.count, peers, signal), signal, packed, decoder, pages);
  control.on('message', (r: Request) => {
    const reply = shard.serve(r);
    control.postMessage(reply, replyTransfers(reply));
    notify(signal, replySlot(data.count));
  });
}

// The planner parses with PostgreSQL's parser (libpg-query's WebAssembly), loaded once per thread;
// the wire formats decode the parts of ingress bodies sent here.
const [, codec] = await Promise.all([
  loadModule(),
  // One that does not load leaves every body to the engine's thread, which says why.
  data.codec === undefined
    ? undefined
    : (import(data.codec).catch(() => undefined) as Promise<EngineCodec | undefined>),
]);
const decoder = new PartDecoder(codec);
parentPort!.once('message', (m: { control: MessagePort; peers: (MessagePort | undefined)[] }) =>
  serve(m.control, m.peers, decoder),
);
// Ready: from here on an end of this thread is said in the signal (ShardPool.start waits for this).
parentPort!.postMessage(READY);
