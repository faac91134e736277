// The folder a build writes into is replaced whole (Astro empties it, and site-build.mjs renames the
// previous build aside and removes it). That is safe only for a folder the build made itself: a
// marker file written at the end of every build says so. Any other non-empty folder is refused
// before anything is touched, so `--out ~` or `--out` at a folder of notes removes nothing.
import { existsSync, readdirSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

/** Written into every folder the site build fills; its presence lets the next build replace it. */
export const SITE_MARKER = '.redis-benchdb-site';

/** A folder the build may not replace; `code` for the caller, which exits 2. */
export class OutFolderError extends Error {
  /** @param {string} message @param {string} code */
  constructor(message, code) {
    super(message);
    this.name = 'OutFolderError';
    this.code = code;
  }
}

/**
 * Throws an OutFolderError unless `out` is absent, an empty folder, or a folder holding the marker.
 * `ownDefault` is the build's own default folder (site/dist, inside the repository and ignored by
 * git): builds made before the marker existed left it unmarked, and nothing else writes there.
 * @param {string} out an absolute path
 * @param {{ flag?: string, ownDefault?: boolean }} [opts]
 */
export function checkOutFolder(out, opts = {}) {
  const flag = opts.flag ?? '--out';
  if (!existsSync(out)) return;
  if (!statSync(out).isDirectory())
    throw new OutFolderError(
      `${flag} ${out} is a file, not a folder: name a new or empty folder for the site`,
      'ERR_OUT_NOT_FOLDER',
    );
  if (opts.ownDefault || isMarked(out)) return;
  const names = readdirSync(out);
  if (names.length === 0) return;
  const shown = names.slice(0, 3).join(', ') + (names.length > 3 ? `, … (${names.length} entries)` : '');
  throw new OutFolderError(
    `${flag} ${out} is not empty (${shown}) and was not made by site:build (no ${SITE_MARKER} file in it). ` +
      'A build replaces its folder whole, so it writes only into a new or empty folder, or one it built before. ' +
      `Name another folder; nothing was changed. If ${out} does hold an earlier site of this build and may be ` +
      `replaced with everything in it, create ${join(out, SITE_MARKER)} and run again.`,
    'ERR_OUT_NOT_OURS',
  );
}

/** @param {string} dir */
export function isMarked(dir) {
  return existsSync(join(dir, SITE_MARKER));
}

/**
 * Marks `out` as the build's own, when it exists (a build that failed early may have made none).
 * @param {string} out
 */
export function markOutFolder(out) {
  if (!existsSync(out)) return;
  writeFileSync(
    join(out, SITE_MARKER),
    'Built by redis-benchdb site:build. The next build replaces this folder and everything in it.\n',
  );
}
