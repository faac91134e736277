// `redis-benchdb-server restore BACKUP --db PATH`, as an operator runs it: from the bin, on real files,
// between real runs of the service. A backup restored serves exactly what it held; a running service's
// database, and a backup that is damaged or not ours, are refused with the database left as it was.
import { spawnSync } from 'node:child_process';
import {
  closeSync,
  copyFileSync,
  existsSync,
  mkdtempSync,
  openSync,
  readdirSync,
  readFileSync,
  rmSync,
  writeFileSync,
  writeSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { count, openDatabase } from '@redis-benchdb/db';
import { afterAll, describe, expect, it } from 'vitest';
import { startServer } from '../dist/index.js';
import { post, request, spawnService, submissions, tempDbPath } from './fixtures.js';

const MAIN = fileURLToPath(new URL('../dist/main.js', import.meta.url));
const dirs: string[] = [];
afterAll(() => {
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

function restore(...args: string[]) {
  return spawnSync(process.execPath, [MAIN, 'restore', ...args], { encoding: 'utf8' });
}

function resultsIn(path: string): number {
  const db = openDatabase(path, { readonly: true });
  try {
    return count(db).results;
  } finally {
    db.close();
  }
}

/** A database of 5 results and a backup taken after the first 3: the ids of each part. */
async function databaseWithBackup() {
  const backups = mkdtempSync(join(tmpdir(), 'rbdb-restore-'));
  dirs.push(backups);
  const dbPath = tempDbPath();
  const service = await startServer({
    dbPath,
    rateLimit: { perIpPerMinute: 1_000_000, perKeyPerMinute: 1_000_000 },
    backup: { dir: backups, intervalMs: 3_600_000, keep: 5 },
    log: () => {},
  });
  const store = async (body: string) => {
    const r = await post(`${service.url}/api/v1/results`, body);
    expect(r.status).toBe(201);
    return (r.json as { id: string }).id;
  };
  const bodies = submissions(5);
  try {
    const backedUp: string[] = [];
    for (const body of bodies.slice(0, 3)) backedUp.push(await store(body));
    const backup = (await service.backups!.backupNow())!;
    const after: string[] = [];
    for (const body of bodies.slice(3)) after.push(await store(body));
    return { dbPath, backups, backup, backedUp, after };
  } finally {
    await service.close();
  }
}

/** Nothing beside the database but the database (and WAL companions): no partial copy, nothing moved aside. */
function leftBeside(dbPath: string): string[] {
  return readdirSync(dirname(dbPath)).filter((n) => !/^[^.]+\.sqlite(-wal|-shm)?$/.test(n));
}

describe('redis-benchdb-server restore', () => {
  it('refuses while the service runs; stopped, it restores the backup, and the service serves exactly the backed-up results', async () => {
    const { dbPath, backups, backedUp, after } = await databaseWithBackup();

    const running = await spawnService(dbPath);
    const refused = restore(backups, '--db', dbPath);
    expect(refused.status, refused.stderr).toBe(1);
    expect(refused.stderr).toContain(`${dbPath} is open in another process`);
    expect(refused.stderr).toContain('stop the service');
    expect(refused.stderr).toContain('nothing was changed');
    expect((await request(`${running.url}/api/v1/health`)).json).toMatchObject({ results: 5 });
    running.child.kill('SIGTERM');
    expect(await running.exited).toBe(0);
    expect(leftBeside(dbPath)).toEqual([]);

    // The directory stands for its newest backup: the hint in --help, followed as printed.
    const done = restore(backups, '--db', dbPath);
    expect(done.status, done.stderr).toBe(0);
    expect(done.stdout).toContain(`restored ${dbPath} from ${backups}/benchdb-`);
    expect(done.stdout).toContain('3 results (0 retracted), integrity_check ok');
    const kept = /kept as (\S+);/.exec(done.stdout)?.[1];
    expect(kept).toBeDefined();
    expect(basename(kept!)).toMatch(/^benchdb\.sqlite\.before-restore-\d{4}-/);
    // Nothing is lost: the replaced database, with the 2 results the backup did not have, is kept.
    expect(resultsIn(kept!)).toBe(5);

    const service = await spawnService(dbPath);
    const listed = (await request(`${service.url}/api/v1/results?limit=100`)).json as {
      results: { id: string }[];
    };
    expect(listed.results.map((r) => r.id).sort()).toEqual([...backedUp].sort());
    for (const id of backedUp)
      expect((await request(`${service.url}/api/v1/results/${id}`)).status).toBe(200);
    for (const id of after) expect((await request(`${service.url}/api/v1/results/${id}`)).status).toBe(404);
    expect((await request(`${service.url}/api/v1/health`)).json).toMatchObject({ ok: true, results: 3 });
    service.child.kill('SIGTERM');
    expect(await service.exited).toBe(0);
  });

  it('refuses a backup that is damaged, not SQLite, not ours or missing, and leaves the database as it was', async () => {
    const { dbPath, backup } = await databaseWithBackup();
    const dir = dirname(backup);
    const damaged = join(dir, 'damaged.sqlite');
    copyFileSync(backup, damaged);
    // Garbage over the middle of the file: past the header, so SQLite opens it and finds broken pages.
    const fd = openSync(damaged, 'r+');
    writeSync(fd, Buffer.alloc(8192, 0x5a), 0, 8192, 8192);
    closeSync(fd);
    const text = join(dir, 'notes.sqlite');
    writeFileSync(text, 'not a database at all, but long enough to have a header of sorts\n'.repeat(10));
    const empty = join(dir, 'empty.sqlite');
    writeFileSync(empty, '');

    for (const [file, says] of [
      [damaged, /fails PRAGMA integrity_check|cannot read .*damaged\.sqlite/],
      [text, /cannot (open|read) .*notes\.sqlite: file is not a database/],
      [empty, /empty\.sqlite holds no redis-benchdb database .*give a file from --backup-dir/],
      [join(dir, 'missing.sqlite'), /no backup at .*missing\.sqlite/],
    ] as const) {
      const r = restore(file, '--db', dbPath);
      expect(r.status, r.stderr).toBe(1);
      expect(r.stderr).toMatch(says);
      expect(r.stderr).toContain('nothing was changed');
      expect(leftBeside(dbPath)).toEqual([]);
      expect(resultsIn(dbPath)).toBe(5);
    }
    expect(existsSync(backup)).toBe(true);

    // A database ruined past reading is what a restore is for: no service can hold it, and it is kept.
    const ruined = join(dirname(dbPath), 'ruined.sqlite');
    writeFileSync(ruined, 'ruined '.repeat(1000));
    const r = restore(backup, '--db', ruined);
    expect(r.status, r.stderr).toBe(0);
    expect(resultsIn(ruined)).toBe(3);
    const kept = /kept as (\S+);/.exec(r.stdout)![1]!;
    expect(readFileSync(kept, 'utf8')).toBe('ruined '.repeat(1000));
  });

  it('refuses a backup with an extra trigger, an unreadable envelope or a dropped table, saying what is wrong', async () => {
    const { dbPath, backup } = await databaseWithBackup();
    const tampered = (name: string, sql: string) => {
      const file = join(dirname(backup), `${name}.sqlite`);
      copyFileSync(backup, file);
      const db = openDatabase(file);
      db.sqlite.pragma('ignore_check_constraints = 1');
      db.sqlite.exec(sql);
      db.close();
      return file;
    };
    for (const [file, says] of [
      [
        // What issue 30 found restored: it deleted 1,497 of 1,498 results on the next submission.
        tampered('trigger', 'CREATE TRIGGER wipe AFTER INSERT ON results BEGIN DELETE FROM cells; END'),
        /trigger\.sqlite is not a database this service wrote: its schema \(version \d+\) has an extra trigger wipe/,
      ],
      [
        // Not brotli after its format byte (store/envelope-codec.ts).
        tampered(
          'envelope',
          "UPDATE result_envelopes SET body = x'01ff00' WHERE rowid = (SELECT min(rowid) FROM result_envelopes)",
        ),
        /envelope\.sqlite: result [0-9a-f]{64} has a stored envelope that cannot be read \(.+\), which ingest never stores/,
      ],
      [
        tampered('dropped', 'DROP TABLE result_copies'),
        /dropped\.sqlite is not a database this service wrote: .*has no table result_copies/,
      ],
    ] as const) {
      const r = restore(file, '--db', dbPath);
      expect(r.status, r.stderr).toBe(1);
      expect(r.stderr).toMatch(says);
      expect(r.stderr).toContain('nothing was changed');
      expect(r.stderr).not.toContain('moved aside');
      expect(leftBeside(dbPath)).toEqual([]);
      expect(resultsIn(dbPath)).toBe(5);
    }
  });

  it('says what is missing from its command line, and --help explains', () => {
    const noDb = restore('/tmp/x.sqlite');
    expect(noDb.status).toBe(2);
    expect(noDb.stderr).toContain("restore needs --db PATH: the database to replace (the service's --db)");
    expect(noDb.stderr).toContain('(run with --help for usage)');
    expect(restore('--db', '/tmp/x.sqlite').stderr).toContain('restore needs the backup file');
    const help = restore('--help');
    expect(help.status).toBe(0);
    expect(help.stdout).toContain('PRAGMA integrity_check');
    expect(help.stdout).toContain('node packages/server/dist/main.js restore /srv/benchdb/backups --db');
    const main = spawnSync(process.execPath, [MAIN, '--help'], { encoding: 'utf8' });
    expect(main.stdout).toContain('redis-benchdb-server restore BACKUP --db PATH');
  });
});
