export { type PlannedCells, planCells, SUITE_ID } from './cells.js';
export { driftCellIndex, driftFrom, measureDrift, wantsDriftCheck } from './drift.js';
export { collectEnvironment } from './environment.js';
export { RunnerError } from './errors.js';
export {
  type GroupCellsOptions,
  type GroupCellsReport,
  type GroupMember,
  type GroupProgress,
  type GroupSchedule,
  measureGroupDrift,
  runGroupCells,
} from './group-cells.js';
export {
  type GroupRunOptions,
  type GroupRunReport,
  type GroupRunResult,
  launchedHint,
  type MemberResult,
  runGroup,
} from './group-run.js';
export { CellInterference, combineTrials, localServerPidOf } from './interference.js';
export {
  type GroupToLaunch,
  type LaunchOptions,
  type MemberToLaunch,
  pinClient,
  startMember,
} from './launch.js';
export {
  checkLaunchFlags,
  type LaunchFlags,
  type LaunchMember,
  type LaunchPlan,
  MAX_GROUP_SIZE,
  PERSISTENCE_VARIANTS,
  type Persistence,
  planLaunches,
  type Transport,
} from './launch-plan.js';
export { type CleanupOutcome, type EarlierRuns, earlierRuns, removeRunKeys } from './leftovers.js';
export { isListening, startThrowawayServer } from './local-server.js';
export {
  checkMemoryBudget,
  checkServerMemory,
  DEFAULT_MEMORY_BUDGET_BYTES,
  MemoryBudgetError,
} from './memory-budget.js';
export type { RunPlan, RunRequest } from './request.js';
export {
  buildResultDocument,
  isErrorDominated,
  type MeasuredCell,
  type RunRecord,
  toWorkload,
  wrongRepliesDetail,
} from './result-document.js';
export {
  type CellProgress,
  checkRunDrift,
  type RunCellsOptions,
  type RunCellsReport,
  runCells,
} from './run-cells.js';
export {
  homeRelative,
  MITIGATIONS_LEFT_OUT,
  REDACTED,
  type Redactions,
  redactionNote,
  scrubAndTell,
  scrubConfigLine,
  scrubResult,
} from './scrub.js';
export {
  type RunDescription,
  removedLine,
  runSingle,
  type SingleRunOptions,
  type SingleRunReport,
  type SingleRunResult,
} from './single-run.js';
export { type SloSearchReport, searchCell } from './slo-search.js';
