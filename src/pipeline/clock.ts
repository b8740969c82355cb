import { SvcError } from '../model/errors.js';

// The pipeline's NOW() (seed 2.6 clock_resolution_usecs, dev_tweaks.now_http_driven / now_offset).
// Where the clock starts is a pure decision (startingNow, the seed's resume table); the Clock class
// then moves it at wall-clock pace, ticking at most once per resolution, or only on
// POST /clock/advance when it is HTTP-driven.

export interface ClockStart {
  /** dev_tweaks.now_offset of this run, in epoch ms. */
  offsetMs: number | undefined;
  /** NOW() journaled in the checkpoint this run resumes from, if it resumes. */
  journaledMs: number | undefined;
  wallMs: number;
}

/**
 * NOW() at start. Fresh start: the offset, else the wall clock. Resume: with an offset now, the
 * clock continues from the journaled value (the new offset is ignored); without one, it is the wall
 * clock (both "no offset now" rows of the table).
 */
export function startingNow({ offsetMs, journaledMs, wallMs }: ClockStart): number {
  if (journaledMs === undefined) return offsetMs ?? wallMs;
  return offsetMs === undefined ? wallMs : journaledMs;
}

const RFC3339 = /^\d{4}-\d{2}-\d{2}[Tt ]\d{2}:\d{2}:\d{2}(\.\d+)?([Zz]|[+-]\d{2}:\d{2})$/;

/** now_offset (RFC 3339, years 0001-9999) → epoch ms, or undefined when it is not one. */
export function parseOffset(text: string): number | undefined {
  if (!RFC3339.test(text) || text.startsWith('0000')) return undefined;
  const ms = Date.parse(text);
  return Number.isNaN(ms) ? undefined : ms;
}

export interface ClockOptions {
  start: number;
  httpDriven: boolean;
  resolutionMs: number;
  wall?: () => number;
}

export class Clock {
  private readonly wall: () => number;
  private readonly wallAtStart: number;
  private current: number;
  private advanced = 0;

  constructor(private readonly opts: ClockOptions) {
    this.wall = opts.wall ?? Date.now;
    this.wallAtStart = this.wall();
    this.current = opts.start;
  }

  get httpDriven(): boolean {
    return this.opts.httpDriven;
  }

  /** NOW() as the program sees it: the last tick. */
  now(): number {
    return this.current;
  }

  /**
   * Moves a wall-driven clock to wall-clock pace; the caller calls it once per resolution, which is
   * what bounds how often NOW() changes. An HTTP-driven clock holds its value.
   */
  tick(): number {
    if (!this.opts.httpDriven) this.current = this.opts.start + this.advanced + (this.wall() - this.wallAtStart);
    return this.current;
  }

  /** POST /clock/advance: forward only, HTTP-driven clocks only. */
  advance(deltaMs: number): number {
    if (!this.opts.httpDriven)
      throw new SvcError(400, 'InvalidClockAdvance', 'the clock is not HTTP-driven (dev_tweaks.now_http_driven)');
    if (!Number.isSafeInteger(deltaMs) || deltaMs < 0)
      throw new SvcError(
        400,
        'InvalidClockAdvance',
        'delta_ms must be a non-negative integer: the clock is forward-only',
        {
          delta_ms: Number.isFinite(deltaMs) ? deltaMs : String(deltaMs),
        },
      );
    this.advanced += deltaMs;
    this.current += deltaMs;
    return this.current;
  }
}
