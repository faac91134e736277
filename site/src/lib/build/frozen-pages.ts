import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { noiseDigests, type SiteResultRow } from '@redis-benchdb/db';
import { allResults, database } from '../data/data.js';
import { standingOfResult } from '../data/standing.js';
import { onlyResultPages } from './only-results.js';
import { stageFile } from './stage.js';

/**
 * Result pages built once and kept (issue 42). A result never changes once stored, so its page is a
 * function of its own row, its standing under the corroboration rule (which other results can change:
 * the page marks a held result) and the site's templates. That is its key: a build given the keys of
 * the pages already kept (the publishing service's, packages/server site-builder.ts) renders only the
 * results whose key differs, and writes every live result's key for the service to keep.
 *
 * The site's template version is set by scripts/site-build.mjs (a hash of the site's sources, the
 * packages it reads through and the lockfile): a new one renders every page again.
 */
export const TEMPLATE_ENV = 'REDIS_BENCHDB_SITE_TEMPLATE';
/** A JSON file of the pages kept: `{ template, keys: { id: key } }`. Unset: every page is rendered. */
export const KEPT_ENV = 'REDIS_BENCHDB_KEPT_PAGES';

/** Where a build writes every live result's key (a dot file: the service never serves it). */
export const PAGE_KEYS_FILE = '/.redis-benchdb-page-keys.json';

export interface PageKeys {
  template: string;
  keys: Record<string, string>;
}

export function templateVersion(): string {
  return process.env[TEMPLATE_ENV] ?? 'unversioned';
}

let noise: Map<string, string> | null = null;

/**
 * What a result's page and files show that can change while the result does not: its row's labels
 * (machine kind, signer, configuration, copy), its standing (a held result is marked; a disputed one
 * has none), and its environment's between-run noise (compare.json carries it), with the template's
 * version. Its ranks and similar results are not: the page gives them as of the day it was built.
 */
export function pageKey(row: SiteResultRow, template = templateVersion()): string {
  const standing = standingOfResult(row.id) ?? null;
  noise ??= noiseDigests(database());
  return createHash('sha256')
    .update(JSON.stringify([template, row, standing, noise.get(row.id) ?? null]))
    .digest('hex')
    .slice(0, 16);
}

let chosen: SiteResultRow[] | null = null;

/**
 * The results whose pages this build renders: all of them, or, given the pages kept, those not kept
 * or kept under another key. Writes every live result's key beside the pages, once.
 *
 * A build of result pages alone renders only results that have no page kept at all, and computes no
 * key: a new page is written under a placeholder key, which the whole site's build that follows finds
 * changed and renders again with the others whose key changed (a new result can change the standing or
 * the noise of others). Keys read every result's standing and its environment's noise: seconds at tens
 * of thousands of results, which a submitter's page need not wait for.
 */
export function resultsToRender(): SiteResultRow[] {
  if (chosen) return chosen;
  const template = templateVersion();
  const kept = keptPages();
  if (onlyResultPages()) {
    // New templates: every page, but in the whole site's build, never in one of result pages alone.
    chosen =
      kept === null || kept.template !== template ? [] : allResults().filter((r) => !(r.id in kept.keys));
    const keys = { ...kept?.keys };
    for (const r of chosen) keys[r.id] = NOT_KEYED;
    stageFile(PAGE_KEYS_FILE, JSON.stringify({ template, keys } satisfies PageKeys));
    return chosen;
  }
  const keys: Record<string, string> = {};
  for (const r of allResults()) keys[r.id] = pageKey(r, template);
  stageFile(PAGE_KEYS_FILE, JSON.stringify({ template, keys } satisfies PageKeys));
  chosen =
    kept === null || kept.template !== template
      ? allResults()
      : allResults().filter((r) => kept.keys[r.id] !== keys[r.id]);
  return chosen;
}

/** The key of a page rendered by a build of result pages alone: never a real key (16 hex digits). */
const NOT_KEYED = 'new';

function keptPages(): PageKeys | null {
  const file = process.env[KEPT_ENV];
  if (!file) return null;
  try {
    return JSON.parse(readFileSync(file, 'utf8')) as PageKeys;
  } catch {
    return null; // none kept yet (the first build), or unreadable: render every page
  }
}
