import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

/**
 * The redis-benchdb repository this CLI runs from, or null when it was installed from npm. Hints
 * that need the repository (`pnpm site:build`) are printed only inside one: an npx user has none.
 */
export function repositoryRoot(from = dirname(fileURLToPath(import.meta.url))): string | null {
  for (let dir = from; ; dir = dirname(dir)) {
    // The site is what the hints are about; node_modules means we are an installed package.
    if (existsSync(join(dir, 'pnpm-workspace.yaml')) && existsSync(join(dir, 'site', 'package.json')))
      return dir;
    if (dir.endsWith(`${join('/', 'node_modules')}`) || dirname(dir) === dir) return null;
  }
}
