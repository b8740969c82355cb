import { describe, expect, it } from 'vitest';
import { EVENT_SETTLE_MS, EventGrouper } from './log-events.js';

// A hand-driven clock: the grouper's only I/O besides its output.
function harness() {
  const events: string[] = [];
  let due: { fn: () => void; at: number } | undefined;
  let now = 0;
  const grouper = new EventGrouper({
    onEvent: (e) => events.push(e),
    setTimer: (fn, ms) => ((due = { fn, at: now + ms }), {}),
    clearTimer: () => (due = undefined),
  });
  const advance = (ms: number) => {
    now += ms;
    if (due && due.at <= now) {
      const { fn } = due;
      due = undefined;
      fn();
    }
  };
  return { events, grouper, advance };
}

describe('EventGrouper', () => {
  it('joins pino-pretty field and stack lines to the event above them', () => {
    const { events, grouper, advance } = harness();
    for (const line of [
      '[12:00:00.000] INFO (pipeline): pipeline initialization complete',
      '    pipeline-name: "orders"',
      '    pipeline-id: "0190"',
      '[12:00:01.000] WARN (pipeline): checkpoint failed',
      '    err: {',
      '      "message": "disk"',
      '    }',
    ])
      grouper.push(line);
    expect(events).toEqual([
      '[12:00:00.000] INFO (pipeline): pipeline initialization complete\n    pipeline-name: "orders"\n    pipeline-id: "0190"',
    ]);
    advance(EVENT_SETTLE_MS);
    expect(events).toHaveLength(2);
    expect(events[1]?.split('\n')).toHaveLength(4);
  });

  it('relays one-line events (JSON logs) one each, after the settle time or the next event', () => {
    const { events, grouper, advance } = harness();
    grouper.push('{"level":"INFO","fields":{"message":"a"}}');
    advance(EVENT_SETTLE_MS - 1);
    expect(events).toEqual([]);
    grouper.push('{"level":"INFO","fields":{"message":"b"}}');
    expect(events).toEqual(['{"level":"INFO","fields":{"message":"a"}}']);
    advance(EVENT_SETTLE_MS);
    expect(events).toHaveLength(2);
  });

  it('keeps an indented first line as an event of its own and flushes on demand', () => {
    const { events, grouper } = harness();
    grouper.push('   orphan');
    grouper.push('head');
    grouper.push('  tail');
    grouper.flush();
    grouper.flush();
    expect(events).toEqual(['   orphan', 'head\n  tail']);
  });
});
