import { MessageChannel } from 'node:worker_threads';
import { describe, expect, it } from 'vitest';
import { SvcError } from '../../model/errors.js';
import { Rpc } from './rpc.js';

// The calls between the engine's thread and the main one, over a real MessageChannel: answers by
// id in any order, both ways, SvcErrors crossing as SvcErrors, and a gone peer failing every call.

function pair(): [Rpc, Rpc, () => void] {
  const { port1, port2 } = new MessageChannel();
  const a = new Rpc(port1);
  const b = new Rpc(port2);
  return [a, b, () => (port1.close(), port2.close())];
}

describe('Rpc', () => {
  it('answers calls both ways, out of order', async () => {
    const [a, b, close] = pair();
    b.handle('slow', async (ms: number) => {
      await new Promise((resolve) => setTimeout(resolve, ms));
      return ms;
    });
    a.handle('twice', (n: number) => n * 2);
    const slow = a.call<number>('slow', 50);
    const fast = a.call<number>('slow', 1);
    expect(await b.call<number>('twice', 21)).toBe(42);
    expect(await fast).toBe(1);
    expect(await slow).toBe(50);
    close();
  });

  it('an SvcError crosses with its status, code and details; another error with its message', async () => {
    const [a, b, close] = pair();
    b.handle('bad', () => {
      throw new SvcError(400, 'UnknownInputTable', "unknown table 'x'", { name: 'x' });
    });
    b.handle('broken', () => {
      throw new Error('boom');
    });
    const error = await a.call('bad').catch((e: unknown) => e);
    expect(error).toBeInstanceOf(SvcError);
    expect((error as SvcError).toBody()).toEqual({
      message: "unknown table 'x'",
      error_code: 'UnknownInputTable',
      details: { name: 'x' },
    });
    await expect(a.call('broken')).rejects.toThrow('boom');
    await expect(a.call('missing')).rejects.toThrow('no handler for missing');
    close();
  });

  it('fail() rejects the calls waiting and every later one', async () => {
    const [a, b, close] = pair();
    b.handle('never', () => new Promise(() => undefined));
    const waiting = a.call('never');
    a.fail(new Error('the thread exited'));
    await expect(waiting).rejects.toThrow('the thread exited');
    await expect(a.call('never')).rejects.toThrow('the thread exited');
    close();
  });
});
