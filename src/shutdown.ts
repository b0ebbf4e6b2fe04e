// Graceful shutdown (SIGTERM, SIGINT): stop listening, let requests in flight finish, and close
// whatever is still open after a grace period. Without the deadline a client that stopped
// mid-body kept the process alive until it left, and an orchestrator's SIGKILL followed.
import type { IncomingMessage, ServerResponse } from 'node:http';
import { Server as NetServer, type Socket } from 'node:net';
import type { FastifyInstance } from 'fastify';
import { MAX_TIMER_MS, type Config } from './config.js';
import { longestModelRunMs } from './plugins/lease.js';

/** Beyond the longest model run (its wait and its budget), time to clean and send a response. */
const RESPONSE_MARGIN_MS = 10_000;
/** How often the requests whose connection is gone are looked at while there are any. */
const ORPHAN_SWEEP_MS = 1000;
/** How often a shutdown looks for requests still in flight and ends the connections now idle. */
const IDLE_CHECK_MS = 250;

/**
 * How long a shutdown waits for requests in flight: a forecast that got in before the signal can
 * still wait for the model and use its whole budget (45 s with the defaults). At most Node's longest
 * timer: a longer one fires at once, which would cut every request in flight.
 */
export function shutdownGraceMs(config: Pick<Config, 'inferenceWaitMs' | 'requestBudgetMs'>): number {
  return Math.min(longestModelRunMs(config) + RESPONSE_MARGIN_MS, MAX_TIMER_MS);
}

/**
 * Open connections and the requests each has in flight, from onRequest to onResponse, which
 * Fastify runs once the response's last byte has been handed to the OS. Node's own idle test
 * (server.closeIdleConnections, which server.close() also runs) counts a connection idle as soon
 * as its response has ended, while a large body may still be queued in the socket: destroying it
 * then cut a 34 MB forecast at 4 MB, and the request was billed.
 *
 * A request also outlives its connection: a client that resets it after sending its whole body
 * leaves the handler running to its end (billed, its outcome stored; docs/service.md). A shutdown
 * waits for it too, or the process exit drops the run and holds its key and quota for their leases.
 */
export class Connections {
  /** The requests in flight on each open connection. */
  private readonly inFlight = new Map<Socket, Set<IncomingMessage>>();
  /**
   * Every request not yet done, whatever became of its connection: it is done at onResponse or,
   * its connection gone (Fastify runs no onResponse then), once its response has ended, which
   * comes after every onSend hook (the billing, the stored outcome).
   */
  private readonly running = new Map<IncomingMessage, ServerResponse>();
  /** The running requests whose connection is gone (usually none). */
  private readonly orphans = new Set<IncomingMessage>();
  /** Sweeps the orphans while there are any, so an idle server lets their bodies go too. */
  private orphanSweep: NodeJS.Timeout | null = null;
  /** Work waiting for some of a connection's requests to be answered (one per connection). */
  private readonly waiters = new Map<Socket, { waitFor: Set<IncomingMessage>; run: () => void }>();
  /** The last request answered on each connection (its body may still be arriving). */
  private readonly lastAnswered = new WeakMap<Socket, IncomingMessage>();
  /** Connections whose response in progress carries `Connection: close`: their last. */
  private readonly last = new WeakSet<Socket>();
  /**
   * Set by a shutdown: the last response of each connection carries `Connection: close`, and a
   * connection the listening socket had already accepted is dropped.
   */
  closing = false;

  add(socket: Socket): void {
    if (this.closing) {
      socket.destroy();
      return;
    }
    this.inFlight.set(socket, new Set());
    owners.set(socket, this);
    socket.once('close', () => {
      for (const req of this.inFlight.get(socket) ?? []) this.orphaned(req);
      this.inFlight.delete(socket);
      this.waiters.delete(socket);
    });
  }

  begin(socket: Socket, req: IncomingMessage, res: ServerResponse): void {
    this.inFlight.get(socket)?.add(req);
    this.forgetOrphansDone();
    this.running.set(req, res);
  }

  /**
   * A request whose connection is gone is done once its response ends (`end()`, called after
   * every onSend hook), and no `finish` follows. Node emits `prefinish` then, so it is forgotten
   * at once, not held with its body; but not for a response queued behind another on its
   * connection (pipelined), which a sweep finds ended: each second while there are orphans, at
   * each request, and in a shutdown.
   */
  private orphaned(req: IncomingMessage): void {
    const res = this.running.get(req);
    if (!res || res.writableEnded) {
      this.forget(req);
      return;
    }
    this.orphans.add(req);
    res.once('prefinish', () => this.forget(req));
    this.orphanSweep ??= setInterval(() => this.forgetOrphansDone(), ORPHAN_SWEEP_MS).unref();
  }

  private forget(req: IncomingMessage): void {
    this.running.delete(req);
    this.orphans.delete(req);
  }

  /** Forgets the orphans whose response has ended. */
  private forgetOrphansDone(): void {
    for (const req of this.orphans) if (this.running.get(req)?.writableEnded !== false) this.forget(req);
    if (this.orphans.size === 0 && this.orphanSweep) {
      clearInterval(this.orphanSweep);
      this.orphanSweep = null;
    }
  }

  end(socket: Socket, req: IncomingMessage): void {
    this.inFlight.get(socket)?.delete(req);
    this.forget(req);
    this.lastAnswered.set(socket, req);
    const waiting = this.waiters.get(socket);
    if (!waiting?.waitFor.delete(req) || waiting.waitFor.size > 0) return;
    this.waiters.delete(socket);
    waiting.run();
  }

