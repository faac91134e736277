import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { ingest, ingestImported, openDatabase } from '@redis-benchdb/db';
import { verifyEnvelope } from '@redis-benchdb/result';
import { afterAll, describe, expect, it } from 'vitest';
import { removeTempDirs, runCli, tempDir } from './helpers/cli.js';

const root = fileURLToPath(new URL('../../../', import.meta.url));

afterAll(removeTempDirs);

describe('redis-benchdb export --jsonl', () => {
  it('prints every listed result on its own line; signed ones still verify', async () => {
    const dir = await tempDir();
    const dbPath = path.join(dir, 'bench.sqlite');
    const db = openDatabase(dbPath);
    const envelope = readFileSync(path.join(root, 'schemas/examples/valid/minimal.envelope.json'), 'utf8');
    const signedId = ingest(db, envelope).id;
    const importedFiles = readdirSync(path.join(root, 'data/imported'))
      .filter((f) => f.endsWith('.json'))
      .slice(0, 2);
    for (const f of importedFiles)
      ingestImported(db, readFileSync(path.join(root, 'data/imported', f), 'utf8'));
    db.close();

    const res = await runCli(['export', '--jsonl', '--db', dbPath]);
    expect(res.code, res.stderr).toBe(0);
    const lines = res.stdout.trimEnd().split('\n');
    expect(lines).toHaveLength(1 + importedFiles.length);
    const rows = lines.map(
      (l) => JSON.parse(l) as { id: string; kind: string; envelope?: unknown; document?: { schema: string } },
    );
    const signed = rows.find((r) => r.kind === 'signed')!;
    expect(signed.id).toBe(signedId);
    expect(verifyEnvelope(signed.envelope).ok).toBe(true);
    expect(rows.filter((r) => r.kind === 'imported').map((r) => r.document!.schema)).toEqual(
      importedFiles.map(() => 'redis-benchdb/imported.v1'),
    );
  });

  it("with no database yet, says so and what makes one, instead of SQLite's own error", async () => {
    const dir = await tempDir();
    const missing = path.join(dir, 'none', 'benchdb.sqlite');
    const r = await runCli(['export', '--jsonl', '--db', missing]);
    expect(r.code).toBe(1);
    expect(r.stdout).toBe('');
    expect(r.stderr).toContain(
      `export --jsonl reads the local database, and there is none at ${missing} yet`,
    );
    expect(r.stderr).not.toContain('unexpected failure');
  });

  it('asks for a format when none is given', async () => {
    const res = await runCli(['export', '--db', path.join(await tempDir(), 'x.sqlite')]);
    expect(res.code).toBe(2);
    expect(res.stderr).toContain('--jsonl');
  });
});
