import rateLimit from '@fastify/rate-limit';
import Fastify, { type FastifyInstance, type FastifyRequest } from 'fastify';
import { openApiRoute, registerApiDoc } from './api-doc/swagger.js';
import { clientErrorHandler } from './client-error.js';
import { replyNotFound, replyWithError } from './error-reply.js';
import { HttpError } from './http-error.js';
import { IngestQueue } from './ingest-queue.js';
import { KeyBudget } from './key-budget.js';
import { networkOf } from './network.js';
import { NewKeyBudget } from './new-key-budget.js';
import { type AppOptions, resolveAppOptions } from './options.js';
import { SITE_ROUTE, siteRoutes } from './publish/site-routes.js';
import { CohortCache } from './read/cohort-cache.js';
import { ReadPool } from './read/read-pool.js';
import { checkRequestHead, drained } from './request-checks.js';
import { healthRoutes } from './routes/health.js';
import { keyRoutes } from './routes/keys.js';
import { methodNotAllowedRoutes } from './routes/method-not-allowed.js';
import { readRoutes } from './routes/read.js';
import { resultsRoutes } from './routes/results.js';
import { retractRoutes } from './routes/retract.js';
import { StorageHealth } from './storage-health.js';

/**
 * The ingest service over an open database:
 *
 * - `POST /api/v1/results`: a signed envelope → 201 `{ id, pagePath, ranks }`, or 200 with `duplicate: true`
 * - `GET /api/v1/results`: results filtered, newest first, keyset-paged (routes/read.ts)
 * - `GET /api/v1/results/:id`: the envelope as verified (canonical JSON), or an imported result's
 *   document; 404 unknown, 410 retracted
 * - `GET /api/v1/cohorts/:fingerprint`: a workload's distribution of ops/s
 * - `GET /api/v1/openapi.json`: the OpenAPI 3.1 document of all of these, generated from the routes'
 *   own schemas (each beside its handler; api-doc/swagger.ts)
 * - `POST /api/v1/results/:id/retract`: a signed retraction request → 200
 * - `POST /api/v1/keys/rotations`, `POST /api/v1/keys/revocations`: an owner's signed statement about
 *   a key (routes/keys.ts): a successor that may retract its results; every result retracted
 * - `GET /api/v1/health`: `{ ok, results, schemaVersion, checking, storage }`, and `site`, `backup` when
 *   publishing; 503 when the database cannot be written (storage-health.ts)
 * - with `publish.site`: every other GET is the built site (publish/site-routes.ts), rebuilt after new results
 *
 * Every error is `{ error: { code, message } }`. A submission's checks run on worker threads
 * (IngestQueue, CheckPool); its write on the event loop. The caller owns the database and closes it
 * after the app.
 */
