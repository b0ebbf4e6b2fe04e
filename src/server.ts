// The server's entry (`npm start`). Signal handlers come first, before the modules that take half
// a second to load (Fastify, the addon): a SIGTERM or SIGINT during start-up, before anything is
// served, exits 0 at once instead of meeting Node's default action (status 143 or 130).
import type { SignalRoute } from './startup.js';

const signals: SignalRoute = {};
for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.on(signal, () => (signals.onSignal ? signals.onSignal(signal) : process.exit(0)));
}

const { start } = await import('./startup.js');
await start(signals);
