import {
  type BatchOutcome,
  type BenchDb,
  type CheckedSubmission,
  groupCommit,
  type IngestOutcome,
} from '@redis-benchdb/db';
import { type Checked, CheckPool, type CheckPoolOptions } from './check-pool.js';

/**
 * Most submissions committed in one transaction. Each costs a few tens of µs of inserts on the event
 * loop (its checks ran on a worker thread), so a batch holds the loop for a few milliseconds at most.
 */
export const MAX_BATCH = 64;

interface Pending {
  submission: CheckedSubmission;
  resolve: (outcome: IngestOutcome) => void;
  reject: (error: unknown) => void;
}

/**
 * An ingest in two halves: check() runs every check of a body on a worker thread (CheckPool, which
 * also bounds how many wait), store() writes what passed, on the event loop, the one writer.
 *
 * store() is a group commit. The database runs with synchronous=FULL, so each commit waits for an
 * fsync of the WAL (most of a millisecond here), and one commit per submission caps the service below
 * 1,000/s. So the submissions checked while the last batch was being written are stored together,
 * inside one outer transaction: each one's own transaction becomes a savepoint, and one fsync covers
 * the batch. Nobody is answered before that commit has returned: a 201 still means "on disk". If the
 * commit itself fails, every submission in the batch is answered with the error, none as stored.
 */
export class IngestQueue {
  readonly #checks: CheckPool;
  readonly #commit: ReturnType<typeof groupCommit>;
  #pending: Pending[] = [];
  #scheduled = false;

  constructor(db: BenchDb, checks: CheckPoolOptions) {
    this.#checks = new CheckPool(checks);
    this.#commit = groupCommit(db);
  }

  /** Every check of one body, on a worker thread; HttpError 503 when too many are waiting. */
  check(body: Buffer, receivedAt = new Date()): Promise<Checked> {
    return this.#checks.check(body, receivedAt);
  }

  /** Store a checked submission; settles after the commit that wrote it (or failed). */
  store(submission: CheckedSubmission): Promise<IngestOutcome> {
    return new Promise((resolve, reject) => {
      this.#pending.push({ submission, resolve, reject });
      this.#schedule();
    });
  }

  #schedule(): void {
    if (this.#scheduled) return;
    this.#scheduled = true;
    // setImmediate, not a microtask: lets the checks that are done be read into this batch first.
    setImmediate(this.#flush);
  }

  readonly #flush = (): void => {
    this.#scheduled = false;
    const batch = this.#pending.splice(0, MAX_BATCH);
    if (this.#pending.length > 0) this.#schedule();
    const settled: BatchOutcome[] = [];
    try {
      this.#commit(
        batch.map((p) => p.submission),
        settled,
      );
    } catch (e) {
      batch.forEach((p, i) => {
        p.reject(settled[i] instanceof Error ? settled[i] : e);
      });
      return;
    }
    batch.forEach((p, i) => {
      const s = settled[i]!;
      if (s instanceof Error) p.reject(s);
      else p.resolve(s);
    });
  };

  /** Submissions being checked or waiting for a thread. */
  get checking(): number {
    return this.#checks.queued;
  }

  /** Ends the check threads. Call once no request is in flight (fastify's onClose). */
  close(): Promise<void> {
    return this.#checks.close();
  }
}
