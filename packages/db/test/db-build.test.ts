import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { expect, it } from 'vitest';
import { count, openDatabase } from '../src/index.js';

const root = fileURLToPath(new URL('../../../', import.meta.url));

// CI's check of data/: every file goes through the same ingest the service uses, or the build fails.
// Builds a database from every file of data/ through `pnpm db:build`: 37 s on a loaded 2-core host,
// so its own timeout over the tier's minute (vitest.config.ts).
it('pnpm db:build stores every file in data/ and nothing else', () => {
  const dir = mkdtempSync(join(tmpdir(), 'rbdb-build-'));
  try {
    const db = join(dir, 'bench.sqlite');
    const out = execFileSync(process.execPath, [join(root, 'scripts/db-build.mjs'), '--db', db], {
      encoding: 'utf8',
    });
    // data/imported, and each data/results/<machine>/ but for its manifest.json (not a result).
    const results = join(root, 'data/results');
    const machines = existsSync(results)
      ? readdirSync(results, { withFileTypes: true }).filter((d) => d.isDirectory())
      : [];
    const files =
      readdirSync(join(root, 'data/imported')).filter((f) => f.endsWith('.json')).length +
      machines
        .flatMap((d) => readdirSync(join(results, d.name)))
        .filter((f) => f.endsWith('.json') && f !== 'manifest.json').length;
    expect(out).toContain(`${files} results`);
    const opened = openDatabase(db, { readonly: true });
    expect(count(opened).results).toBe(files);
    opened.close();
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}, 300_000);
