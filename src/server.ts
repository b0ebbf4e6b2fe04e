// Loads the config, builds the app and listens; nothing else.
import { buildApp } from './app.js';
import { ConfigError, loadConfig } from './config.js';
import { loadModel } from './native.js';
import { closeGracefully, shutdownGraceMs } from './shutdown.js';

/** Start-up stops with one sentence, never a stack trace; `what` says which step failed. */
function stop(err: unknown, what?: string): never {
  const message = (err instanceof Error ? err.message : String(err)).split('\n')[0];
  process.stderr.write(`hora: ${what ? `${what}: ` : ''}${message}\n`);
  process.exit(1);
}

let config;
try {
  config = loadConfig(process.env);
} catch (err) {
  if (!(err instanceof ConfigError)) throw err;
  stop(err);
}

let app: Awaited<ReturnType<typeof buildApp>> | undefined;
// One shutdown per process. A second signal (an operator's repeated `kill`, Ctrl-C twice) must
// not meet Node's default action, which kills the process mid-response: it is logged, and the
// grace period still bounds the wait. A signal during start-up, before anything is served, ends
// the process at once, with status 0 as a shutdown does.
let closing = false;
for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.on(signal, () => {
    if (app === undefined) process.exit(0);
    if (closing) {
      app.log.warn(`${signal} during shutdown: already closing (at most ${shutdownGraceMs(config)} ms in all)`);
      return;
    }
    closing = true;
    void closeGracefully(app, shutdownGraceMs(config)).then(() => process.exit(0));
  });
}

// The model (and ONNX Runtime) must load before the server listens: a missing or malformed
// file stops start-up with one sentence.
try {
  loadModel(process.env);
} catch (err) {
  stop(err);
}

try {
  app = await buildApp(config);
} catch (err) {
  stop(err);
}
// A failure inside one request never takes the server down.
process.on('unhandledRejection', (err) => app!.log.error({ err }, 'unhandled rejection'));
try {
  await app.listen({ host: config.host, port: config.port });
} catch (err) {
  stop(err, `could not listen on ${config.host}:${config.port}`);
}