export function buildApp(options: AppOptions): FastifyInstance {
  const o = resolveAppOptions(options);
  const app = Fastify({
    logger: o.logger,
    bodyLimit: o.bodyLimitBytes,
    // A client that trickles its request (slowloris) or goes silent holds a socket: bound both.
    // requestTimeout covers the headers and the body together; Node checks it on a timer, every
    // 30 s by default, so a 10 s deadline held for up to 40 s: check often enough to hold it.
    requestTimeout: o.requestTimeoutMs,
    connectionTimeout: o.requestTimeoutMs,
    // Fastify's default (72 s) would let an idle keep-alive socket outlive the request deadline.
    keepAliveTimeout: o.requestTimeoutMs,
    http: {
      headersTimeout: o.requestTimeoutMs,
      connectionsCheckingInterval: deadlineCheckIntervalMs(o.requestTimeoutMs),
      // Node would answer a missing host with an empty 400 of its own; the hook below says it in JSON.
      requireHostHeader: false,
    },
    clientErrorHandler: clientErrorHandler(o.requestTimeoutMs),
    // Only the proxies named: `true` would let any client set its own address with X-Forwarded-For.
    trustProxy: o.trustProxy.length > 0 ? [...o.trustProxy] : false,
    // A URL that does not decode: fastify's own reply would not have our error shape.
    frameworkErrors: (error, request, reply) => replyWithError(error, request, reply),
    // While it closes (a restart), a request that still reaches it (on a kept-alive connection, or in
    // the moment before the listener closes) is answered as usual, with `connection: close`, rather
    // than fastify's bare 503: a reader polling a page across a restart sees the page, never a 503.
    return503OnClosing: false,
  });

  // The body as the bytes received, not parsed: the signature covers the payload's exact bytes,
  // ingest reads the raw text for duplicate keys, and it decodes UTF-8 strictly (a string parser would turn
  // invalid bytes into U+FFFD, and a bad encoding into a "bad signature").
  app.removeAllContentTypeParsers();
  app.addContentTypeParser('application/json', { parseAs: 'buffer' }, (_request, body, done) => {
    done(null, body);
  });

  app.setErrorHandler(async (error, request, reply) => {
    // A chunked body past the limit (no content-length to refuse it by): fastify stops reading it,
    // and answering while the client still sends would close the socket under it, a reset that loses
    // the answer. Read the rest and drop it, then answer 413, as checkRequestHead does.
    if ((error as { code?: string }).code === 'FST_ERR_CTP_BODY_TOO_LARGE') await drained(request);
    return replyWithError(error as Error, request, reply);
  });
  app.setNotFoundHandler(replyNotFound);
  app.addHook('onRequest', checkRequestHead(o.bodyLimitBytes));

  const network = (request: FastifyRequest) => networkOf(request.ip, o.ipv6PrefixLength);
  limitPerNetwork(app, o.rateLimit.perIpPerMinute, network);

  // Before the routes: it documents each as it is added.
  registerApiDoc(app);

  const queue = new IngestQueue(o.db, {
    threads: o.checkThreads,
    maxQueued: o.maxQueuedSubmissions,
    maxQueuedBytes: 8 * o.bodyLimitBytes,
  });
  // After the requests in flight are answered: their checks need the threads.
  app.addHook('onClose', () => queue.close());
  const newKeys = new NewKeyBudget(o.db, o.rateLimit.newKeysPerNetworkPerHour);
  const cohorts = new CohortCache(o.db);
  const storage = new StorageHealth(o.db.path, o.minFreeBytes);
  const reads = new ReadPool(o.db, {
    threads: o.readThreads,
    maxQueued: o.maxQueuedReads,
    maxQueuedPerNetwork: o.maxQueuedReadsPerNetwork,
  });
  app.addHook('onClose', () => reads.close());
  const { site, backups, pngs } = o.publish;
  if (pngs) app.addHook('onClose', () => pngs.close());
  // A stored or retracted result changes pages: ask for a build (debounced, one at a time).
  const changed = site ? () => site.request() : () => {};
  // Registered as a plugin so that the routes come after rate-limit has loaded and hooked them.
  app.register(async (scope) => {
    const keys = new KeyBudget(scope, o.rateLimit.perKeyPerMinute);
    resultsRoutes(scope, {
      db: o.db,
      queue,
      keys,
      newKeys,
      network,
      cohorts,
      storage,
      idleTimeoutMs: o.requestTimeoutMs,
      changed,
    });
    readRoutes(scope, { cohorts, reads, networkOf: network });
    openApiRoute(scope);
    retractRoutes(scope, { db: o.db, cohorts, storage, changed, publicUrl: o.publicUrl });
    keyRoutes(scope, { db: o.db, cohorts, storage, changed });
    healthRoutes(scope, { db: o.db, queue, storage, site, backups });
    methodNotAllowedRoutes(scope);
    if (site) await siteRoutes(scope, { db: o.db, site, pngs, idleTimeoutMs: o.requestTimeoutMs });
  });
  return app;
}

/**
 * Per client network (an IPv4 address, an IPv6 /64: network.ts), on every API route, before the body
 * is read: the cheap first line. Behind a reverse proxy every request comes from the proxy's address:
 * request.ip is the client's only when the proxy is named in trustProxy. The site's static files are
 * not counted: a reader paging through the site, or a poller of a page, must not use up the limit of
 * its network's submissions and reads; the host's web server limits those (docs/DEPLOY.md), and a
 * chart PNG drawn on request has its own bound (png-on-request.ts).
 */
function limitPerNetwork(
  app: FastifyInstance,
  max: number,
  network: (request: FastifyRequest) => string,
): void {
  app.register(rateLimit, {
    global: true,
    hook: 'onRequest',
    // By the route matched, not the URL's text: /%61pi/... is routed as /api/... and must count as it.
    allowList: (request) => request.routeOptions.url === SITE_ROUTE,
    max,
    timeWindow: 60_000,
    keyGenerator: (request) => network(request),
    errorResponseBuilder: (request, context) =>
      new HttpError(
        'RATE_LIMITED',
        429,
        `more than ${context.max} requests a minute from this network (${network(request)}); retry in ${context.after}`,
      ),
  });
}

/** A tenth of the deadline, within 50 ms to 1 s: the deadline holds to within that much. */
export function deadlineCheckIntervalMs(requestTimeoutMs: number): number {
  return Math.min(1000, Math.max(50, Math.floor(requestTimeoutMs / 10)));
}
