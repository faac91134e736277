// Runs one site build (the argv after this script) and ends it with the service that started it.
// The service starts this process as the leader of a process group of its own, with a pipe on its
// stdin that it holds open and never writes to. When the service ends, however it ends (SIGKILL
// included, which it cannot catch), the kernel closes its end of the pipe and this process reads EOF:
// it then ends the whole group, the build and its helpers (Astro's esbuild) with it. Linux has a
// parent-death signal (prctl PR_SET_PDEATHSIG), but Node offers no call for it; a pipe works
// everywhere. A signal sent to the group (the service's own close()) ends the build the same way.
import { spawn } from 'node:child_process';

const GRACE_MS = 5000;
const [command, ...args] = process.argv.slice(2);
if (command === undefined) {
  process.stderr.write('build-watchdog: no command to run\n');
  process.exit(2);
}

const build = spawn(command, args, { stdio: ['ignore', 'inherit', 'inherit'] });
let ending = false;

/** SIGTERM to the group (this process included, which stays to report), SIGKILL if it lingers. */
function endBuild(): void {
  if (ending) return;
  ending = true;
  try {
    process.kill(-process.pid, 'SIGTERM');
  } catch {
    build.kill('SIGTERM');
  }
  setTimeout(() => {
    try {
      process.kill(-process.pid, 'SIGKILL');
    } catch {}
  }, GRACE_MS).unref();
}

for (const signal of ['SIGTERM', 'SIGINT', 'SIGHUP'] as const) process.on(signal, endBuild);
process.stdin.on('end', endBuild);
process.stdin.on('close', endBuild);
process.stdin.on('error', endBuild);
process.stdin.resume();

build.once('error', (e) => {
  process.stderr.write(`build-watchdog: cannot start ${command}: ${e.message}\n`);
  process.exit(127);
});
// The build's own end is this process's: its code, or the signal that ended it.
build.once('exit', (code, signal) => {
  if (signal !== null) {
    for (const s of ['SIGTERM', 'SIGINT', 'SIGHUP'] as const) process.removeAllListeners(s);
    process.kill(process.pid, signal);
    return;
  }
  process.exit(code ?? 1);
});
