import { type BenchDb, count, schemaVersion } from '@redis-benchdb/db';
import type { FastifyInstance } from 'fastify';
import type { IngestQueue } from '../ingest-queue.js';

/**
 * `{ ok: true, results, schemaVersion, checking }`: answering means the database file could be read;
 * `checking` is how many submissions are being checked or wait for a check thread (past the service's
 * --max-queued, new ones are answered 503).
 */
export function healthRoutes(app: FastifyInstance, { db, queue }: { db: BenchDb; queue: IngestQueue }): void {
  app.get('/api/v1/health', async () => ({
    ok: true,
    results: count(db).results,
    schemaVersion: schemaVersion(db.sqlite),
    checking: queue.checking,
  }));
}
