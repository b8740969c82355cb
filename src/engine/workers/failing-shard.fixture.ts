// A shard worker whose module fails to load (pool.test.ts): it ends before it could say so in the
// shared signal, as a broken install or a module that throws at import would.
throw new Error('this shard worker fails as its module loads');
