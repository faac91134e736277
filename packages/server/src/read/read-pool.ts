import { fileURLToPath } from 'node:url';
import type { BenchDb } from '@redis-benchdb/db';
import Tinypool from 'tinypool';
import { HttpError } from '../http-error.js';
import { type ReadReply, type ReadTask, readFrom } from './read-worker.js';

const WORKER = fileURLToPath(new URL('./read-worker.js', import.meta.url));

export interface ReadPoolOptions {
  /** Worker threads that run queries. */
  threads: number;
  /** Reads running or waiting for a thread, at most, from everyone; one more is answered 503. */
  maxQueued: number;
  /** Reads running or waiting from one network (network.ts), at most; one more is answered 503. */
  maxQueuedPerNetwork: number;
}

type Task = ReadTask extends infer T ? (T extends ReadTask ? Omit<T, 'dbPath'> : never) : never;

/**
 * The read API's queries on worker threads (tinypool), each with its own read-only connection, so
 * that no query holds the event loop: 1,000 list queries at once held /api/v1/health for 53 s (issue
 * 30 item 7), and one address staying within its rate limit delayed another's health by seconds.
 *
 * Bounded twice, so that what waits is bounded in time too: `maxQueued` reads in all, and
 * `maxQueuedPerNetwork` from one network, so one client's burst fills its own share, not the queue;
 * past either, a read is answered 503 BUSY with retry-after at once rather than queued. A bound on
 * reads at once, not a rate (which @fastify/rate-limit keeps per network): a client within its rate
 * can still fill the queue with slow reads, and its retry-after is how long the queue takes to drain.
 */
export class ReadPool {
  /** Null for a database in memory, which no other connection can open: its reads run inline. */
  readonly #pool: Tinypool | null;
  readonly #db: BenchDb;
  readonly #o: ReadPoolOptions;
  readonly #byNetwork = new Map<string, number>();
  #queued = 0;
  /** A moving average of one read's time on its thread, ms: how long the queue takes to drain. */
  #readMs = 5;

  constructor(db: BenchDb, options: ReadPoolOptions) {
    this.#db = db;
    this.#o = options;
    this.#pool =
      db.path === ':memory:'
        ? null
        : new Tinypool({ filename: WORKER, minThreads: options.threads, maxThreads: options.threads });
  }

  /** Run `task` for a client of `network`; resolves with the body's JSON text. */
  async run(task: Task, network: string): Promise<string> {
    const mine = this.#byNetwork.get(network) ?? 0;
    if (this.#queued >= this.#o.maxQueued || mine >= this.#o.maxQueuedPerNetwork) throw this.#busy(mine);
    this.#queued++;
    this.#byNetwork.set(network, mine + 1);
    try {
      const full = { ...task, dbPath: this.#db.path } as ReadTask;
      const reply = this.#pool ? ((await this.#pool.run(full)) as ReadReply) : readFrom(this.#db, full);
      this.#readMs += (reply.ms - this.#readMs) / 16;
      if (reply.refusal) throw new HttpError(reply.refusal.code, 400, reply.refusal.message);
      return reply.json;
    } finally {
      this.#queued--;
      const left = (this.#byNetwork.get(network) ?? 1) - 1;
      if (left > 0) this.#byNetwork.set(network, left);
      else this.#byNetwork.delete(network);
    }
  }

  #busy(mine: number): HttpError {
    const retryAfterSec = Math.max(1, Math.ceil((this.#queued * this.#readMs) / this.#o.threads / 1000));
    const whose =
      mine >= this.#o.maxQueuedPerNetwork
        ? `${mine} reads from your network are running or waiting, as many as it may have at once`
        : `${this.#queued} reads are running or waiting, as many as the service queues`;
    return new HttpError('BUSY', 503, `${whose}; retry in ${retryAfterSec} s`, retryAfterSec);
  }

  /** Ends the threads; reads still running are rejected. */
  close(): Promise<void> {
    return this.#pool?.destroy() ?? Promise.resolve();
  }
}
