import { parseExact } from '../../model/exact-json.js';
import type { Change } from '../types.js';
import type { WireOutput } from './hosted.js';

/**
 * A step's changes per view as the main thread holds them: parsed from the JSON text they crossed
 * as only when something reads them (an output connector, a CSV egress stream, a test's listener).
 * A JSON egress stream writes their `json_data` text instead (StepResult.jsonData), so a step that
 * only such streams watch is never parsed on the thread that serves HTTP. Read-only.
 */
export class WireOutputs extends Map<string, Change[]> {
  private readonly texts = new Map<string, string>();

  constructor(outputs: readonly WireOutput[]) {
    super();
    for (const o of outputs) this.texts.set(o.view, o.changes);
  }

  override get(view: string): Change[] | undefined {
    const parsed = super.get(view);
    if (parsed !== undefined) return parsed;
    const text = this.texts.get(view);
    if (text === undefined) return undefined;
    const changes = parseExact(text) as Change[];
    super.set(view, changes);
    return changes;
  }

  override has(view: string): boolean {
    return this.texts.has(view);
  }

  override get size(): number {
    return this.texts.size;
  }

  override keys(): MapIterator<string> {
    return this.texts.keys();
  }

  override *entries(): MapIterator<[string, Change[]]> {
    for (const view of this.texts.keys()) yield [view, this.get(view)!];
  }

  override *values(): MapIterator<Change[]> {
    for (const view of this.texts.keys()) yield this.get(view)!;
  }

  override [Symbol.iterator](): MapIterator<[string, Change[]]> {
    return this.entries();
  }

  override forEach(each: (changes: Change[], view: string, map: Map<string, Change[]>) => void, self?: unknown): void {
    for (const [view, changes] of this.entries()) each.call(self, changes, view, this);
  }

  override set(): this {
    throw new Error("a step's outputs are read-only");
  }

  override delete(): boolean {
    throw new Error("a step's outputs are read-only");
  }

  override clear(): void {
    throw new Error("a step's outputs are read-only");
  }
}

/** The outputs as the query replica takes them: JSON text of [view, changes][] (no parse here). */
export const replicaText = (outputs: readonly WireOutput[]): string =>
  `[${outputs.map((o) => `[${JSON.stringify(o.view)},${o.changes}]`).join(',')}]`;
