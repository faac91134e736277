// Online backups (--backup-dir): SQLite's backup API copies the database while the service keeps
// storing submissions, and the copy is a sound database that holds everything stored before it began.
import { existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { count, getStoredResult, integrityCheck, openDatabase } from '@redis-benchdb/db';
import { afterAll, describe, expect, it } from 'vitest';
import { startServer } from '../dist/index.js';
import { post, submissions, tempDbPath } from './fixtures.js';

const dirs: string[] = [];
afterAll(() => {
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

describe('online backups', () => {
  it('a backup taken while submissions are written opens, passes integrity_check, and holds every result stored before it began', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'rbdb-backup-'));
    dirs.push(dir);
    const service = await startServer({
      dbPath: tempDbPath(),
      rateLimit: { perIpPerMinute: 1_000_000, perKeyPerMinute: 1_000_000 },
      backup: { dir, intervalMs: 3_600_000, keep: 2 },
      log: () => {},
    });
    try {
      const bodies = submissions(400);
      const before: string[] = [];
      for (const body of bodies.slice(0, 200)) {
        const r = await post(`${service.url}/api/v1/results`, body);
        expect(r.status).toBe(201);
        before.push((r.json as { id: string }).id);
      }
      // One page a step: the copy spans many turns of the event loop, with submissions stored between.
      let backingUp = true;
      const during: number[] = [];
      const writer = (async () => {
        for (const body of bodies.slice(200)) {
          if (!backingUp) break;
          const r = await post(`${service.url}/api/v1/results`, body);
          expect(r.status).toBe(201);
          during.push(r.status);
        }
      })();
      const path = await service.backups!.backupNow(1).finally(() => (backingUp = false));
      await writer;
      expect(path).not.toBeNull();
      expect(during.length).toBeGreaterThan(0);
      expect(existsSync(`${path}.partial`)).toBe(false);

      const copy = openDatabase(path!, { readonly: true });
      try {
        expect(integrityCheck(copy)).toEqual(['ok']);
        for (const id of before) expect(getStoredResult(copy, id), id).not.toBeNull();
        expect(count(copy).results).toBeGreaterThanOrEqual(before.length);
      } finally {
        copy.close();
      }

      // Named by time, the newest `keep` kept, the last one in health.
      // The copy opened above left its -shm beside it: it is removed with it.
      expect(readdirSync(dir).some((n) => n.endsWith('-shm') || n.endsWith('-wal'))).toBe(true);
      for (let i = 0; i < 3; i++) await service.backups!.backupNow();
      const kept = readdirSync(dir);
      expect(kept).toHaveLength(2);
      expect(kept.every((n) => /^benchdb-\d{4}-.*\.sqlite$/.test(n))).toBe(true);
      const health = (await (await fetch(`${service.url}/api/v1/health`)).json()) as {
        backup: { lastBackupFile: string; lastFailure: null };
      };
      expect(health.backup.lastFailure).toBeNull();
      // The file's name only: health is public, and the directory is the operator's business.
      expect(kept).toContain(health.backup.lastBackupFile);
    } finally {
      await service.close();
    }
  });
});