  /** Whether some request is still being received, run or sent. */
  get busy(): boolean {
    this.forgetOrphansDone();
    return this.pending > 0;
  }

  /** How many requests are not done (each holds its body until then). */
  get pending(): number {
    return this.running.size;
  }

  /** The request whose bytes are still arriving on `socket`, if any (headers read, body not). */
  receiving(socket: Socket): IncomingMessage | undefined {
    return [...(this.inFlight.get(socket) ?? [])].find((req) => !req.complete);
  }

  /**
   * Runs `fn` once the requests received in full on `socket` by now have been answered (at once
   * when there are none). A request still being received is not waited for: it is the one a
   * parser error or the request timeout concerns. Never runs if the connection closes first.
   * One per connection (the transport-error handler refuses a connection once).
   */
  afterAnswered(socket: Socket, fn: () => void): void {
    const waitFor = new Set([...(this.inFlight.get(socket) ?? [])].filter((req) => req.complete));
    if (waitFor.size === 0) fn();
    else this.waiters.set(socket, { waitFor, run: fn });
  }

  /**
   * Whether the bytes arriving on `socket` are the rest of a body whose request was already
   * answered (a 401 or 404 is sent before the body is read): an error in them has no request
   * left to answer.
   */
  answeredBeforeItsBody(socket: Socket): boolean {
    const last = this.lastAnswered.get(socket);
    return last !== undefined && !last.complete && this.receiving(socket) === undefined;
  }

  /**
   * Marks the response in progress on `socket` as its last: it closes the connection (a shutdown,
   * a request refused for lacking Host).
   */
  markLast(socket: Socket): void {
    this.last.add(socket);
  }

  /** Whether a request read now from `socket` could never be answered. */
  unanswerable(socket: Socket): boolean {
    return this.last.has(socket) || (this.closing && socket.writableEnded);
  }

  /** Requests in flight on `socket`, this one included. */
  on(socket: Socket): number {
    return this.inFlight.get(socket)?.size ?? 0;
  }

  /**
   * Closes every connection with nothing in flight once what it still has queued is sent
   * (destroySoon): no FIN left half-open for a client that never closes its side.
   */
  endIdle(): void {
    for (const [socket, reqs] of this.inFlight) if (reqs.size === 0 && !socket.writableEnded) socket.destroySoon();
  }
}

/** The tracker of each connection, for the transport-error handler, which Node calls with the socket alone. */
const owners = new WeakMap<Socket, Connections>();

export function connectionsOf(socket: Socket): Connections | undefined {
  return owners.get(socket);
}

/** Tracks the app's connections for closeGracefully (buildApp calls it once). */
export function trackConnections(app: FastifyInstance): void {
  const connections = new Connections();
  app.decorate('connections', connections);
  app.server.on('connection', (socket: Socket) => connections.add(socket));
  app.addHook('onRequest', (req, reply, done) => {
    const socket = req.raw.socket;
    // A request read from a connection the shutdown has ended, or behind a response that closes
    // it, can never be answered: it is not run (nor counted, nor billed). An ended connection
    // goes at once; one still sending its last response closes when that is sent.
    if (connections.unanswerable(socket)) {
      reply.hijack();
      if (socket.writableEnded) socket.destroy();
      done();
      return;
    }
    connections.begin(socket, req.raw, reply.raw);
    done();
  });
  app.addHook('onSend', (req, reply, payload, done) => {
    // The last request in flight on its connection closes it; an earlier one must not, or Node
    // drops the responses of the requests pipelined behind it after they ran.
    if (connections.closing && connections.on(req.raw.socket) <= 1) {
      reply.header('Connection', 'close');
      connections.markLast(req.raw.socket);
    }
    done(null, payload);
  });
  app.addHook('onResponse', (req, _reply, done) => {
    connections.end(req.raw.socket, req.raw);
    done();
  });
}

/**
 * Stops accepting connections (a client then gets ECONNREFUSED at once) without the idle test
 * that http.Server.close() runs first. Fastify's own close later meets a server already closed,
 * which it expects (ERR_SERVER_NOT_RUNNING).
 */
function stopListening(app: FastifyInstance): void {
  if (app.server.listening) NetServer.prototype.close.call(app.server);
}

/**
 * Closes the app: no new connections; requests in flight answered and their responses sent in
 * full; idle keep-alive connections ended; after `graceMs` every connection left is closed, so
 * `close` resolves even when a client never finishes its request or never reads its response.
 */
export async function closeGracefully(app: FastifyInstance, graceMs: number): Promise<void> {
  const connections = app.connections;
  connections.closing = true;
  stopListening(app);
  let expired = false;
  const deadline = setTimeout(() => {
    app.log.warn(`shutdown: closing the connections still open after ${graceMs} ms`);
    expired = true;
    app.server.closeAllConnections();
  }, graceMs);
  try {
    // server.close() (in app.close) destroys connections whose response has ended but may not
    // have been sent: it runs only once every response has been handed to the OS.
    // Past the deadline a request still running (its connection now closed) is not waited for.
    while (connections.busy && !expired) {
      connections.endIdle();
      await new Promise((resolve) => setTimeout(resolve, IDLE_CHECK_MS));
    }
    connections.endIdle();
    await app.close();
  } finally {
    clearTimeout(deadline);
  }
}
