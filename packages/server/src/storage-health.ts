import { accessSync, constants, statfsSync } from 'node:fs';
import { dirname } from 'node:path';
import { HttpError } from './http-error.js';

/** Why the database cannot take a write now: fixed words, since health is public. */
export type StorageProblem = 'read-only' | 'disk full';

export interface StorageStatus {
  writable: boolean;
  /** Null when writable. */
  problem: StorageProblem | null;
  /** Free bytes on the database's filesystem (for the service, as statfs's bavail counts them). */
  freeBytes: number | null;
}

/** SQLite's codes for a database it may not write, and for a disk with no room. */
const READ_ONLY = /^SQLITE_READONLY/;
const FULL = new Set(['SQLITE_FULL']);
/** How long a SQLITE_READONLY from SQLite itself keeps the database read-only in health's eyes. */
const READ_ONLY_HOLD_MS = 30_000;

/**
 * Whether the database can be written, asked of the file system, not assumed: without it the service
 * said ok:true on read-only files and answered every submission 500, and on a full disk answered 1,541
 * submissions 500 with nothing logged (issue 30 item 6). Each check is two syscalls (access, statfs)
 * that never wait on SQLite's lock, so health stays fast while a `db:build` writes.
 *
 * - read-only: the file, its directory, or its -wal/-shm cannot be written (a read-only mount, files
 *   the service's user does not own), or the last write was refused with SQLITE_READONLY;
 * - disk full: fewer than `minFreeBytes` free, or the last write failed with SQLITE_FULL and no more
 *   than `minFreeBytes` has been freed since (SQLite's WAL can need more than one page of room).
 *
 * The operator is told on stderr when the state changes, once, not on every refused request.
 */
export class StorageHealth {
  readonly #path: string;
  readonly #minFreeBytes: number;
  readonly #warn: (line: string) => void;
  /** Free bytes when SQLite last said the disk was full, or null. */
  #fullAt: number | null = null;
  /** Until when SQLite's own SQLITE_READONLY counts, though the files look writable (ms since the epoch). */
  #readOnlyUntil = 0;
  #reported: StorageProblem | null = null;

  constructor(
    path: string,
    minFreeBytes: number,
    warn: (line: string) => void = (l) => process.stderr.write(`${l}\n`),
  ) {
    this.#path = path;
    this.#minFreeBytes = minFreeBytes;
    this.#warn = warn;
  }

  status(): StorageStatus {
    if (this.#path === ':memory:') return { writable: true, problem: null, freeBytes: null };
    const freeBytes = this.#free();
    let problem: StorageProblem | null = null;
    if (Date.now() < this.#readOnlyUntil || !this.#canWriteFiles()) problem = 'read-only';
    else if (freeBytes !== null && freeBytes < this.#needed()) problem = 'disk full';
    else this.#fullAt = null;
    this.#report(problem, freeBytes);
    return { writable: problem === null, problem, freeBytes };
  }

  /** Refuse a write before it is tried when the database cannot take it: 507 or 503, saying why. */
  refuseIfUnwritable(): void {
    const { problem } = this.status();
    if (problem !== null) throw this.#refusal(problem);
  }

  /**
   * A write failed: if SQLite said why in storage terms, remember it and return the answer to give
   * (507 or 503), else return the error as it was. Nothing was stored either way.
   */
  writeFailed(error: unknown): unknown {
    const code = (error as { code?: unknown } | null)?.code;
    if (typeof code !== 'string') return error;
    if (FULL.has(code)) this.#fullAt = this.#free() ?? 0;
    // For a while: no write is tried while it counts, so no write could clear it.
    else if (READ_ONLY.test(code)) this.#readOnlyUntil = Date.now() + READ_ONLY_HOLD_MS;
    else return error;
    const { problem } = this.status();
    return this.#refusal(problem ?? (FULL.has(code) ? 'disk full' : 'read-only'));
  }

  /** A write succeeded: whatever failed before has been fixed. */
  writeSucceeded(): void {
    this.#fullAt = null;
    this.#readOnlyUntil = 0;
  }

  #needed(): number {
    return this.#fullAt === null ? this.#minFreeBytes : this.#fullAt + Math.max(this.#minFreeBytes, 1);
  }

  #refusal(problem: StorageProblem): HttpError {
    return problem === 'disk full'
      ? new HttpError(
          'INSUFFICIENT_STORAGE',
          507,
          "the service's disk is full: nothing was stored; retry later (the operator has been told)",
          60,
        )
      : new HttpError(
          'NOT_WRITABLE',
          503,
          'the service cannot write its database (read-only): nothing was stored; retry later (the operator has been told)',
          60,
        );
  }

  #free(): number | null {
    try {
      const s = statfsSync(dirname(this.#path));
      return s.bavail * s.bsize;
    } catch {
      return null;
    }
  }

  #canWriteFiles(): boolean {
    for (const p of [this.#path, `${this.#path}-wal`, `${this.#path}-shm`, dirname(this.#path)]) {
      try {
        accessSync(p, constants.W_OK);
      } catch (e) {
        // A -wal or -shm that is not there yet is made by SQLite in the (writable) directory.
        if ((e as NodeJS.ErrnoException).code === 'ENOENT' && p !== this.#path) continue;
        return false;
      }
    }
    return true;
  }

  #report(problem: StorageProblem | null, freeBytes: number | null): void {
    if (problem === this.#reported) return;
    const free = freeBytes === null ? 'unknown' : `${(freeBytes / 1024 / 1024).toFixed(1)} MiB`;
    if (problem === 'disk full')
      this.#warn(
        `redis-benchdb-server: the disk of ${this.#path} is full (${free} free, ${(this.#needed() / 1024 / 1024).toFixed(1)} MiB needed): submissions are answered 507 and health says not ready until space is freed`,
      );
    else if (problem === 'read-only')
      this.#warn(
        `redis-benchdb-server: ${this.#path} cannot be written (read-only file, directory or mount, or its -wal/-shm): submissions are answered 503 and health says not ready until it can`,
      );
    else this.#warn(`redis-benchdb-server: ${this.#path} can be written again (${free} free)`);
    this.#reported = problem;
  }
}
