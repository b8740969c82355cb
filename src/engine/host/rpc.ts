import type { MessagePort, Worker } from 'node:worker_threads';
import { SvcError } from '../../model/errors.js';

// Calls between two threads over one port, both ways: each side registers handlers by name and
// calls the other's. A call is a message with an id; its answer (value or error) comes back with
// that id. Errors cross as their parts (structured clone drops a class), so an SvcError thrown on
// one thread is an SvcError again on the other, with its status, code and details.

type Port = Pick<MessagePort, 'postMessage' | 'on' | 'off'> | Pick<Worker, 'postMessage' | 'on' | 'off'>;
export type Handler = (arg: never) => unknown;

interface Call {
  call: number;
  name: string;
  arg: unknown;
}
interface Answer {
  answer: number;
  value?: unknown;
  error?: { message: string; svc?: { status: number; code: string; details: SvcError['details'] } };
}

const isCall = (m: unknown): m is Call => typeof m === 'object' && m !== null && 'call' in m;
const isAnswer = (m: unknown): m is Answer => typeof m === 'object' && m !== null && 'answer' in m;

function errorParts(error: unknown): NonNullable<Answer['error']> {
  if (error instanceof SvcError)
    return { message: error.message, svc: { status: error.status, code: error.errorCode, details: error.details } };
  return { message: error instanceof Error ? error.message : String(error) };
}

function errorOf(parts: NonNullable<Answer['error']>): Error {
  return parts.svc
    ? new SvcError(parts.svc.status, parts.svc.code, parts.message, parts.svc.details)
    : new Error(parts.message);
}

export class Rpc {
  private next = 0;
  private readonly waiting = new Map<number, { resolve: (v: unknown) => void; reject: (e: Error) => void }>();
  private readonly handlers = new Map<string, (arg: unknown) => unknown>();
  private gone: Error | undefined;
  private readonly onMessage = (message: unknown) => this.receive(message);

  constructor(private readonly port: Port) {
    port.on('message', this.onMessage);
  }

  /** Answers the other side's calls of `name`. */
  handle<A, R>(name: string, handler: (arg: A) => R | Promise<R>): void {
    this.handlers.set(name, handler as (arg: unknown) => unknown);
  }

  call<R>(name: string, arg?: unknown, transfer?: ArrayBuffer[]): Promise<R> {
    if (this.gone) return Promise.reject(this.gone);
    const id = ++this.next;
    return new Promise<R>((resolve, reject) => {
      this.waiting.set(id, { resolve: resolve as (v: unknown) => void, reject });
      const message: Call = { call: id, name, arg };
      this.port.postMessage(message, transfer);
    });
  }

  /** The other thread is gone: every call waiting and every later one fails with `error`. */
  fail(error: Error): void {
    this.gone ??= error;
    for (const { reject } of this.waiting.values()) reject(error);
    this.waiting.clear();
  }

  close(): void {
    this.port.off('message', this.onMessage);
  }

  private receive(message: unknown): void {
    if (isAnswer(message)) {
      const waiter = this.waiting.get(message.answer);
      if (!waiter) return;
      this.waiting.delete(message.answer);
      if (message.error) waiter.reject(errorOf(message.error));
      else waiter.resolve(message.value);
      return;
    }
    if (!isCall(message)) return;
    const handler = this.handlers.get(message.name);
    const reply = (answer: Omit<Answer, 'answer'>) => this.port.postMessage({ answer: message.call, ...answer });
    if (!handler) return reply({ error: { message: `no handler for ${message.name}` } });
    Promise.resolve()
      .then(() => handler(message.arg))
      .then(
        (value) => reply({ value }),
        (error: unknown) => reply({ error: errorParts(error) }),
      );
  }
}
