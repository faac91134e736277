export { buildApp } from './app.js';
export { DEFAULT_PORT } from './args.js';
export type { Checked, CheckPoolOptions } from './check-pool.js';
export type { ErrorBody } from './error-reply.js';
export { HttpError } from './http-error.js';
export { IngestQueue, MAX_BATCH } from './ingest-queue.js';
export {
  type AppOptions,
  DEFAULT_APP_OPTIONS,
  type RateLimitOptions,
  type ResolvedAppOptions,
} from './options.js';
export { type ParsedArgs, parseServerArgs } from './program.js';
export { BackupSchedule, type BackupStatus } from './publish/backups.js';
export type { SiteStatus } from './publish/site-builder.js';
export {
  DEFAULT_SERVE_OPTIONS,
  DEFAULT_SITE_DEBOUNCE_MS,
  type PublishSiteOptions,
  type RunningServer,
  type ServeOptions,
  startServer,
} from './serve.js';
export { UsageError } from './usage-error.js';
