// pnpm db:build [--db PATH] [--data DIR]: build the SQLite database from the result files in data/
// (data/imported and the runner's own data/results/<machine>/), through the
// same ingest() and ingestImported() the service and the CLI use, so a file that would be refused
// there fails the build here. The database is built in a temporary file and moved into place, so a
// failed build never leaves a half-written database where the site reads one.
// The data keys in data/results/keys/ are recorded as one signer, the project: each session of the
// project signs with a key of its own, and the site counts signers, not keys, as independent evidence.
import { existsSync, readdirSync, readFileSync, renameSync, rmSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';

const {
  openDatabase,
  ingest,
  ingestImported,
  count,
  integrityCheck,
  assignSigner,
  readSignerKeys,
  PROJECT_SIGNER,
} = await import('@redis-benchdb/db');
const root = fileURLToPath(new URL('..', import.meta.url));
const { values } = parseArgs({
  options: {
    db: { type: 'string', default: join(root, 'data/benchdb.sqlite') },
    data: { type: 'string', default: join(root, 'data') },
  },
});
const target = values.db;
const tmp = `${target}.${process.pid}.tmp`;

function* jsonFiles(dir) {
  for (const name of readdirSync(dir).sort()) {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) yield* jsonFiles(path);
    // A results directory's manifest.json says how its results were made; it is not a result
    // (scripts/test/data-results.test.ts checks it against them).
    else if (name.endsWith('.json') && name !== 'manifest.json') yield path;
  }
}

const db = openDatabase(tmp);
let failed = 0;
let stored = 0;
let projectKeys = 0;
try {
  const keysDir = join(values.data, 'results/keys');
  if (existsSync(keysDir)) {
    const keys = readSignerKeys(keysDir);
    assignSigner(db, PROJECT_SIGNER, keys);
    projectKeys = keys.length;
  }
  for (const file of jsonFiles(values.data)) {
    const text = readFileSync(file, 'utf8');
    const schema = JSON.parse(text).schema;
    try {
      if (schema === 'redis-benchdb/envelope.v1') ingest(db, text);
      else if (schema === 'redis-benchdb/imported.v1') ingestImported(db, text);
      else
        throw new Error(
          `not a result file (schema ${JSON.stringify(schema)}): data/ holds signed envelopes and imported.v1 documents`,
        );
      stored++;
    } catch (err) {
      failed++;
      console.error(`db:build: ${relative(root, file)}: ${err.message}`);
    }
  }
  const check = integrityCheck(db);
  if (check.join() !== 'ok') throw new Error(`integrity check failed: ${check.join('; ')}`);
  const totals = count(db);
  db.close();
  if (failed > 0) {
    rmSync(tmp, { force: true });
    console.error(`db:build: ${failed} file(s) refused; ${relative(root, target)} left as it was`);
    process.exit(1);
  }
  for (const suffix of ['-wal', '-shm']) if (existsSync(`${target}${suffix}`)) rmSync(`${target}${suffix}`);
  renameSync(tmp, target);
  console.log(
    `db:build: ${stored} results, ${totals.cells} cells, ${projectKeys} data key${projectKeys === 1 ? '' : 's'} as one signer -> ${relative(root, target) || target}`,
  );
} catch (err) {
  db.close?.();
  rmSync(tmp, { force: true });
  // A bad key file is the data's fault, not the script's: say which file, without a stack.
  if (err.code !== 'SIGNER_KEYS') throw err;
  console.error(`db:build: ${err.message}; ${relative(root, target) || target} left as it was`);
  process.exit(1);
}
