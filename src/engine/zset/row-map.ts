import type { Value } from '../expressions/types.js';
import { hashRow, sameRow } from './row-hash.js';

// A map from rows (by their identity, row-hash.ts) to values: per-row state such as DISTINCT's
// counts. Rows that share a hash are chained; a chain is almost always one slot long.

interface Slot<T> {
  readonly row: readonly Value[];
  value: T;
  next: Slot<T> | undefined;
}

export class RowMap<T> {
  private readonly slots = new Map<number, Slot<T>>();
  private count = 0;

  get size(): number {
    return this.count;
  }

  get(row: readonly Value[]): T | undefined {
    for (let s = this.slots.get(hashRow(row)); s; s = s.next) if (sameRow(s.row, row)) return s.value;
    return undefined;
  }

  /** Sets the row's value; `undefined` removes the row. */
  set(row: readonly Value[], value: T | undefined): void {
    const h = hashRow(row);
    const head = this.slots.get(h);
    let prev: Slot<T> | undefined;
    for (let s = head; s; prev = s, s = s.next) {
      if (!sameRow(s.row, row)) continue;
      if (value !== undefined) s.value = value;
      else {
        this.count -= 1;
        if (prev) prev.next = s.next;
        else if (s.next) this.slots.set(h, s.next);
        else this.slots.delete(h);
      }
      return;
    }
    if (value === undefined) return;
    this.count += 1;
    this.slots.set(h, { row, value, next: head });
  }

  clear(): void {
    this.slots.clear();
    this.count = 0;
  }

  *entries(): IterableIterator<[readonly Value[], T]> {
    for (const head of this.slots.values())
      for (let s: Slot<T> | undefined = head; s; s = s.next) yield [s.row, s.value];
  }
}
