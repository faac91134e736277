export {
  type AnyCommand,
  type ArgValue,
  buildProgram,
  type CommandDef,
  defineCommand,
  type ProgramMeta,
  type Runner,
} from './define.js';
export {
  choice,
  custom,
  type FlagsOf,
  flag,
  grouped,
  type OptionDef,
  type OptionDefs,
  parseFlags,
  type RawValue,
  repeatable,
  type Shown,
  shown,
  text,
} from './option.js';
