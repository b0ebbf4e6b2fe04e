// Loads the config, builds the app and listens; nothing else.
import { buildApp } from './app.js';
import { ConfigError, loadConfig } from './config.js';
import { loadModel } from './native.js';

let config;
try {
  config = loadConfig(process.env);
} catch (err) {
  if (err instanceof ConfigError) {
    process.stderr.write(`hora: ${err.message}\n`);
    process.exit(1);
  }
  throw err;
}

// The model (and ONNX Runtime) must load before the server listens: a missing or malformed
// file stops start-up with one sentence.
try {
  loadModel(process.env);
} catch (err) {
  process.stderr.write(`hora: ${(err as Error).message}\n`);
  process.exit(1);
}

/** Start-up stops with one sentence, never a stack trace. */
function stop(what: string, err: unknown): never {
  const message = err instanceof Error ? err.message : String(err);
  process.stderr.write(`hora: ${what}: ${message.split('\n')[0]}\n`);
  process.exit(1);
}

let app: Awaited<ReturnType<typeof buildApp>>;
try {
  app = await buildApp(config);
} catch (err) {
  stop(`the store under HORA_DATA_DIR=${config.dataDir} could not be opened`, err);
}
// A failure inside one request never takes the server down.
process.on('unhandledRejection', (err) => app.log.error({ err }, 'unhandled rejection'));
for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.once(signal, () => {
    void app.close().then(() => process.exit(0));
  });
}
try {
  await app.listen({ host: config.host, port: config.port });
} catch (err) {
  stop(`could not listen on ${config.host}:${config.port}`, err);
}
