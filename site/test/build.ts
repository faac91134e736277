import { spawnSync } from 'node:child_process';
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
