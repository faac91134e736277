import type { ProgramMeta } from '@redis-benchdb/command';
import type { CommandList } from './command/main.js';
import { VERSION } from './version.js';

// The program is this list. Each command's file (commands/) holds its options with their help
// and defaults, its flags type and its run(); the options several commands share are written
// once in options/. A command's module is loaded only when it is used.

export const PROGRAM: ProgramMeta = {
  name: 'redis-benchdb',
  description: 'Benchmark Redis-compatible servers and record results that can be compared and trusted.',
  version: VERSION,
  versionFlags: '-v, --version',
  // -h is redis-benchmark's host flag; help is --help only.
  help: { flags: '--help', description: 'show help' },
  errorHint: '(run with --help for usage)',
};

export const COMMANDS: CommandList = {
  run: async () => (await import('./commands/run.js')).default,
  sysinfo: async () => (await import('./commands/sysinfo.js')).default,
  cleanup: async () => (await import('./commands/cleanup.js')).default,
  import: async () => (await import('./commands/import.js')).default,
  export: async () => (await import('./commands/export.js')).default,
  submit: async () => (await import('./commands/submit.js')).default,
  retract: async () => (await import('./commands/retract.js')).default,
  keygen: async () => (await import('./commands/keygen.js')).default,
  revoke: async () => (await import('./commands/revoke.js')).default,
  verify: async () => (await import('./commands/verify.js')).default,
  view: async () => (await import('./commands/view.js')).default,
};
