export { contentId, resultPagePath } from './content-id.js';
export { defaultDatabasePath } from './default-path.js';
export { type CellFilter, explainFindCells, type FoundCell, findCells } from './find-cells.js';
export {
  type IngestOptions,
  type IngestOutcome,
  ingest,
  SUPPORTED_SCHEMAS,
} from './ingest.js';
export { IngestError, type IngestErrorCode } from './ingest-error.js';
export { ingestImported } from './ingest-imported.js';
export { applyMigrations, checkMigrated, MIGRATIONS, SCHEMA_VERSION, schemaVersion } from './migrations.js';
export { type BenchDb, DEFAULT_OPEN_OPTIONS, type OpenOptions, openDatabase } from './open.js';
export {
  checkNumbers,
  checkPlausibility,
  PLAUSIBILITY_LIMITS,
  type PlausibilityOptions,
  type PlausibilityProblem,
} from './plausibility.js';
export {
  type Counts,
  count,
  DEFAULT_LIST_OPTIONS,
  type ExportedResult,
  exportResults,
  getEnvelope,
  integrityCheck,
  type ListOptions,
  listResults,
  listRunGroup,
  MAX_LIST_LIMIT,
  type ResultSummary,
  type StoredEnvelope,
} from './queries.js';
export { RETRACT_WINDOW_MS, type RetractOptions, type RetractOutcome, retract } from './retract.js';
export { RetractError, type RetractErrorCode } from './retract-error.js';
export {
  RETRACT_SCHEMA_ID,
  type RetractionCheck,
  type RetractRequest,
  retractionMessage,
  signRetraction,
  verifyRetraction,
} from './retraction.js';
export { SchemaVersionError } from './schema-version-error.js';
export {
  cellsByWorkload,
  commonWorkload,
  exportJsonlLines,
  getSiteResult,
  iterateSiteResults,
  type SiteCellRow,
  type SiteResultRecord,
  type SiteResultRow,
  siteQueryPlans,
} from './site-queries.js';
