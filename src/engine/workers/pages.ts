// Reading something long on a shard a page at a time (a circuit's state for a checkpoint, a
// table's rows kept there): the shard keeps a cursor per thing being read between the engine's
// requests, and the engine's thread asks page after page until the last. Nothing else runs on the
// shard meanwhile (a checkpoint or a take-back runs in the engine's turn), and a read that stopped
// part way is started again from the beginning by its next first request.

/** The shard's side: a cursor per key, read `limit` items at a time. */
export class Cursors<K, T> {
  private readonly open = new Map<K, Iterator<T>>();

  /** The next `limit` items of what `start` reads, from its beginning when `first`. */
  page(key: K, first: boolean, limit: number, start: () => Iterator<T>): { items: T[]; done: boolean } {
    if (first) this.open.delete(key);
    let cursor = this.open.get(key);
    if (!cursor) this.open.set(key, (cursor = start()));
    const items: T[] = [];
    while (items.length < limit) {
      const next = cursor.next();
      if (next.done) {
        this.open.delete(key);
        return { items, done: true };
      }
      items.push(next.value);
    }
    return { items, done: false };
  }
}

/** The engine's side: every item of the pages `ask` gives, asked for one after another. */
export function* pages<T>(ask: (first: boolean) => { items: Iterable<T>; done: boolean } | undefined): Generator<T> {
  for (let first = true; ; first = false) {
    const page = ask(first);
    if (page) yield* page.items;
    if (!page || page.done) return;
  }
}
