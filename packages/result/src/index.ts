export {
  ADMISSION_REASON_TEXT,
  ADMISSION_REASONS,
  type AdmissionInput,
  type AdmissionReason,
  admissionReasons,
  leftOutText,
  MIN_RESULTS_FOR_MEDIAN_CI,
  type ResultCellAdmission,
  spreadLabel,
} from './admission.js';
export { canonicalJson } from './canonical.js';
export { contentId } from './content-id.js';
export {
  type CorroborationInput,
  corroborate,
  MIN_MAD_SHARE,
  MIN_RESULTS_FOR_SPREAD,
  OUTLIER_MADS,
  type OutlierDetail,
  PAIR_BAND,
  type Standing,
  spreadTest,
  standingReason,
  standingText,
} from './corroboration.js';
export { DERIVED_NOTE, derivedWarnings, ioThreadsOverCpus, warningsOf } from './derived-warnings.js';
export {
  cpuSet,
  ENV_FINGERPRINT_VERSION,
  type EnvironmentFingerprintInput,
  environmentFingerprint,
  environmentFingerprintV2,
  type NormalizedWorkload,
  normalizeWorkload,
  type WorkloadInput,
  workloadFingerprint,
} from './fingerprint.js';
export type {
  ImportedCell,
  ImportedLatency,
  ImportedMachine,
  ImportedServer,
  ImportedSha256,
  ImportedSource,
  ImportedTool,
  ImportedV1,
  ImportedWorkload,
} from './generated/imported-v1.js';
export type {
  Base64Histogram,
  Cell,
  Cluster,
  ClusterNode,
  CpuList,
  CrossCheck,
  EnvelopeV1,
  ErrorCounts,
  ErrorReplies,
  IncompleteReason,
  Interference as InterferenceFigures,
  Latency,
  Link,
  Machine,
  Redirects,
  ResultV1,
  Saturation,
  Server,
  Sha256,
  SloObjective,
  SloSearch,
  SloStep,
  Stall,
  Trial,
  Unknown,
  Warning,
  Workload,
} from './generated/result-v1.js';
export { envelopeV1Schema, importedV1Schema, resultV1Schema } from './generated/schemas.js';
export {
  bucketWidthUs,
  createLatencyHistogram,
  decodeHistogram,
  encodeHistogram,
  HIGHEST_TRACKABLE_US,
  type Histogram,
  type LatencySummaryUs,
  mergeEncodedHistograms,
  summarizeHistogram,
} from './histogram.js';
export {
  type DecodedCounts,
  type DecodeScratch,
  decodeCounts,
  type HistogramGeometry,
  histogramGeometry,
  LATENCY_GEOMETRY,
  MAX_COUNTS_LENGTH,
  MAX_INFLATED_BYTES,
  newDecodeScratch,
} from './histogram-decode.js';
export { HistogramError, type HistogramErrorCode } from './histogram-error.js';
export { summarizeCounts } from './histogram-summary.js';
export {
  allocatorFamily,
  type ConfigFacts,
  type ConfigIdentity,
  configFactsOf,
  configIdentity,
  type Identity,
  importedConfigFacts,
  importedConfigIdentity,
  importedMachineFacts,
  type MachineFacts,
  machineFactsOf,
  machineIdentity,
} from './identity.js';
export {
  checkIdentityText,
  describeIdentityTextProblems,
  IdentityTextError,
  type IdentityTextErrorCode,
  type IdentityTextProblem,
  identityTextProblem,
  identityTextProblems,
  importedIdentityTextProblems,
  normalizeIdentityText,
} from './identity-text.js';
export {
  ImportError,
  type ImportOptions,
  msToUs,
  sha256Of,
  terminalText,
} from './import/common.js';
export { memtierWorkload, parseMemtierJson } from './import/memtier.js';
export {
  importPublishedRedisBenchmark,
  type PublishedRedisBenchmarkInput,
  QUOTE_SEPARATOR,
  quoteExcerpts,
} from './import/published.js';
export {
  importPublishedTable,
  isTableQuote,
  type PublishedTableInput,
  parseMarkdownTable,
  tableCells,
  tableRowLabel,
  versionColumns,
} from './import/published-table.js';
export {
  type DistributionLine,
  findRedisBenchmarkCommand,
  parseRedisBenchmarkCsv,
  parseRedisBenchmarkText,
  percentileFromDistribution,
  redisBenchmarkFlags,
} from './import/redis-benchmark.js';
export { parseInfo } from './info.js';
export {
  checkJsonStructure,
  JsonStructureError,
  type JsonStructureErrorCode,
  MAX_JSON_DEPTH,
} from './json-structure.js';
export { medianCiOrderStatistics, type OrderStatisticCi } from './median-ci.js';
export { describeProblems, type Problem } from './problem.js';
export { resultCellAdmission } from './result-admission.js';
export {
  compileSchemas,
  ENVELOPE_SCHEMA_ID,
  IMPORTED_SCHEMA_ID,
  MAX_VALIDATION_ERRORS,
  RESULT_SCHEMA_ID,
  type ValidationError,
  type ValidationOutcome,
  validateEnvelope,
  validateImported,
  validateResult,
} from './schema.js';
export {
  checkEnvelopeSignature,
  generateSigningKey,
  keyFingerprint,
  publicKeyFromPrivate,
  rawPublicKey,
  type SignatureCheck,
  type SigningKey,
  signResult,
} from './sign.js';
export * from './spread.js';
export {
  type BootstrapOptions,
  bootstrapMedianCi,
  type ConfidenceInterval,
  type ConfidenceLevel,
  coefficientOfVariation,
  isUnstable,
  mean,
  median,
  type PairedCell,
  type PairedRatio,
  pairedCellRatio,
  pairedRatio,
  pairedRounds,
  sampleStdDev,
  seededRandom,
  summarizeTrials,
  type TrialSummary,
  tQuantile,
  tQuantile975,
  UNSTABLE_CV,
} from './stats.js';
export { MAX_RESULT_HISTOGRAM_BYTES } from './submission/histogram-agreement.js';
export {
  checkNumbers,
  checkPlausibility,
  PLAUSIBILITY_LIMITS,
  type PlausibilityOptions,
} from './submission/plausibility.js';
export type { PlausibilityProblem } from './submission/plausibility-problem.js';
export {
  CLOCK_SKEW_MS,
  checkSubmittedResult,
  identityTextRefusal,
  type SubmissionCheckOptions,
  type SubmissionCode,
} from './submission/submitted-result.js';
export {
  cleanNullableText,
  cleanText,
  type ForbiddenChar,
  findForbiddenChar,
  stripForbiddenChars,
  TEXT_MAX,
} from './text.js';
export {
  type BetweenRunNoise,
  BUSY_HOST_OTHER_CPU_FRACTION,
  betweenRunNoise,
  CPU_STEAL_FRACTION,
  comparePair,
  DEFAULT_BETWEEN_RUN_CV,
  describeNoise,
  flaggedVerdict,
  type InterferenceShares,
  MIN_BETWEEN_RUN_CV,
  MIN_REPEATED_RESULTS,
  NO_VERDICT_WARNINGS,
  type NoVerdictWarning,
  noiseBand,
  noiseFromMoments,
  noVerdictWarnings,
  otherWorkUnknown,
  type PairComparison,
  type PairedEvidence,
  pairedVerdict,
  unpairedVerdict,
  type Verdict,
  type VerdictCell,
  type VerdictRule,
} from './verdict.js';
export {
  type VerifyCode,
  type VerifyFailure,
  type VerifyOutcome,
  verifyEnvelope,
  verifyEnvelopeText,
} from './verify.js';
export {
  CROSS_CHECK_SHORTFALL_TOLERANCE,
  crossCheckShortfall,
  describeShortfall,
  wrongReplyCells,
} from './wrong-replies.js';
