import { readFileSync } from 'node:fs';

/** How often the launcher is looked for: Node has no PR_SET_PDEATHSIG, so it is polled. */
export const LAUNCHER_POLL_MS = 500;

/**
 * Calls `gone` once when the package runner that started this process ends. `npx`, `npm exec` and
 * `pnpm` run the bin as their child (through `sh -c`), and a SIGTERM to them is not passed on:
 * without this the run would go on loading the server, with no one to stop it. The parent is watched
 * by `process.ppid` (it changes when the parent dies and this process is re-parented); when the
 * parent is a shell running `-c` (a package script), the shell's parent too, by pid. Only a package
 * runner is watched: a shell or `nohup` parent means the user chose how the run outlives it.
 */
export function watchLauncher(gone: () => void): () => void {
  const parent = process.ppid;
  if (parent <= 1) return () => {}; // started by init or a container's pid 1: nothing to watch
  const grandparent = isShellC(parent) ? parentOf(parent) : null;
  if (!isPackageRunner(parent) && !(grandparent !== null && isPackageRunner(grandparent))) return () => {};
  const timer = setInterval(() => {
    const alive =
      process.ppid === parent && (grandparent === null || grandparent <= 1 || exists(grandparent));
    if (alive) return;
    clearInterval(timer);
    gone();
  }, LAUNCHER_POLL_MS);
  timer.unref(); // it must never keep the process alive on its own
  return () => clearInterval(timer);
}

/**
 * Whether `pid` is npm, npx or pnpm: a Node process running their CLI, or one whose title npm set
 * ("npm exec ..."). Linux's /proc only.
 */
function isPackageRunner(pid: number): boolean {
  const [first = '', script = ''] = commandLine(pid);
  return (
    /^(npm|npx|pnpm)(\s|$)/.test(first) ||
    /(^|[/\\])(npm|npx|pnpm|npm-cli\.js|npx-cli\.js|pnpm\.c?js)$/.test(first) ||
    /(^|[/\\])(npm|npx|pnpm|npm-cli\.js|npx-cli\.js|pnpm\.c?js)$/.test(script)
  );
}

function commandLine(pid: number): string[] {
  try {
    return readFileSync(`/proc/${pid}/cmdline`, 'utf8')
      .split('\0')
      .filter((a) => a !== '');
  } catch {
    return [];
  }
}

/** Whether `pid` is a POSIX shell running a command string (`sh -c ...`): Linux's /proc only. */
function isShellC(pid: number): boolean {
  const argv = commandLine(pid);
  return /(^|\/)(sh|bash|dash|zsh)$/.test(argv[0] ?? '') && argv.includes('-c');
}

/** The parent pid of `pid` from /proc/<pid>/stat (the field after the parenthesised name). */
function parentOf(pid: number): number | null {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
    return Number.isInteger(ppid) ? ppid : null;
  } catch {
    return null;
  }
}

function exists(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM'; // alive, but another user's
  }
}
