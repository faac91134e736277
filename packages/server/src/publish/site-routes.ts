import { stat } from 'node:fs/promises';
import { join, posix } from 'node:path';
import fastifyStatic from '@fastify/static';
import { type BenchDb, resultReceipt } from '@redis-benchdb/db';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { HIDDEN } from '../api-doc/responses.js';
import { replyNotFound } from '../error-reply.js';
import { placeholderHtml } from './placeholder.js';
import type { PngOnRequest } from './png-on-request.js';
import type { SiteBuilder } from './site-builder.js';

/** The route of every file of the site (the rate limit leaves it out: app.ts). */
export const SITE_ROUTE = '/*';

/** A result page: `/results/<id>/` (db's resultPagePath). */
const RESULT_PAGE = /^\/results\/([0-9a-f]{64})\/(?:index\.html)?$/;
/** A result page's address without its slash. */
const RESULT_DIR = /^\/results\/[0-9a-f]{64}$/;

/**
 * The built site, on the service's own origin: every GET outside /api/ is a file of the site served
 * now (SiteBuilder.root, read per request, so a swap takes effect at once). A result page not built
 * yet, for a result the database holds, is a placeholder that says so (202). A chart's PNG the build
 * did not draw is drawn from its SVG when first asked for (PngOnRequest).
 */
export async function siteRoutes(
  app: FastifyInstance,
  {
    db,
    site,
    pngs,
    idleTimeoutMs,
  }: {
    db: BenchDb;
    site: SiteBuilder;
    pngs?: PngOnRequest | undefined;
    /** The socket's idle timeout (fastify's connectionTimeout). */
    idleTimeoutMs: number;
  },
) {
  // serve: false: the root changes with each build, so each reply names it (sendFile's rootPath).
  await app.register(fastifyStatic, { root: process.cwd(), serve: false, index: false });

  app.get(SITE_ROUTE, { schema: HIDDEN }, async (request, reply) => {
    const path = sitePath(request);
    if (path === null) return replyNotFound(request, reply);
    const root = site.root;
    const file = root === null ? null : await existingFile(root, path);
    if (file === 'directory') return reply.redirect(`${path}/`, 301);
    if (root !== null && file !== null) return reply.sendFile(file, root);
    // A result page kept from an earlier build (kept-pages.ts): the build's folder has only the new ones.
    const kept = root === null ? null : await site.kept.find(path);
    if (kept !== null) return reply.sendFile(kept.file, kept.root);
    if (root !== null && RESULT_DIR.test(path) && (await site.kept.find(`${path}/`)) !== null)
      return reply.redirect(`${path}/`, 301);
    if (root !== null && pngs && path.endsWith('.png')) {
      // The wait for a drawing is the service's own, bounded (png-on-request.ts): the socket's idle
      // timer must not cut it off with no answer, as it did under bursts. It runs again for the reply.
      const socket = request.raw.socket;
      socket.setTimeout(0);
      let cached: string | null;
      // A kept page's chart is drawn from its SVG in the kept pages' folder.
      const svg = await site.kept.find(path.replace(/\.png$/, '.svg'));
      try {
        cached = svg
          ? await pngs.png(svg.root, svg.file.replace(/\.svg$/, '.png'))
          : await pngs.png(root, path);
      } finally {
        socket.setTimeout(idleTimeoutMs);
      }
      if (cached !== null) return reply.sendFile(cached, pngs.cacheDir);
    }
    const id = RESULT_PAGE.exec(path)?.[1];
    const row = id === undefined ? undefined : resultReceipt(db, id);
    if (id !== undefined && row !== undefined && row.retractedAt === null)
      return placeholder(reply, id, row.receivedAt);
    if (root === null)
      return reply
        .status(503)
        .header('retry-after', '30')
        .type('text/plain; charset=utf-8')
        .send(
          'the site is being built for the first time; try again shortly (GET /api/v1/health says when)\n',
        );
    return replyNotFound(request, reply);
  });

  function placeholder(reply: FastifyReply, id: string, receivedAt: string) {
    const status = site.status();
    const html = placeholderHtml({
      id,
      receivedAt,
      expectedAt: site.expectedAt(Date.parse(receivedAt)),
      failed: status.state === 'failed',
      now: Date.now(),
    });
    return reply.status(202).header('cache-control', 'no-store').type('text/html; charset=utf-8').send(html);
  }
}

/** The URL's path, decoded and normalised; null for /api/ (the API's own 404) or a path that escapes. */
function sitePath(request: FastifyRequest): string | null {
  let path: string;
  try {
    path = decodeURIComponent(request.url.split('?')[0]!);
  } catch {
    return null;
  }
  if (path.includes('\0') || path.startsWith('/api/')) return null;
  const normal = posix.normalize(path);
  if (!normal.startsWith('/') || normal.includes('/../')) return null;
  // Dot files are the builder's own (.redis-benchdb-build.json says what a build was made from), never
  // a page: none is served, whatever a build leaves in its directory.
  return normal.split('/').some((s) => s.startsWith('.')) ? null : normal;
}

/** The file to send for `path` under root (a directory's index.html), 'directory' for a path lacking its slash, or null. */
async function existingFile(root: string, path: string): Promise<string | 'directory' | null> {
  const file = path.endsWith('/') ? `${path}index.html` : path;
  const found = await stat(join(root, file)).catch(() => null);
  if (found?.isFile()) return file;
  if (found?.isDirectory() && !path.endsWith('/')) {
    const index = await stat(join(root, file, 'index.html')).catch(() => null);
    return index?.isFile() ? 'directory' : null;
  }
  return null;
}
