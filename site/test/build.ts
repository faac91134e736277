import { spawn, spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';

const script = fileURLToPath(new URL('../../scripts/site-build.mjs', import.meta.url));

/** The real site build from the given database into `outDir`: `pnpm site:build --db PATH --out DIR`. */
export function buildSite(dbPath: string, outDir: string, env: Record<string, string> = {}): string {
  const r = spawnSync(process.execPath, [script, '--db', dbPath, '--out', outDir], {
    env: { ...process.env, ...env },
    encoding: 'utf8',
    timeout: 240_000,
  });
  if (r.status !== 0) throw new Error(`site build failed (${r.status}):\n${r.stdout}\n${r.stderr}`);
  return r.stdout;
}

/**
 * The same build without blocking the test's thread: vitest's worker keeps answering its runner
 * while a build on a busy machine takes minutes (a blocked one fails the run with "Timeout calling
 * onTaskUpdate", though every test passed).
 */
export function buildSiteAsync(dbPath: string, outDir: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [script, '--db', dbPath, '--out', outDir], {
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    child.stdout.on('data', (b) => {
      out += b;
    });
    child.stderr.on('data', (b) => {
      out += b;
    });
    child.on('error', reject);
    child.on('close', (code) =>
      code === 0 ? resolve(out) : reject(new Error(`site build failed (${code}):\n${out}`)),
    );
  });
}
