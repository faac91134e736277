export type { IncompleteReason } from '@redis-benchdb/result';
export { ClusterControl, type ClusterPlan } from './cluster/control.js';
export { ClusterModeError, clusterRefusal } from './cluster/routing.js';
export { keySlot } from './cluster/slots.js';
export { ClusterTopologyError, parseShards, parseSlots } from './cluster/topology.js';
export { customTest, findTests, TESTS, type TestDefinition, UnknownTestError } from './commands.js';
export { ConnectError, ControlPlane } from './control.js';
export { allowedCpus, CpuListError, type Pinning, parseCpuList, pinProcess } from './cpu-pinning.js';
export {
  type InterleavedCell,
  type InterleavedCellHooks,
  type InterleavedMember,
  type RoundOrder,
  RoundShuffler,
  runInterleavedCell,
} from './interleave.js';
export { type KeyPattern, KeyPatternError } from './keys.js';
export {
  findServerBinary,
  type LaunchedServer,
  type LaunchOptions,
  type LocalCluster,
  LocalClusterError,
  type LocalClusterNode,
  type LocalClusterOptions,
  readServerVersion,
  ServerLaunchError,
  startLocalCluster,
  startServer,
  stopAllServers,
  stopServers,
} from './launch/index.js';
export {
  bytesText,
  type ClientMemoryEstimate,
  estimateClientMemory,
  estimateServerMemory,
  RUNNER_BASE_BYTES,
} from './memory-estimate.js';
export {
  type Arrival,
  type CellOptions,
  DEFAULT_CELL_OPTIONS,
  DEFAULT_REPLY_TIMEOUT_SEC,
  DEFAULT_TARGET,
  ERRORS_RATIO,
  OptionsError,
  type PipelineMode,
  STALL_END_MARGIN_SEC,
  type Target,
  validateCellOptions,
} from './options.js';
export { countPrefix, type KeyStore } from './prefix-keys.js';
export {
  type FoundRun,
  findRuns,
  markerHost,
  type RunMarker,
  RunMarkerError,
  removeRun,
} from './run-marker.js';
export { HandshakeError } from './run-workers.js';
export type { Saturation } from './saturation.js';
export {
  BenchSession,
  type CellResult,
  type CrossCheck,
  type ErrorReplies,
  type RunCellHooks,
  type Stall,
  validateClusterCell,
  type WrongReplies,
} from './session.js';
export {
  bracketOf,
  DEFAULT_SLO_BUDGET_SEC,
  describeObjectives,
  judgeStep,
  parseObjectives,
  type RateTally,
  runSloSearch,
  SearchState,
  type SloSearchHooks,
  type SloSearchOptions,
  type SloSearchRun,
  type SloStepRunner,
  SloSyntaxError,
  searchRates,
} from './slo/index.js';
export {
  cellLabel,
  SUITES,
  type SuiteCell,
  type SuiteCellSpec,
  type SuiteDefinition,
  suiteCells,
} from './suites.js';
export { type CellSummary, summarizeCell, type TrialRecord } from './trials.js';
