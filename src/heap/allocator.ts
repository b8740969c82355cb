// The C allocator of a pipeline process (glibc's malloc), set through its environment: glibc reads it
// once, as the process starts, so whoever starts a pipeline passes it (the local runner's spawn,
// the image's ENV for a pod), and bench:engine's lanes get it the same way.
//
// Node allocates the backing store of every ArrayBuffer with malloc: the native engine's columns and
// traces (typed arrays that grow by doubling), rows crossing threads, PGlite's in-memory files.
// glibc serves a large request with mmap, but the first time such a block is freed it raises its
// threshold to that block's size (up to 32 MiB), so from then on blocks of up to that size come from
// its heaps, whose freed space stays part of the process's RSS wherever a live block sits above it.
// A fixed threshold keeps every block of 128 KiB or more on its own mapping, given back when freed.
// Measured (2026-12-07, 2 cores): an engine from dist/ on one thread, after bench:engine's 1,000,000
// orders, RSS 331 → 280 MiB (127 → 108 MiB once loaded); a pipeline of `svc manager` with the same
// program, 186 → 166 MiB once started, 422 → 397 MiB after 200,000 orders; throughput within noise.

/** The environment of a pipeline process's allocator (its own environment may override it). */
export const ALLOCATOR_ENV: Readonly<Record<string, string>> = {
  MALLOC_MMAP_THRESHOLD_: '131072',
};
