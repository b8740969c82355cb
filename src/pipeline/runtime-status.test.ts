import { describe, expect, it } from 'vitest';
import { activate, bootstrapDecision, type Desired, requestDesired, settledStatus } from './runtime-status.js';

const ALL: Desired[] = ['Standby', 'Paused', 'Running', 'Suspended'];
const LEGAL = new Set([
  'Standby>Paused',
  'Standby>Running',
  'Paused>Running',
  'Running>Paused',
  'Paused>Suspended',
  'Running>Suspended',
]);

describe('requestDesired: the desired transitions of LIFECYCLE.md', () => {
  const rows = ALL.flatMap((from) => ALL.map((to) => [from, to] as const));
  it.each(rows)('%s → %s', (from, to) => {
    const result = requestDesired(from, to);
    const expected = from === to || LEGAL.has(`${from}>${to}`);
    expect(result.ok).toBe(expected);
    if (result.ok) expect(result.desired).toBe(to);
    else {
      expect(result.error.status).toBe(400);
      expect(result.error.toBody()).toEqual({
        error_code: 'IllegalRuntimeTransition',
        message: `cannot change the desired runtime status from ${from} to ${to}`,
        details: { from, to },
      });
    }
  });
});

describe('activate', () => {
  it.each<[Desired, 'Paused' | 'Running', boolean]>([
    ['Standby', 'Running', true],
    ['Standby', 'Paused', true],
    ['Paused', 'Running', false],
    ['Running', 'Running', false],
    ['Suspended', 'Paused', false],
  ])('from %s to %s → %s', (from, to, ok) => {
    const result = activate(from, to);
    expect(result.ok).toBe(ok);
    if (!result.ok) expect(result.error.details).toEqual({ from, to, action: 'activate' });
  });
});

describe('settledStatus: --initial becomes the status', () => {
  it.each<[Desired, string]>([
    ['Running', 'Running'],
    ['Paused', 'Paused'],
    ['Standby', 'Standby'],
  ])('%s', (desired, status) => expect(settledStatus(desired)).toBe(status));
});

describe('bootstrapDecision', () => {
  it.each([
    [undefined, 'allow', 'fresh'],
    [undefined, 'reject', 'fresh'],
    ['a', 'reject', 'replay'],
    ['a', 'await_approval', 'replay'],
    ['b', 'allow', 'bootstrap'],
    ['b', 'await_approval', 'await_approval'],
    ['b', 'reject', 'reject'],
  ] as const)('checkpoint %s, policy %s → %s', (checkpoint, policy, kind) => {
    const decision = bootstrapDecision(checkpoint, 'a', policy);
    expect(decision.kind).toBe(kind);
    if (decision.kind === 'reject') {
      expect(decision.error.errorCode).toBe('BootstrapRejected');
      expect(decision.error.status).not.toBe(200);
      expect(decision.error.status).not.toBe(503); // 503 would read as Unavailable, not fatal
    }
  });
});
