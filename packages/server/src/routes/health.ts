import { type BenchDb, count, schemaVersion } from '@redis-benchdb/db';
import type { FastifyInstance } from 'fastify';

/** `{ ok: true, results, schemaVersion }`: answering means the database file could be read. */
export function healthRoutes(app: FastifyInstance, { db }: { db: BenchDb }): void {
  app.get('/api/v1/health', async () => ({
    ok: true,
    results: count(db).results,
    schemaVersion: schemaVersion(db.sqlite),
  }));
}
