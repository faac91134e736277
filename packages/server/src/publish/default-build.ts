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

/**
 * The site's template version when the repository's own build is used (scripts/lib/template-version.mjs):
 * part of what a build is made from, so a service upgraded in place renders its kept pages again at its
 * start, not at the next submission. Null where the script is not (a --site-build of the operator's).
 */
export async function defaultTemplateVersion(): Promise<string | null> {
  const lib = new URL('../../../../scripts/lib/template-version.mjs', import.meta.url);
  if (!existsSync(fileURLToPath(lib))) return null;
  const { templateVersion } = (await import(lib.href)) as { templateVersion: () => string };
  // The same override the site build takes (scripts/site-build.mjs).
  return process.env.REDIS_BENCHDB_SITE_TEMPLATE || templateVersion();
}
