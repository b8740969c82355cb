import { describe, expect, it } from 'vitest';
import { startWatchdog } from './watchdog.js';

// The watchdog counts the runner's silence, not time this process could not run: a blocked event
// loop (its timer could not tick) is not the runner's absence; real silence afterwards still is.

const blockFor = (ms: number) => {
  const end = Date.now() + ms;
  while (Date.now() < end) {
    // the event loop is stuck, as a process whose only thread is busy
  }
};
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe('orphan watchdog', () => {
  it('does not count a stall of this process as the runner being gone', async () => {
    let orphaned = 0;
    const dog = startWatchdog(300, () => orphaned++);
    await sleep(50);
    blockFor(1_000);
    // The first tick after the stall sees it and moves the runner's last call on by it.
    await sleep(200);
    expect(orphaned).toBe(0);
    // Silence after that is the runner's: the watchdog fires.
    await expect.poll(() => orphaned, { timeout: 5_000, interval: 50 }).toBe(1);
    dog.stop();
  });
});
