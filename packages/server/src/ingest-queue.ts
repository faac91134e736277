import { type BenchDb, type IngestOutcome, ingest } from '@redis-benchdb/db';

/**
 * Most submissions committed in one transaction. Each costs ~0.5 ms of CPU (parse, verify, checks)
 * while the event loop waits, so this bounds one batch to a few tens of milliseconds.
 */
export const MAX_BATCH = 64;

interface Pending {
  body: Buffer;
  resolve: (outcome: IngestOutcome) => void;
  reject: (error: unknown) => void;
}

type Settled = IngestOutcome | Error;

/**
 * Group commit. The database runs with synchronous=FULL, so each commit waits for an fsync of the WAL
 * (most of a millisecond here), and one commit per submission caps the service below 1,000/s. So the
 * submissions that arrived while the last batch was being written go through ingest() together,
 * inside one outer transaction: ingest's own transaction becomes a savepoint, a refused submission
 * still writes nothing, and one fsync covers the batch.
 *
 * Nobody is answered before that commit has returned: a 201 still means "on disk". If the commit
 * itself fails, every submission in the batch is answered with the error, none as stored.
 */
export class IngestQueue {
  readonly #commit;
  #pending: Pending[] = [];
  #scheduled = false;

  constructor(db: BenchDb) {
    this.#commit = db.sqlite.transaction((batch: Pending[], settled: Settled[]) => {
      for (const p of batch) {
        try {
          settled.push(ingest(db, p.body));
        } catch (e) {
          // SQLite ends the whole transaction on some errors (disk full, I/O): the earlier
          // submissions of the batch are then gone too, so fail them all rather than answer 201.
          if (!db.sqlite.inTransaction) throw e;
          settled.push(e instanceof Error ? e : new Error(String(e)));
        }
      }
    });
  }

  /** Store one signed envelope; settles after the commit that wrote it (or refused it). */
  submit(body: Buffer): Promise<IngestOutcome> {
    return new Promise((resolve, reject) => {
      this.#pending.push({ body, resolve, reject });
      this.#schedule();
    });
  }

  #schedule(): void {
    if (this.#scheduled) return;
    this.#scheduled = true;
    // setImmediate, not a microtask: lets the sockets that are ready be read into this batch first.
    setImmediate(this.#flush);
  }

  readonly #flush = (): void => {
    this.#scheduled = false;
    const batch = this.#pending.splice(0, MAX_BATCH);
    if (this.#pending.length > 0) this.#schedule();
    const settled: Settled[] = [];
    try {
      // IMMEDIATE: take the write lock up front, as ingest does, so that a `db:build` writing the
      // same file cannot make this transaction fail half-way with SQLITE_BUSY.
      this.#commit.immediate(batch, settled);
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

  /** Submissions waiting for the next commit. */
  get pending(): number {
    return this.#pending.length;
  }
}
