import { buildProgram, exitCodeFor } from './program.js';

// `redis-benchdb ... | head` closes stdout early: that is the reader's choice, not a failure.
process.stdout.on('error', (err: NodeJS.ErrnoException) => {
  if (err.code === 'EPIPE') process.exit(process.exitCode ?? 0);
  throw err;
});

const program = buildProgram(async (flags, command) => {
  const { runCommand } = await import('./commands/run.js');
  return runCommand(flags, command);
});

try {
  await program.parseAsync(process.argv);
} catch (err) {
  const { message, code } = exitCodeFor(err);
  if (message) process.stderr.write(`error: ${message}\n`);
  process.exitCode = code;
}
