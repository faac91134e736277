// The checks half of ingest(), without SQLite (`@redis-benchdb/db/checks`): what the service's worker
// threads load, so that each does not load better-sqlite3 too.
export {
  type CheckedSubmission,
  checkParsedSubmission,
  checkSignedHere,
  checkSubmission,
  type IngestOptions,
  parseSubmission,
  SUPPORTED_SCHEMAS,
} from './ingest/check-submission.js';
export { IngestError, type IngestErrorCode } from './ingest/ingest-error.js';
