import { runMain } from './command/main.js';
import { COMMANDS, PROGRAM } from './program.js';

// `redis-benchdb ... | head` closes stdout early: that is the reader's choice, not a failure.
process.stdout.on('error', (err: NodeJS.ErrnoException) => {
  if (err.code === 'EPIPE') process.exit(process.exitCode ?? 0);
  throw err;
});

process.exitCode = await runMain(PROGRAM, COMMANDS, process.argv);
