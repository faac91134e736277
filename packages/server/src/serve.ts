import { join, resolve } from 'node:path';
import { assignSigner, count, openDatabase, PROJECT_SIGNER, readSignerKeys } from '@redis-benchdb/db';
import { buildApp } from './app.js';
import type { AppOptions } from './options.js';
import { BackupSchedule } from './publish/backups.js';
import { defaultSiteBuild, defaultTemplateVersion } from './publish/default-build.js';
import { PngOnRequest } from './publish/png-on-request.js';
import { SiteBuilder } from './publish/site-builder.js';

export interface PublishSiteOptions {
  /** Where the built sites go (see SiteBuilder); the served one survives a restart. */
  dir: string;
  /**
   * What builds the site: a shell command line, or an argv. @default `node scripts/site-build.mjs` of
   * the repository the service runs from (publish/default-build.ts)
   */
  build?: string | readonly string[];
  /** The public address the pages name. @default the service's own URL */
  url?: string;
  /** @default 2000 */
  debounceMs?: number;
  /**
   * The bound on the PNGs drawn on request, kept in `$REDIS_BENCHDB_PNG_CACHE`, else `DIR/png-cache`.
   * @default 1024 MiB
   */
  pngCacheBytes?: number;
}

export interface ServeOptions extends Omit<AppOptions, 'db' | 'publish'> {
  /** The SQLite file; created (with its directory) and migrated if need be. */
  dbPath: string;
  /** @default '127.0.0.1' */
  host?: string;
  /** 0 picks a free port. @default 0 */
  port?: number;
  /** Serve the site on the same origin, and rebuild it after new results: the publishing service. */
  site?: PublishSiteOptions;
  /** Online backups of the database (SQLite's backup API) every interval. */
  backup?: { dir: string; intervalMs: number; keep: number };
  /**
   * A directory of public keys (`<fingerprint hex>.pub.pem`, as data/results/keys/) that are all the
   * project's: results they sign count as one signer, the project, wherever they were submitted.
   */
  projectKeysDir?: string;
  /** Where the service says what it does (builds, backups). @default stderr */
  log?: (line: string) => void;
}

export const DEFAULT_SERVE_OPTIONS = { host: '127.0.0.1', port: 0 } as const;
export const DEFAULT_SITE_DEBOUNCE_MS = 2000;
export const DEFAULT_PNG_CACHE_MB = 1024;
/** PNGs being drawn or waiting for the drawing thread; more get 503 (each takes 10-20 ms). */
const PNG_MAX_QUEUED = 64;

export interface RunningServer {
  /** `http://host:port`, without a trailing slash. */
  url: string;
  port: number;
  /** The publishing service's parts, when it publishes. */
  site?: SiteBuilder;
  backups?: BackupSchedule;
  /** Stop accepting, finish the requests in flight, then close the database. */
  close(): Promise<void>;
}

/** Open the database, build the app and listen. */
export async function startServer(options: ServeOptions): Promise<RunningServer> {
  const {
    dbPath,
    host,
    port,
    site: siteOptions,
    backup,
    projectKeysDir,
    log,
    ...appOptions
  } = {
    ...DEFAULT_SERVE_OPTIONS,
    log: (line: string) => process.stderr.write(`redis-benchdb-server: ${line}\n`),
    ...options,
  };
  const site = siteOptions ? siteBuilder(siteOptions, dbPath, log) : undefined;
  const db = openDatabase(dbPath);
  try {
    // Read before the first request: the cohorts a submit's rank is counted in must already know them.
    if (projectKeysDir) assignSigner(db, PROJECT_SIGNER, readSignerKeys(projectKeysDir));
    // The site already built is served from the first request: a restart shows no "being built" page.
    await site?.load();
  } catch (e) {
    db.close();
    throw e;
  }
  const backups = backup ? new BackupSchedule(db, { ...backup, log }) : undefined;
  if (site) {
    // The pages are made from the database and the site's templates: a change of either rebuilds.
    const template = siteOptions?.build === undefined ? await defaultTemplateVersion() : null;
    site.fingerprint = () => {
      const c = count(db);
      return `${c.results} results, ${c.retracted} retracted${template ? `, templates ${template}` : ''}`;
    };
  }
  const pngs = siteOptions ? pngOnRequest(siteOptions, log) : undefined;
  // The site's public address is the service's too: it serves the site on the same origin.
  const publicUrl = appOptions.publicUrl ?? siteOptions?.url;
  const app = buildApp({
    ...appOptions,
    db,
    publish: { site, backups, pngs },
    ...(publicUrl !== undefined ? { publicUrl } : {}),
  });
  try {
    await app.listen({ host, port });
  } catch (e) {
    await app.close();
    db.close();
    throw e;
  }
  const address = app.server.address();
  if (address === null || typeof address === 'string') throw new Error(`unexpected address ${address}`);
  const urlHost = address.family === 'IPv6' ? `[${address.address}]` : address.address;
  const url = `http://${urlHost}:${address.port}`;
  await site?.start(siteOptions?.url ?? url);
  backups?.start();
  let closing: Promise<void> | undefined;
  return {
    url,
    port: address.port,
    ...(site ? { site } : {}),
    ...(backups ? { backups } : {}),
    // Idempotent: a signal and the caller may both ask.
    close: () =>
      (closing ??= app
        .close()
        .then(() => Promise.all([site?.close(), backups?.close()]))
        .finally(() => {
          db.close();
        })
        .then(() => {})),
  };
}

function pngOnRequest(o: PublishSiteOptions, log: (line: string) => void): PngOnRequest {
  return new PngOnRequest({
    cacheDir: resolve(process.env.REDIS_BENCHDB_PNG_CACHE || join(o.dir, 'png-cache')),
    maxCacheBytes: o.pngCacheBytes ?? DEFAULT_PNG_CACHE_MB * 1024 * 1024,
    maxQueued: PNG_MAX_QUEUED,
    log,
  });
}

function siteBuilder(o: PublishSiteOptions, dbPath: string, log: (line: string) => void): SiteBuilder {
  const command = o.build ?? defaultSiteBuild();
  if (command === null)
    throw new Error(
      'no site build command: this is not a clone of the repository (no scripts/site-build.mjs); give --site-build "CMD"',
    );
  return new SiteBuilder({
    siteDir: resolve(o.dir),
    command,
    dbPath: resolve(dbPath),
    debounceMs: o.debounceMs ?? DEFAULT_SITE_DEBOUNCE_MS,
    log,
  });
}
