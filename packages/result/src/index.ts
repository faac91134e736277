export { canonicalJson } from './canonical.js';
export {
  type EnvironmentFingerprintInput,
  environmentFingerprint,
  type NormalizedWorkload,
  normalizeWorkload,
  type WorkloadInput,
  workloadFingerprint,
} from './fingerprint.js';
export type {
  Base64Histogram,
  Cell,
  CpuList,
  CrossCheck,
  EnvelopeV1,
  ErrorCounts,
  Latency,
  Link,
  Machine,
  ResultV1,
  Saturation,
  Server,
  Sha256,
  Trial,
  Unknown,
  Warning,
  Workload,
} from './generated/result-v1.js';
export { envelopeV1Schema, resultV1Schema } from './generated/schemas.js';
export {
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
  ENVELOPE_SCHEMA_ID,
  MAX_VALIDATION_ERRORS,
  RESULT_SCHEMA_ID,
  type ValidationError,
  type ValidationOutcome,
  validateEnvelope,
  validateResult,
} from './schema.js';
export {
  generateSigningKey,
  keyFingerprint,
  publicKeyFromPrivate,
  rawPublicKey,
  type SigningKey,
  signResult,
  type VerifyOutcome,
  verifyEnvelope,
} from './sign.js';
export {
  type BootstrapOptions,
  bootstrapMedianCi,
  type ConfidenceInterval,
  coefficientOfVariation,
  isUnstable,
  mean,
  median,
  sampleStdDev,
  summarizeTrials,
  type TrialSummary,
  UNSTABLE_CV,
} from './stats.js';
