// Capacity: a bounded number of model runs in flight with a bounded wait queue (503 MODEL_BUSY
// beyond it), a run budget (504 GATEWAY_TIMEOUT), and the cleaning capacity shared by all
// accounts, which never queues (503 SERVICE_UNAVAILABLE).
import type { FastifyRequest } from 'fastify';
import fp from 'fastify-plugin';
import { ApiError } from '../errors.js';

/** Seconds a caller is told to wait on 503 MODEL_BUSY and on a full cleaning capacity. */
export const BUSY_RETRY_AFTER_S = 1;

export interface CapacitySlot {
  /** Frees the slot; later calls do nothing. */
  release(): void;
}

interface Waiter {
  grant: () => void;
  timer: NodeJS.Timeout;
}

/** A counting semaphore with a bounded FIFO queue and a bounded wait. */
export class Semaphore {
  private inFlight = 0;
  private readonly queue: Waiter[] = [];

  constructor(
    readonly slots: number,
    readonly maxQueue: number,
    readonly maxWaitMs: number,
  ) {}

  get running(): number {
    return this.inFlight;
  }

  get waiting(): number {
    return this.queue.length;
  }

  /** A slot now, or null when all are taken (never waits). */
  tryAcquire(): CapacitySlot | null {
    if (this.inFlight >= this.slots) return null;
    this.inFlight++;
    return this.slot();
  }

  /** A slot now or after a wait; rejects with `busy()` when the queue is full or the wait too long. */
  acquire(busy: () => Error): Promise<CapacitySlot> {
    const now = this.tryAcquire();
    if (now) return Promise.resolve(now);
    if (this.queue.length >= this.maxQueue || this.maxWaitMs <= 0) return Promise.reject(busy());
    return new Promise((resolve, reject) => {
      const waiter: Waiter = {
        grant: () => {
          clearTimeout(waiter.timer);
          resolve(this.slot());
        },
        timer: setTimeout(() => {
          const i = this.queue.indexOf(waiter);
          if (i >= 0) this.queue.splice(i, 1);
          reject(busy());
        }, this.maxWaitMs),
      };
      this.queue.push(waiter);
    });
  }

  private slot(): CapacitySlot {
    let held = true;
    return {
      release: () => {
        if (!held) return;
        held = false;
        const next = this.queue.shift();
        // The slot passes straight to the next waiter; the in-flight count does not change.
        if (next) next.grant();
        else this.inFlight--;
      },
    };
  }
}

function modelBusy(): ApiError {
  return new ApiError('MODEL_BUSY', 'The model is busy; retry shortly.', { headers: { 'Retry-After': String(BUSY_RETRY_AFTER_S) } });
}

export class Capacity {
  readonly inference: Semaphore;
  readonly cleaning: Semaphore;

  constructor(
    opts: { inferenceSlots: number; inferenceQueue: number; inferenceWaitMs: number; cleanCapacity: number },
    readonly budgetMs: number,
  ) {
    this.inference = new Semaphore(opts.inferenceSlots, opts.inferenceQueue, opts.inferenceWaitMs);
    this.cleaning = new Semaphore(opts.cleanCapacity, 0, 0);
  }

  /**
   * Step 9: waits for a model run slot (503 MODEL_BUSY when the queue is full or the wait ends),
   * then runs `task` within the request budget (504 GATEWAY_TIMEOUT past it). The slot stays
   * taken until the task itself settles, even after a 504, so a late run cannot overbook; the
   * task is given the budget so that it can stop itself soon after (the model checks it between
   * batches).
   */
  async runInference<T>(task: (budgetMs: number) => Promise<T>): Promise<T> {
    const slot = await this.inference.acquire(modelBusy);
    let running: Promise<T>;
    try {
      running = task(this.budgetMs);
    } catch (err) {
      slot.release();
      throw err;
    }
    running.then(slot.release, slot.release);
    const pastBudget = (): ApiError =>
      new ApiError('GATEWAY_TIMEOUT', `Inference did not finish within ${this.budgetMs} ms.`, { details: { budget_ms: this.budgetMs } });
    // The model's own stop at its deadline (between batches) is the same event as this timer
    // firing, whichever comes first: one envelope for both.
    const answered = running.catch((err: unknown) => {
      throw (err as { code?: unknown } | null)?.code === 'GATEWAY_TIMEOUT' ? pastBudget() : err;
    });
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(pastBudget()), this.budgetMs);
    });
    try {
      return await Promise.race([answered, timeout]);
    } finally {
      clearTimeout(timer);
    }
  }

  /**
   * A cleaning slot now, or 503 SERVICE_UNAVAILABLE with Retry-After (dry runs never queue).
   * The slot is freed when the response ends, or earlier with `release()`.
   */
  acquireCleaning(req: FastifyRequest): CapacitySlot {
    const slot = this.cleaning.tryAcquire();
    if (!slot) {
      throw new ApiError('SERVICE_UNAVAILABLE', 'The cleaning capacity is full; retry shortly.', { headers: { 'Retry-After': String(BUSY_RETRY_AFTER_S) } });
    }
    heldSlots(req).push(slot);
    return slot;
  }
}

const held = new WeakMap<FastifyRequest, CapacitySlot[]>();

function heldSlots(req: FastifyRequest): CapacitySlot[] {
  let list = held.get(req);
  if (!list) held.set(req, (list = []));
  return list;
}

export default fp(
  async (app) => {
    app.decorate('capacity', new Capacity(app.config, app.config.requestBudgetMs));
    const releaseAll = async (req: FastifyRequest): Promise<void> => {
      for (const slot of held.get(req) ?? []) slot.release();
      held.delete(req);
    };
    app.addHook('onResponse', releaseAll);
    app.addHook('onRequestAbort', releaseAll);
  },
  { name: 'hora-capacity', fastify: '5.x' },
);
