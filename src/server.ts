// Loads the config, builds the app and listens; nothing else.
import { buildApp } from './app.js';
import { ConfigError, loadConfig } from './config.js';

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

const app = await buildApp(config);
// A failure inside one request never takes the server down.
process.on('unhandledRejection', (err) => app.log.error({ err }, 'unhandled rejection'));
for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.once(signal, () => {
    void app.close().then(() => process.exit(0));
  });
}
await app.listen({ host: config.host, port: config.port });
