// Preloaded by `npm start` (`node --require`): sizes Node's thread pool before anything uses it.
// Every engine task runs there (parsing, digests, each forecast's cleaning, the /clean dry runs),
// and its default of 4 threads is filled by the default cleaning capacity on a host of more than
// 2 cores, where forecasts then wait for dry runs. The pool starts with the first asynchronous
// file read, which an ES module's loading makes, so the size is set here, in a CommonJS preload.
// An operator's own UV_THREADPOOL_SIZE is kept.
'use strict';
const { availableParallelism } = require('node:os');

/** The pool for `env`: the cleaning capacity plus the cores, at least libuv's 4, at most its 1024. */
function threadPoolSize(env, cores) {
  // HORA_CLEAN_CAPACITY as src/config.ts reads it; a value it refuses stops the start anyway.
  const raw = (env.HORA_CLEAN_CAPACITY ?? '').trim();
  const capacity = /^[0-9]+$/.test(raw) && Number(raw) >= 1 ? Number(raw) : cores;
  return Math.min(1024, Math.max(4, capacity + cores));
}

if ((process.env.UV_THREADPOOL_SIZE ?? '').trim() === '') {
  process.env.UV_THREADPOOL_SIZE = String(threadPoolSize(process.env, availableParallelism()));
}

module.exports = { threadPoolSize };
