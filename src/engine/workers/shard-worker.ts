import { type MessagePort, parentPort, workerData } from 'node:worker_threads';
import { loadModule } from 'libpg-query';
import type { Operator } from '../operators/operator.js';
import { planView } from '../planner/plan.js';
import { ZSet } from '../zset/zset.js';
import { ThreadShards } from './exchange.js';
import { abortSlot, exitSlot, type Reply, type Request, replySlot, type ShardWorkerData } from './protocol.js';
import { Aborted, errorToWire, fromWire, notify, toWire } from './wire.js';

// One shard worker: the circuits of the native views, each holding this shard's part of every
// stateful operator's state. The engine's thread sends it the control port (for requests) and a
// port to every other shard (for the exchanges) in one message before the first request.

const data = workerData as ShardWorkerData;
const signal = new Int32Array(data.signal);

// Whoever waits for this shard (the engine's thread for a reply, a peer at an exchange) waits
// synchronously and would never learn that it ended: say so in the shared signal, and wake them.
// 'exit' runs for an uncaught exception, a rejected start (the parser's module) and process.exit.
process.on('exit', () => {
  Atomics.compareExchange(signal, exitSlot(data.count), 0, data.index + 1);
  for (let k = 0; k <= replySlot(data.count); k++) notify(signal, k);
});

function serve(control: MessagePort, peers: (MessagePort | undefined)[]): void {
  const shards = new ThreadShards(data.index, data.count, peers, signal);
  const roots = new Map<number, Operator>();
  /** This step's parts of the relations, as sent. */
  let parts = new Map<string, ZSet>();
  let partsStep = -1;

  const handle = (r: Request): Reply => {
    if (r.kind === 'plan') {
      const byName = new Map(r.catalog);
      try {
        const plan = planView(r.def, r.columns, { columnsOf: (name) => byName.get(name), shards });
        if (!plan.native) return { ok: false, error: { message: `not native: ${plan.reason}` }, aborted: false };
        roots.set(r.id, plan.root);
        return { ok: true };
      } catch (error) {
        return { ok: false, error: errorToWire(error), aborted: false };
      }
    }
    const root = roots.get(r.id)!;
    if (r.kind === 'reset') {
      root.reset();
      return { ok: true };
    }
    if (r.step !== partsStep) {
      parts = new Map();
      partsStep = r.step;
    }
    for (const [name, part] of r.inputs) parts.set(name, fromWire(part));
    shards.step = r.step;
    try {
      return { ok: true, out: toWire(root.step({ delta: (name) => parts.get(name) ?? new ZSet() })) };
    } catch (error) {
      const aborted = error instanceof Aborted;
      if (!aborted) {
        // The others may be waiting for this shard at an exchange: they end the step too.
        Atomics.store(signal, abortSlot(data.count), r.step);
        for (let k = 0; k < data.count; k++) notify(signal, k);
      }
      return { ok: false, error: errorToWire(error), aborted };
    }
  };

  // Every request gets a reply, whatever it throws: the engine's thread waits for it synchronously
  // (Atomics.wait), so an exception that ended this thread unanswered would hang the engine.
  const reply = (r: Request): Reply => {
    try {
      return handle(r);
    } catch (error) {
      return { ok: false, error: errorToWire(error), aborted: false };
    }
  };
  control.on('message', (r: Request) => {
    control.postMessage(reply(r));
    notify(signal, replySlot(data.count));
  });
}

// The planner parses with PostgreSQL's parser (libpg-query's WebAssembly), loaded once per thread.
await loadModule();
parentPort!.once('message', (m: { control: MessagePort; peers: (MessagePort | undefined)[] }) =>
  serve(m.control, m.peers),
);
