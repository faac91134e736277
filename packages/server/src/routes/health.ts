import { type BenchDb, resultCounter, schemaVersionOf } from '@redis-benchdb/db';
import type { FastifyInstance } from 'fastify';
import { ANY, object } from '../api-doc/responses.js';
import type { IngestQueue } from '../ingest-queue.js';
import type { BackupSchedule } from '../publish/backups.js';
import type { SiteBuilder } from '../publish/site-builder.js';
import type { StorageHealth } from '../storage-health.js';

export interface HealthDeps {
  db: BenchDb;
  queue: IngestQueue;
  storage: StorageHealth;
  site?: SiteBuilder | undefined;
  backups?: BackupSchedule | undefined;
}

const HEALTH = {
  summary: 'Liveness, counts, and whether the database can be written',
  response: {
    200: object('ok: the database can be read and written'),
    503: object('not ready: storage.problem says why (read-only, disk full)'),
    ...ANY,
  },
};

/**
 * `{ ok, results, schemaVersion, checking, storage }`: answering means the database file could be
 * read; `ok` (and the status, 200 or 503) says whether it can also be written, which a submission
 * needs: `storage` is `{ writable, problem }`, the problem `read-only` or `disk full` (fixed words:
 * health is public; the operator's stderr has the path and the figures). `checking` is how many
 * submissions are being checked or wait for a check thread (past the service's --max-queued, new
 * ones are answered 503). The publishing service adds `site` (SiteStatus: its last build, whether one
 * is under way or due, the last failure) and `backup` (the last one taken). A failed build leaves `ok`
 * true: the service still takes results and serves the previous site.
 */
export function healthRoutes(app: FastifyInstance, { db, queue, storage, site, backups }: HealthDeps): void {
  // Counted again only after a write: health must stay cheaper than what it reports on (it used to
  // count every cell and warning too, on every poll).
  const results = resultCounter(db);
  // Migrations run before the service starts, never while it runs.
  const version = schemaVersionOf(db);
  app.get('/api/v1/health', { schema: HEALTH }, async (_request, reply) => {
    const { writable, problem } = storage.status();
    return reply.status(writable ? 200 : 503).send({
      ok: writable,
      results: results(),
      schemaVersion: version,
      checking: queue.checking,
      storage: { writable, problem },
      ...(site ? { site: site.status() } : {}),
      ...(backups ? { backup: backups.status() } : {}),
    });
  });
}
