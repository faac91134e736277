// Issue 30 item 6 on the real service: health says whether the database can be written, a read-only
// database is answered 503 (never 500), a full disk 507 with the reason on stderr, and nothing
// answered 201 is lost. The full disk is a real one: a 4 MiB tmpfs, mounted for the test (root only).
import { execFileSync } from 'node:child_process';
import { chmodSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { openDatabase } from '@redis-benchdb/db';
import { describe, expect, it } from 'vitest';
import { post, request, spawnService, submissions, tempDbPath } from './fixtures.js';

const isRoot = process.getuid?.() === 0;
/** `nobody` on Debian: root may write any file, so the read-only case runs the service as another user. */
const NOBODY = { uid: 65534, gid: 65534 };

/** A tmpfs of `mb` MiB, mounted on a new directory; returns it and its unmount. */
function tmpfs(mb: number): { dir: string; unmount: () => void } {
  const dir = mkdtempSync(join(tmpdir(), 'rbdb-full-'));
  execFileSync('mount', ['-t', 'tmpfs', '-o', `size=${mb}m`, 'tmpfs', dir]);
  return {
    dir,
    unmount: () => {
      execFileSync('umount', [dir]);
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

describe('health tells the truth about writing', () => {
  it('read-only database files: health 503 not ready (read-only), a submission 503 NOT_WRITABLE, never 500', async () => {
    const dbPath = tempDbPath();
    openDatabase(dbPath).close();
    chmodSync(dbPath, 0o444);
    // The directory stays writable, as a service's data directory would, so SQLite still opens it.
    chmodSync(dirname(dbPath), 0o777);
    const service = await spawnService(dbPath, [], isRoot ? { asUser: NOBODY } : {});
    const health = await request(`${service.url}/api/v1/health`);
    // Today's code answered 200 { ok: true } here.
    expect(health.status, health.text).toBe(503);
    expect(health.json).toMatchObject({ ok: false, storage: { writable: false, problem: 'read-only' } });
    const reply = await post(`${service.url}/api/v1/results`, submissions(1)[0]!);
    // Today's code answered 500 "internal error".
    expect({ status: reply.status, code: reply.json.error?.code }, reply.text).toEqual({
      status: 503,
      code: 'NOT_WRITABLE',
    });
    expect(reply.headers.get('retry-after')).toBe('60');
    expect(service.stderr()).toContain('cannot be written');
    service.child.kill('SIGTERM');
    await service.exited;
  });

  it.skipIf(!isRoot)(
    'a full disk (4 MiB tmpfs): every submission 201 or 507, health 503 (disk full), logged, nothing acknowledged lost, and back once space is freed',
    async () => {
      const fs = tmpfs(4);
      let service: Awaited<ReturnType<typeof spawnService>> | undefined;
      try {
        const dbPath = join(fs.dir, 'benchdb.sqlite');
        // Room to free later: the operator's way out of a full disk.
        writeFileSync(join(fs.dir, 'ballast'), Buffer.alloc(512 * 1024));
        service = await spawnService(dbPath, ['--min-free-mb', '0']);
        const url = `${service.url}/api/v1/results`;
        const bodies = submissions(3000);
        const statuses = new Map<number, number>();
        const stored: string[] = [];
        let sent = 0;
        // Ten at a time until three rounds running store nothing: a full disk, not one big batch.
        for (let refusedRounds = 0; refusedRounds < 3 && sent < bodies.length; ) {
          const replies = await Promise.all(bodies.slice(sent, sent + 10).map((b) => post(url, b)));
          sent += replies.length;
          for (const r of replies) {
            statuses.set(r.status, (statuses.get(r.status) ?? 0) + 1);
            if (r.status === 201) stored.push(r.json.id as string);
          }
          refusedRounds = replies.some((r) => r.status === 201) ? 0 : refusedRounds + 1;
        }
        console.log(`full disk: ${sent} sent, ${JSON.stringify(Object.fromEntries(statuses))}`);
        // Today's code answered 500 "internal error" and kept health ok.
        expect([...statuses.keys()].sort()).toEqual([201, 507]);
        const health = await request(`${service.url}/api/v1/health`);
        expect(health.status).toBe(503);
        expect(health.json).toMatchObject({ ok: false, storage: { writable: false, problem: 'disk full' } });
        expect(service.stderr()).toMatch(/the disk of .* is full/);
        const refused = await post(url, bodies[sent]!);
        expect(refused.json.error).toEqual({
          code: 'INSUFFICIENT_STORAGE',
          message: "the service's disk is full: nothing was stored; retry later (the operator has been told)",
        });

        rmSync(join(fs.dir, 'ballast'));
        const back = await request(`${service.url}/api/v1/health`);
        expect(back.status, back.text).toBe(200);
        const after = await post(url, bodies[sent + 1]!);
        expect(after.status, after.text).toBe(201);
        stored.push(after.json.id as string);
        service.child.kill('SIGTERM');
        await service.exited;

        const db = openDatabase(dbPath, { readonly: true });
        const has = db.sqlite.prepare<[string], { n: number }>(
          'SELECT count(*) AS n FROM results WHERE id = ?',
        );
        const lost = stored.filter((id) => has.get(id)!.n !== 1);
        db.close();
        expect(lost).toEqual([]);
      } finally {
        // The mount is busy while the service holds its files.
        if (service && service.child.exitCode === null && service.child.signalCode === null) {
          service.child.kill('SIGKILL');
          await service.exited;
        }
        fs.unmount();
      }
    },
  );
});
