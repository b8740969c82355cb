import type { V1Pod } from '@kubernetes/client-node';
import { describe, expect, it } from 'vitest';
import { type LossHistory, lossVerdict, observeLosses } from './pod-loss.js';

const DEP = 'dep-1';
const T0 = Date.parse('2026-11-26T12:00:00Z');
const POLICY = { maxRestarts: 2, windowMs: 60_000 };

function pod(
  uid: string,
  over: { restarts?: number; reason?: string; deleting?: boolean; phase?: string } = {},
): V1Pod {
  return {
    metadata: { name: 'pipeline-x-0', uid, ...(over.deleting && { deletionTimestamp: new Date(T0) }) },
    status: {
      phase: over.phase ?? 'Running',
      containerStatuses: [
        {
          name: 'pipeline',
          image: 'i',
          imageID: '',
          ready: true,
          restartCount: over.restarts ?? 0,
          state: { running: {} },
          ...(over.reason && { lastState: { terminated: { exitCode: 137, reason: over.reason } } }),
        },
      ],
    },
  };
}

/** Feeds looks one after the other, as the informer would show them; returns each look's fresh losses. */
function looks(seq: Array<[V1Pod | undefined, number]>, start?: LossHistory) {
  let history = start;
  const fresh: string[][] = [];
  for (const [p, at] of seq) {
    const r = observeLosses(history, DEP, 'pipeline-x-0', p, at);
    history = r.history;
    fresh.push(r.fresh.map((l) => l.reason));
  }
  if (!history) throw new Error('no look');
  return { history, fresh };
}

describe('observeLosses', () => {
  it('the first look counts nothing, whatever restarts the pod had before the runner watched it', () => {
    const { history, fresh } = looks([[pod('a', { restarts: 4, reason: 'OOMKilled' }), T0]]);
    expect(fresh).toEqual([[]]);
    expect(history.losses).toEqual([]);
  });

  it('a deleted pod is one loss, whether a look saw it gone, saw it deleting, or only saw its successor', () => {
    expect(
      looks([
        [pod('a'), T0],
        [undefined, T0 + 1],
        [pod('b'), T0 + 2],
      ]).fresh,
    ).toEqual([[], ['Deleted'], []]);
    expect(
      looks([
        [pod('a'), T0],
        [pod('a', { deleting: true }), T0 + 1],
        [undefined, T0 + 2],
        [pod('b'), T0 + 3],
      ]).fresh,
    ).toEqual([[], ['Deleted'], [], []]);
    expect(
      looks([
        [pod('a'), T0],
        [pod('b'), T0 + 1],
      ]).fresh,
    ).toEqual([[], ['Replaced']]);
  });

  it('an evicted pod (phase Failed) is a loss named by its reason', () => {
    const evicted = { ...pod('a'), status: { phase: 'Failed', reason: 'Evicted', message: 'node low on memory' } };
    const { history } = looks([
      [pod('a'), T0],
      [evicted, T0 + 1],
      [evicted, T0 + 2],
    ]);
    expect(history.losses).toMatchObject([{ reason: 'Evicted', message: 'node low on memory' }]);
  });

  it('each restart of the container is a loss once, named by how it ended', () => {
    const { history, fresh } = looks([
      [pod('a'), T0],
      [pod('a', { restarts: 1, reason: 'OOMKilled' }), T0 + 1],
      [pod('a', { restarts: 1, reason: 'OOMKilled' }), T0 + 2],
      [pod('a', { restarts: 3, reason: 'Error' }), T0 + 3],
    ]);
    expect(fresh).toEqual([[], ['OOMKilled'], [], ['Error', 'Error']]);
    expect(history.losses[0]?.message).toBe('container pipeline ran out of memory (exit code 137)');
  });

  it('a new pod counts its own restarts from zero', () => {
    const { fresh } = looks([
      [pod('a'), T0],
      [pod('b', { restarts: 1, reason: 'Error' }), T0 + 1],
    ]);
    expect(fresh).toEqual([[], ['Replaced', 'Error']]);
  });

  it('a new deployment starts a new history', () => {
    const { history } = looks([
      [pod('a'), T0],
      [undefined, T0 + 1],
    ]);
    const next = observeLosses(history, 'dep-2', 'pipeline-x-0', pod('c'), T0 + 2);
    expect(next.history.losses).toEqual([]);
    expect(next.fresh).toEqual([]);
  });
});

describe('lossVerdict', () => {
  it('tolerates maxRestarts losses within the window; one more fails, naming the last loss', () => {
    const seq: Array<[V1Pod, number]> = [0, 1, 2, 3].map((n) => [
      pod('a', { restarts: n, reason: 'OOMKilled' }),
      T0 + n,
    ]);
    const two = looks(seq.slice(0, 3)).history;
    expect(lossVerdict(two, T0 + 3, POLICY)).toBeUndefined();
    const three = looks(seq).history;
    expect(lossVerdict(three, T0 + 4, POLICY)).toEqual({
      error_code: 'ResourceError',
      message:
        'Pod pipeline-x-0: OOMKilled: container pipeline ran out of memory (exit code 137); 3 restarts within 60 s, more than the 2 tolerated',
      details: {
        kind: 'Pod',
        name: 'pipeline-x-0',
        reason: 'OOMKilled',
        message:
          'container pipeline ran out of memory (exit code 137); 3 restarts within 60 s, more than the 2 tolerated',
      },
    });
  });

  it('forgets losses older than the window', () => {
    const spaced: Array<[V1Pod, number]> = [0, 1, 2, 3].map((n) => [pod('a', { restarts: n }), T0 + n * 30_000]);
    expect(lossVerdict(looks(spaced).history, T0 + 90_000, POLICY)).toBeUndefined();
  });
});
