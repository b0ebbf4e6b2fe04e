// Loads the config and the model, builds the app and listens; src/server.ts (the entry) calls it
// once its signal handlers are in place.
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

/** What the entry's signal handlers call once the app exists (before that, a signal exits 0). */
export interface SignalRoute {
  onSignal?: (signal: NodeJS.Signals) => void;
}

export async function start(signals: SignalRoute): Promise<void> {
  let config;
  try {
    config = loadConfig(process.env);
  } catch (err) {
    if (!(err instanceof ConfigError)) throw err;
    stop(err);
  }

  // The model (and ONNX Runtime) must load before the server listens: a missing or malformed
  // file stops start-up with one sentence.
  try {
    loadModel(process.env);
  } catch (err) {
    stop(err);
  }

  let app: Awaited<ReturnType<typeof buildApp>>;
  try {
    app = await buildApp(config);
  } catch (err) {
    stop(err);
  }
  // One shutdown per process. A second signal (an operator's repeated `kill`, Ctrl-C twice) must
  // not meet Node's default action, which kills the process mid-response: it is logged, and the
  // grace period still bounds the wait.
  let closing = false;
  signals.onSignal = (signal) => {
    if (closing) {
      app.log.warn(`${signal} during shutdown: already closing (at most ${shutdownGraceMs(config)} ms in all)`);
      return;
    }
    closing = true;
    void closeGracefully(app, shutdownGraceMs(config)).then(() => process.exit(0));
  };
  // A failure inside one request never takes the server down.
  process.on('unhandledRejection', (err) => app.log.error({ err }, 'unhandled rejection'));
  try {
    await app.listen({ host: config.host, port: config.port });
  } catch (err) {
    stop(err, `could not listen on ${config.host}:${config.port}`);
  }
}
