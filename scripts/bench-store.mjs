// Bytes per stored result: how big the SQLite file grows per result, by suite profile.
//   pnpm bench:store [--data DIR] [--synthetic N] [--json]
// Builds one database per suite profile (quick, full, compare, and all of them) from the signed
// results in data/results through the same ingest() the service uses, closes it (so the WAL is
// checkpointed into the file) and divides the file's size by its results. --synthetic N also
// generates N synthetic results (scripts/gen-synthetic-db.mjs: a quarter full, the rest quick).
// Where the bytes go (tables and indexes) is printed when packages/db has storeBreakdown (issue 42).

import { execFileSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import os from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';

const root = fileURLToPath(new URL('..', import.meta.url));
const db = await import('@redis-benchdb/db');
const { values: args } = parseArgs({
  options: {
    data: { type: 'string', default: join(root, 'data/results') },
    synthetic: { type: 'string', default: '0' },
    json: { type: 'boolean', default: false },
  },
});
const synthetic = Number(args.synthetic);
if (!Number.isInteger(synthetic) || synthetic < 0)
  throw new Error(`invalid --synthetic: ${args.synthetic} (an integer >= 0)`);

function* envelopeFiles(dir) {
  for (const name of readdirSync(dir).sort()) {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) yield* envelopeFiles(path);
    else if (name.endsWith('.json') && name !== 'manifest.json') yield path;
  }
}

/** Each signed result's text, by its suite profile (a result without a suite counts as 'none'). */
function byProfile() {
  const groups = new Map();
  for (const file of envelopeFiles(args.data)) {
    const text = readFileSync(file, 'utf8');
    const envelope = JSON.parse(text);
    if (envelope.schema !== 'redis-benchdb/envelope.v1') continue;
    const profile = JSON.parse(envelope.payload).suite?.profile ?? 'none';
    groups.set(profile, [...(groups.get(profile) ?? []), text]);
  }
  groups.set('all', [...groups.values()].flat());
  return groups;
}

const tmp = mkdtempSync(join(os.tmpdir(), 'bench-store-'));

/** The database's size and what holds it, after closing (the WAL is then in the file). */
function measure(path, results) {
  const open = db.openDatabase(path, { readonly: true });
  const breakdown = db.storeBreakdown ? db.storeBreakdown(open) : null;
  open.close();
  const bytes = statSync(path).size;
  return { results, bytes, bytesPerResult: Math.round(bytes / results), breakdown };
}

function build(name, texts) {
  const path = join(tmp, `${name}.sqlite`);
  const open = db.openDatabase(path);
  for (const text of texts) db.ingest(open, text);
  open.close();
  return measure(path, texts.length);
}

const rows = {};
try {
  for (const [profile, texts] of byProfile()) rows[`data/results ${profile}`] = build(profile, texts);
  if (synthetic > 0) {
    const path = join(tmp, 'synthetic.sqlite');
    execFileSync(
      process.execPath,
      [join(root, 'scripts/gen-synthetic-db.mjs'), '--count', String(synthetic), '--out', path, '--json'],
      { stdio: ['ignore', 'ignore', 'inherit'] },
    );
    rows[`synthetic ${synthetic} (1/4 full)`] = measure(path, synthetic);
  }
} finally {
  rmSync(tmp, { recursive: true, force: true });
}

if (args.json) console.log(JSON.stringify(rows, null, 2));
else
  for (const [name, r] of Object.entries(rows)) {
    console.log(
      `${name}: ${r.results} results, ${(r.bytes / 1e6).toFixed(1)} MB, ${(r.bytesPerResult / 1024).toFixed(0)} KiB per result`,
    );
    for (const b of r.breakdown ?? [])
      console.log(`  ${b.name}: ${(b.bytes / r.results / 1024).toFixed(1)} KiB per result`);
  }
