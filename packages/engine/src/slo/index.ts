export { describeObjectives, parseObjectives, SloSyntaxError } from './objectives.js';
export {
  bracketOf,
  DEFAULT_SLO_BUDGET_SEC,
  type RateTally,
  runSloSearch,
  SearchState,
  type SloSearchHooks,
  type SloSearchOptions,
  type SloSearchRun,
  type Step as SloStepRunner,
  searchRates,
} from './search.js';
export { type JudgedStep, judgeStep } from './step.js';
