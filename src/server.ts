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

const app = await buildApp(config);
// A failure inside one request never takes the server down.
process.on('unhandledRejection', (err) => app.log.error({ err }, 'unhandled rejection'));
for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.once(signal, () => {
    void app.close().then(() => process.exit(0));
  });
}
await app.listen({ host: config.host, port: config.port });
