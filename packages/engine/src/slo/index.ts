export {
  canonicalObjectives,
  describeObjectives,
  MAX_OBJECTIVES,
  parseObjectives,
  SLO_SYNTAX,
  SloSyntaxError,
} from './objectives.js';
export {
  bracketOf,
  DEFAULT_SLO_BUDGET_SEC,
  type RateTally,
  RESOLUTION,
  runSloSearch,
  SearchState,
  type SloSearchHooks,
  type SloSearchOptions,
  type SloSearchRun,
  type Step as SloStepRunner,
  searchRates,
  stepDurationSec,
  TAIL_SAMPLES,
} from './search.js';
export { type JudgedStep, judgeStep, MIN_ACHIEVED_RATIO } from './step.js';
