// What `pnpm site:build` shows: Astro's own log (about 90 lines of chunks and timings) goes to a file
// unless --verbose, so the screen ends on what the reader came for: the newest result, its address on
// the local site, and the command that serves it. Warnings and errors still reach the screen.
import { spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { createWriteStream, mkdirSync } from 'node:fs';
import { homedir } from 'node:os';
import { basename, dirname, join, relative } from 'node:path';
import { createInterface } from 'node:readline';
import { stripVTControlCharacters } from 'node:util';

/** A line of Astro's log that asks for the reader's attention: its warnings and errors. */
const NEEDS_A_LOOK = /\[(WARN|ERROR)\]|\berror\b/i;

/**
 * Where the build of `out` keeps Astro's log: in this tool's own state folder (XDG_STATE_HOME, else
 * ~/.local/state), never beside the output folder, whose parent is the user's (issue 40). One file per
 * output folder, named by it, so two builds at once do not write into each other's.
 */
export function buildLogPath(out, env = process.env) {
  const state = env.XDG_STATE_HOME || join(env.HOME || homedir(), '.local', 'state');
  const tag = createHash('sha256').update(out).digest('hex').slice(0, 8);
  return join(state, 'redis-benchdb', 'site-build', `${basename(out)}-${tag}.log`);
}

/**
 * Run `node argv` with its output in `logPath`; the lines that need a look, and everything it writes
 * to stderr (where the pages' own warnings go), are echoed where they were written. Resolves with the
 * exit status.
 */
export function runLogged(argv, opts, logPath) {
  return new Promise((done, fail) => {
    mkdirSync(dirname(logPath), { recursive: true });
    const log = createWriteStream(logPath);
    const child = spawn(process.execPath, argv, { ...opts, stdio: ['ignore', 'pipe', 'pipe'] });
    const pending = [child.stdout, child.stderr].map((stream, i) => {
      const lines = createInterface({ input: stream, crlfDelay: Number.POSITIVE_INFINITY });
      lines.on('line', (line) => {
        // A file is read with less or grep, not a terminal: no colour codes, whatever FORCE_COLOR says.
        log.write(`${stripVTControlCharacters(line)}\n`);
        if (i === 1) process.stderr.write(`${line}\n`);
        else if (NEEDS_A_LOOK.test(line)) process.stdout.write(`${line}\n`);
      });
      return new Promise((closed) => lines.once('close', closed));
    });
    child.once('error', fail);
    child.once('close', async (status) => {
      await Promise.all(pending);
      log.end(() => done(status ?? 1));
    });
  });
}

/** `path` as the reader can type it from where the command ran. */
export function shortPath(path) {
  const rel = relative(process.cwd(), path);
  return rel && !rel.startsWith('..') ? rel : path;
}

/**
 * pnpm as the reader called it (`npx -y pnpm@9` when pnpm came from npx's cache, as the README's
 * commands have it), so the serve command pastes as is. The CLI's invocation.ts does the same for the
 * runner's hints; scripts/ may not import the CLI, and this is three lines.
 */
export function pnpmAsCalled(env = process.env) {
  const fromNpx = /[\\/]_npx[\\/]/.test(env.npm_execpath ?? '');
  const major = /^pnpm\/(\d+)\./.exec(env.npm_config_user_agent ?? '')?.[1];
  return fromNpx ? `npx -y pnpm@${major ?? '9'}` : 'pnpm';
}

/** The newest result in one line: what ran, on what, when, and what it was flagged with. */
export function resultLine(r) {
  const server = [r.serverProduct, r.serverVersion].filter(Boolean).join(' ') || 'an unnamed server';
  const suite = r.suiteId ? `suite ${r.suiteId}${r.suiteProfile ? ` (${r.suiteProfile})` : ''}, ` : '';
  const cells = `${r.cellCount} cell${r.cellCount === 1 ? '' : 's'}`;
  const machine = r.cpuModel
    ? ` on ${r.cpuModel}${r.virtualizationKind && r.virtualizationKind !== 'none' ? ` (${r.virtualizationKind})` : ''}`
    : '';
  const when = (r.startedAt ?? r.receivedAt).replace('T', ' ').replace(/:\d\d(\.\d+)?Z$/, ' UTC');
  const flagged = r.warningCodes.length ? `; flagged ${r.warningCodes.join(', ')}` : '';
  return `${server}, ${suite}${cells}${machine}, ${when}${flagged}`;
}
