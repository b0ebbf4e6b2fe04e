// Graceful shutdown (SIGTERM, SIGINT): stop listening, let requests in flight finish, and close
// whatever is still open after a grace period. Without the deadline a client that stopped
// mid-body kept the process alive until it left, and an orchestrator's SIGKILL followed.
import type { FastifyInstance } from 'fastify';
import type { Config } from './config.js';
import { longestModelRunMs } from './plugins/lease.js';

/** Beyond the longest model run (its wait and its budget), time to clean and send a response. */
const RESPONSE_MARGIN_MS = 10_000;
/** How often a shutdown closes the keep-alive connections that went idle since it began. */
const IDLE_CHECK_MS = 250;

/**
 * How long a shutdown waits for requests in flight: a forecast that got in before the signal can
 * still wait for the model and use its whole budget (45 s with the defaults).
 */
export function shutdownGraceMs(config: Pick<Config, 'inferenceWaitMs' | 'requestBudgetMs'>): number {
  return longestModelRunMs(config) + RESPONSE_MARGIN_MS;
}

/**
 * Closes the app: no new connections, idle keep-alive ones closed at once (Node's server.close),
 * requests in flight answered; after `graceMs` every connection left is closed, so `close`
 * resolves even when a client never finishes its request.
 */
export async function closeGracefully(app: FastifyInstance, graceMs: number): Promise<void> {
  // Node's server.close closes the connections idle at that moment only; a keep-alive connection
  // whose response is sent later would stay open until its keep-alive timeout (72 s).
  const idle = setInterval(() => app.server.closeIdleConnections(), IDLE_CHECK_MS);
  const deadline = setTimeout(() => {
    app.log.warn(`shutdown: closing the connections still open after ${graceMs} ms`);
    app.server.closeAllConnections();
  }, graceMs);
  try {
    await app.close();
  } finally {
    clearInterval(idle);
    clearTimeout(deadline);
  }
}
