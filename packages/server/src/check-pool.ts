import { fileURLToPath } from 'node:url';
import { type CheckedSubmission, IngestError } from '@redis-benchdb/db';
import Tinypool from 'tinypool';
import type { CheckReply, CheckTask } from './check-worker.js';
import { HttpError } from './http-error.js';

const WORKER = fileURLToPath(new URL('./check-worker.js', import.meta.url));

/** Bodies sent to a thread ahead of its checks (it checks them one at a time). */
const TASKS_PER_THREAD = 16;

export interface CheckPoolOptions {
  /** Worker threads. */
  threads: number;
  /** Submissions being checked or waiting for a thread, at most. */
  maxQueued: number;
  /** Their bodies' bytes, at most (one body is always taken, whatever its size). */
  maxQueuedBytes: number;
}

/** A submission checked: the rows to store, or why it was refused; and the key it names. */
export interface Checked {
  key: string | undefined;
  outcome: CheckedSubmission | IngestError;
}

/**
 * checkSubmission on worker threads (tinypool), so that no body, however crafted, holds the event
 * loop: parsing, schemas, the signature and the histograms of a 4 MiB body cost most of a second.
 *
 * The one bound on submissions in the service: past `maxQueued` of them, or `maxQueuedBytes` of
 * their bodies, waiting for a thread or on one, a new one is answered 503 with retry-after rather
 * than queued. (The group commit after it needs none: it takes only what was checked here, and
 * writes everything waiting at every turn of the loop.)
 */
export class CheckPool {
  readonly #pool: Tinypool;
  readonly #o: CheckPoolOptions;
  #queued = 0;
  #queuedBytes = 0;
  /** A moving average of one check's time on its thread, ms: how long the queue takes to drain. */
  #checkMs = 1;

  constructor(options: CheckPoolOptions) {
    this.#o = options;
    this.#pool = new Tinypool({
      filename: WORKER,
      minThreads: options.threads,
      maxThreads: options.threads,
      // Bodies wait in the thread's own message queue, not only here: while the event loop is held by
      // a commit's fsync, the threads keep checking what they were sent instead of waiting for it.
      concurrentTasksPerWorker: TASKS_PER_THREAD,
    });
  }

  /** Check `body`. A large one is handed to the thread, not copied: it is unusable afterwards. */
  async check(body: Buffer, receivedAt = new Date()): Promise<Checked> {
    const bytes = body.length;
    this.#admit(bytes);
    this.#queued++;
    this.#queuedBytes += bytes;
    try {
      const task: CheckTask = { body, receivedAtMs: receivedAt.getTime() };
      const reply = (await this.#pool.run(task, { transferList: movable(body) })) as CheckReply;
      this.#checkMs += (reply.ms - this.#checkMs) / 16;
      const { key, submission, refusal } = reply;
      if (submission) return { key, outcome: submission };
      if (!refusal) throw new Error('the check worker answered neither a submission nor a refusal');
      return { key, outcome: new IngestError(refusal.code, refusal.status, refusal.message) };
    } finally {
      this.#queued--;
      this.#queuedBytes -= bytes;
    }
  }

  #admit(bytes: number): void {
    const full = this.#queued >= this.#o.maxQueued || this.#queuedBytes + bytes > this.#o.maxQueuedBytes;
    if (this.#queued === 0 || !full) return;
    // The time the threads need for what is queued, in whole seconds.
    const retryAfterSec = Math.max(1, Math.ceil((this.#queued * this.#checkMs) / this.#o.threads / 1000));
    throw new HttpError(
      'BUSY',
      503,
      `the service is checking ${this.#queued} submissions (${(this.#queuedBytes / 2 ** 20).toFixed(1)} MiB), as many as it queues; retry in ${retryAfterSec} s`,
      retryAfterSec,
    );
  }

  /** Submissions being checked or waiting for a thread. */
  get queued(): number {
    return this.#queued;
  }

  /** Ends the threads; checks still running are rejected. */
  close(): Promise<void> {
    return this.#pool.destroy();
  }
}

/** Past this size a body's memory is moved to the thread rather than copied. */
const MOVE_FROM_BYTES = 64 * 1024;

/**
 * The body's memory, when it may be moved: copying a 4 MiB body would cost the event loop a few ms.
 * Only a buffer that owns all of its memory (what fastify's Buffer.concat makes past 4 KiB): a small
 * one lives in Node's shared pool, which must not leave this thread.
 */
function movable(body: Buffer): ArrayBuffer[] {
  const own = body.byteOffset === 0 && body.byteLength === body.buffer.byteLength;
  return own && body.byteLength >= MOVE_FROM_BYTES && body.buffer instanceof ArrayBuffer ? [body.buffer] : [];
}
