import { createHash } from 'node:crypto';
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
/** What a page is made from, besides the database: the site, the packages it reads through, the lockfile. */
const SOURCES = [
  'site/src',
  'site/integration',
  'site/astro.config.mjs',
  'site/package.json',
  'schemas',
  'pnpm-lock.yaml',
  ...readdirSync(join(ROOT, 'packages')).map((p) => `packages/${p}/dist`),
];

/**
 * The site's template version (site/src/lib/build/frozen-pages.ts): a hash of every file a page is
 * made from. The publishing service keeps result pages built under one version and renders them all
 * again under a new one. Hashing the files, not a hand-kept number, means no change can be forgotten.
 */
export function templateVersion(root = ROOT) {
  const hash = createHash('sha256');
  const walk = (path) => {
    if (!existsSync(path)) return;
    if (statSync(path).isDirectory()) {
      for (const name of readdirSync(path).sort()) if (name !== 'node_modules') walk(join(path, name));
      return;
    }
    hash.update(relative(root, path)).update('\0').update(readFileSync(path)).update('\0');
  };
  for (const s of SOURCES) walk(join(root, s));
  return hash.digest('hex').slice(0, 16);
}
