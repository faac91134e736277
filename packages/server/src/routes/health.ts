import { type BenchDb, count, schemaVersion } from '@redis-benchdb/db';
import type { FastifyInstance } from 'fastify';
import type { IngestQueue } from '../ingest-queue.js';
import type { BackupSchedule } from '../publish/backups.js';
import type { SiteBuilder } from '../publish/site-builder.js';

export interface HealthDeps {
  db: BenchDb;
  queue: IngestQueue;
  site?: SiteBuilder | undefined;
  backups?: BackupSchedule | undefined;
}

/**
 * `{ ok: true, results, schemaVersion, checking }`: answering means the database file could be read;
 * `checking` is how many submissions are being checked or wait for a check thread (past the service's
 * --max-queued, new ones are answered 503). The publishing service adds `site` (SiteStatus: its last
 * build, whether one is under way or due, the last failure) and `backup` (the last one taken).
 * A failed build leaves `ok` true: the service still takes results and serves the previous site.
 */
export function healthRoutes(app: FastifyInstance, { db, queue, site, backups }: HealthDeps): void {
  app.get('/api/v1/health', async () => ({
    ok: true,
    results: count(db).results,
    schemaVersion: schemaVersion(db.sqlite),
    checking: queue.checking,
    ...(site ? { site: site.status() } : {}),
    ...(backups ? { backup: backups.status() } : {}),
  }));
}
