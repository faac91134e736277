/**
 * `results`: a build of the new result pages alone (the publishing service's first step after a
 * submission, so a page is live in seconds whatever the database's size); every other page returns
 * notInThisBuild() and is left to the full build that follows.
 */
export const ONLY_ENV = 'REDIS_BENCHDB_SITE_ONLY';
export const onlyResultPages = (): boolean => process.env[ONLY_ENV] === 'results';
/** What a page other than a result's returns in a build of result pages alone: Astro writes no file for an empty body. */
export function notInThisBuild(): Response {
  return new Response(null, { status: 204 });
}
