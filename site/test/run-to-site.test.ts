import type { ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { buildSite, runNode } from './build.js';
import { startRedis } from './redis-server.js';

// The README's promise: after `redis-benchdb run`, the new result is on the locally built site.
// A real run (short ad hoc cells) against a throwaway redis-server on a free port, stored in a
// temp database, then the real site build from it.
const BIN = fileURLToPath(new URL('../../packages/cli/dist/bin.js', import.meta.url));
let dir: string;
let server: ChildProcess;
let port: number;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'rbdb-run-site-'));
  ({ child: server, port } = await startRedis(dir));
});

afterAll(async () => {
  server?.kill('SIGTERM');
  if (dir) rmSync(dir, { recursive: true, force: true });
});

/** The built CLI with a database, signing key and submit target of this test's own. */
function benchdb(db: string, args: string[]) {
  const env = {
    ...process.env,
    REDIS_BENCHDB_DB: db,
    REDIS_BENCHDB_CONFIG_DIR: join(dir, 'config'),
    REDIS_BENCHDB_SERVER: '',
  };
  // Waits on the process, not on a clock: vitest's timeout is the guard against a hang.
  return runNode([BIN, ...args], env);
}

it('a result stored by run is on the site built next, and run says how to open it', async () => {
  expect(port).not.toBe(6379);
  const db = join(dir, 'benchdb.sqlite');
  const run = await benchdb(db, ['run', '-t', 'get,set', '-n', '2000', '-c', '4', '-p', String(port)]);
  expect(run.status, run.stderr).toBe(0);
  const id = /stored in .* as ([0-9a-f]{64})/.exec(run.stderr)?.[1];
  expect(id, run.stderr).toBeDefined();
  expect(run.stderr).toContain(`open http://localhost:4321/results/${id}/`);
  const out = join(dir, 'dist');
  await buildSite(db, out);
  const page = join(out, 'results', id!, 'index.html');
  expect(existsSync(page)).toBe(true);
  const html = readFileSync(page, 'utf8');
  expect(html).toContain(id);
  expect(html).toMatch(/verified at build/);
  expect(readFileSync(join(out, 'data/index.json'), 'utf8')).toContain(id);
});

it('two launched servers make one run group, which the site shows side by side', async () => {
  const db = join(dir, 'group.sqlite');
  const run = await benchdb(db, [
    'run',
    '--server-bin',
    'redis-server',
    '--transport',
    'tcp,unix',
    '-t',
    'get,set',
    '-n',
    '2000',
    '-c',
    '4',
  ]);
  expect(run.status, run.stderr).toBe(0);
  const group = /run group ([0-9a-f]{16})/.exec(run.stdout + run.stderr)?.[1];
  expect(group, run.stdout + run.stderr).toBeDefined();
  const out = join(dir, 'group-dist');
  await buildSite(db, out);
  const html = readFileSync(join(out, 'groups', group!, 'index.html'), 'utf8');
  expect(html).toMatch(/· tcp/);
  expect(html).toMatch(/· unix/);
  expect(html).toContain('compare-cells');
  // The members ran interleaved: the page compares them round by round (one trial each: one round),
  // so no row may say faster or slower. Read as a person reads it (tags stripped, row by row): a quiet
  // cell gets the paired rule's own words; a flagged cell (a busy machine) gets no verdict for its
  // flag, and the paired note beside it. (The verdict and its reason are separate spans: matching
  // "no verdict: one round" in the raw HTML never could, and the test passed only on a busy machine.)
  const table = /<table class="compare-cells">([\s\S]*?)<\/table>/.exec(html)?.[1] ?? '';
  const rows = [...table.matchAll(/<tbody>[\s\S]*?<\/tbody>/g)]
    .flatMap((m) => m[0].split('</tr>'))
    .map((r) =>
      r
        .replace(/<[^>]+>/g, ' ')
        .replaceAll('&#39;', "'")
        .replace(/\s+/g, ' ')
        .trim(),
    )
    .filter(Boolean);
  expect(rows.map((r) => r.split(' ')[0])).toEqual(['GET', 'SET']);
  for (const row of rows) {
    expect(row).toMatch(/no verdict (one round, no paired interval|.* in (this result|the baseline)'s cell)/);
    expect(row).toMatch(/no verdict one round, no paired interval|\(paired, 1 round\)/);
    expect(row).not.toMatch(/\b(faster|slower)\b/);
  }
  expect(html).toMatch(/These results ran interleaved/);
  expect((html.match(/<svg[^>]*role="img"/g) ?? []).length).toBeGreaterThanOrEqual(2);
});
