import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';

const siteDir = fileURLToPath(new URL('..', import.meta.url));

/** `astro build` of the real site from the given database into `outDir`, as `pnpm site:build` does. */
export function buildSite(dbPath: string, outDir: string, env: Record<string, string> = {}): string {
  const r = spawnSync(
    process.execPath,
    [fileURLToPath(new URL('../node_modules/astro/astro.js', import.meta.url)), 'build'],
    {
      cwd: siteDir,
      env: {
        ...process.env,
        REDIS_BENCHDB_DB: dbPath,
        REDIS_BENCHDB_SITE_OUT: outDir,
        ASTRO_TELEMETRY_DISABLED: '1',
        ...env,
      },
      encoding: 'utf8',
      timeout: 240_000,
    },
  );
  if (r.status !== 0) throw new Error(`astro build failed (${r.status}):\n${r.stdout}\n${r.stderr}`);
  return r.stdout;
}
