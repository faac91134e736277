import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

/**
 * The repository's own site build, when the service runs from a clone (packages/server/dist/publish/
 * here): `node scripts/site-build.mjs`, which takes the database, output and URL from the environment
 * SiteBuilder sets. Null elsewhere: then --site-build must say what builds the site.
 */
export function defaultSiteBuild(): string[] | null {
  const script = fileURLToPath(new URL('../../../../scripts/site-build.mjs', import.meta.url));
  // --verbose: Astro's log on stdout, which SiteBuilder keeps in the site directory's build.log,
  // rather than one file per build in the state folder of the service's user.
  return existsSync(script) ? [process.execPath, script, '--verbose'] : null;
}
