// A stand-in for scripts/site-build.mjs in the service's tests (--site-build "node fake-site-build.mjs"):
// writes an index and one page per listed result of $REDIS_BENCHDB_DB into $REDIS_BENCHDB_SITE_OUT, the
// way the real build lays them out, in milliseconds instead of a minute of Astro. Each build appends a
// line to $FAKE_BUILD_LOG; it waits while $FAKE_BUILD_GATE names a missing file (so a test can hold a
// build open), and fails while $FAKE_BUILD_FAIL names a file that exists. Each result gets one chart SVG
// (charts/pipeline.svg), a coloured bar, and no PNG: the service draws that when asked, as for the real build.
import { appendFileSync, existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { listResults, openDatabase } from '@redis-benchdb/db';

const { REDIS_BENCHDB_DB, REDIS_BENCHDB_SITE_OUT: out, REDIS_BENCHDB_SITE_URL, FAKE_BUILD_LOG } = process.env;
const { FAKE_BUILD_GATE: gate, FAKE_BUILD_FAIL: fail } = process.env;
appendFileSync(FAKE_BUILD_LOG, `start ${Date.now()} ${process.pid}\n`);
while (gate && !existsSync(gate)) await new Promise((r) => setTimeout(r, 20));
if (fail && existsSync(fail)) {
  // Names a path, as a real build's error would: health must not pass it on.
  console.error(`fake build: told to fail, writing ${out}`);
  process.exit(3);
}
const db = openDatabase(REDIS_BENCHDB_DB, { readonly: true });
const rows = listResults(db, { limit: 1000, offset: 0 });
db.close();
mkdirSync(out, { recursive: true });
writeFileSync(join(out, 'index.html'), `<p>${rows.length} results, site ${REDIS_BENCHDB_SITE_URL}</p>`);
for (const r of rows) {
  mkdirSync(join(out, 'results', r.id), { recursive: true });
  writeFileSync(join(out, 'results', r.id, 'index.html'), `<h1>${r.id}</h1><h2 id="rank">Rank</h2>`);
  mkdirSync(join(out, 'results', r.id, 'charts'));
  writeFileSync(
    join(out, 'results', r.id, 'charts', 'pipeline.svg'),
    '<svg xmlns="http://www.w3.org/2000/svg" width="640" height="300"><rect x="40" y="40" width="400" height="200" fill="#4269d0"/></svg>',
  );
}
appendFileSync(FAKE_BUILD_LOG, `built ${rows.length}\n`);
