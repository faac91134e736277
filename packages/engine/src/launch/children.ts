/**
 * The server processes this Node process started, and only those. Each is stopped by its own
 * ChildProcess handle (which signals its pid only while it is known to run, so a reused pid is never
 * hit), its files are removed once it exited, and whatever still runs when Node exits is SIGKILLed.
 */

import { type ChildProcess, spawn } from 'node:child_process';
import { lstatSync, rmSync, unlinkSync } from 'node:fs';
import { rm } from 'node:fs/promises';

export interface ChildExit {
  code: number | null;
  signal: string | null;
}

export interface SpawnInput {
  bin: string;
  args: readonly string[];
  /** The server's own temp dir: removed once it exited. */
  dir: string;
  /** A unix socket it listens on: removed too if it is still there (a SIGKILLed server leaves it). */
  unixSocket?: string | undefined;
  /** Called with each line it prints on stdout or stderr. */
  onLine(line: string): void;
}

/** How long stop() waits after SIGTERM before SIGKILL. */
const STOP_GRACE_MS = 5_000;

const live = new Set<ServerChild>();
let exitHookInstalled = false;

export class ServerChild {
  /** Resolves when the process ended (by itself or by stop()), after its last output was read. */
  readonly exited: Promise<ChildExit>;
  /** Set when the process could not be spawned or signalled. */
  spawnError: NodeJS.ErrnoException | undefined;
  private readonly proc: ChildProcess;
  private readonly cleaned: Promise<void>;
  private stopping: Promise<void> | undefined;

  constructor(private readonly input: SpawnInput) {
    this.proc = spawn(input.bin, input.args, { stdio: ['ignore', 'pipe', 'pipe'] });
    live.add(this);
    installExitHook();
    readLines(this.proc.stdout, input.onLine);
    readLines(this.proc.stderr, input.onLine);
    this.exited = new Promise((resolve) => {
      const finish = (code: number | null, signal: string | null) => {
        live.delete(this);
        resolve({ code, signal });
      };
      this.proc.once('error', (err: NodeJS.ErrnoException) => {
        this.spawnError = err;
        // A failed spawn emits no 'close'; a running child that could not be signalled stays alive.
        if (this.proc.pid === undefined) finish(null, null);
      });
      // 'close' (rather than 'exit') so that the last log lines have been read.
      this.proc.once('close', finish);
    });
    this.cleaned = this.exited.then(() => this.removeFiles());
  }

  get bin(): string {
    return this.input.bin;
  }

  /** The pid, or undefined when the spawn failed. */
  get pid(): number | undefined {
    return this.proc.pid;
  }

  /** SIGTERM, then SIGKILL after a grace period; resolves once it exited and its files are gone. Idempotent. */
  stop(): Promise<void> {
    this.stopping ??= this.terminate();
    return this.stopping;
  }

  private async terminate(): Promise<void> {
    if (this.running()) {
      this.proc.kill('SIGTERM');
      if (!(await settlesWithin(this.exited, STOP_GRACE_MS))) this.proc.kill('SIGKILL');
    }
    await this.cleaned;
  }

  private running(): boolean {
    return this.proc.exitCode === null && this.proc.signalCode === null && this.proc.pid !== undefined;
  }

  private async removeFiles(): Promise<void> {
    await rm(this.input.dir, { recursive: true, force: true }).catch(() => {});
    removeStaleSocket(this.input.unixSocket);
  }

  /** For the exit hook: no event loop is left, so kill and remove synchronously. */
  killNow(): void {
    try {
      if (this.running()) this.proc.kill('SIGKILL');
    } catch {
      // already gone
    }
    try {
      rmSync(this.input.dir, { recursive: true, force: true });
    } catch {
      // best effort
    }
    removeStaleSocket(this.input.unixSocket);
  }
}

/** How many started servers have not exited yet. */
export function liveServerCount(): number {
  return live.size;
}

/** Stops every server this process started that still runs (e.g. from a signal handler). */
export async function stopAllServers(): Promise<void> {
  await Promise.allSettled([...live].map((c) => c.stop()));
}

function installExitHook(): void {
  if (exitHookInstalled) return;
  exitHookInstalled = true;
  process.on('exit', () => {
    for (const child of live) child.killNow();
    live.clear();
  });
}

function readLines(stream: NodeJS.ReadableStream | null, onLine: (line: string) => void): void {
  if (!stream) return;
  let partial = '';
  const emit = (line: string) => {
    if (line) onLine(line);
  };
  stream.setEncoding('utf8');
  stream.on('data', (chunk: string) => {
    const lines = (partial + chunk).split(/\r?\n/);
    partial = lines.pop() ?? '';
    for (const l of lines) emit(l);
  });
  stream.on('end', () => {
    emit(partial);
    partial = '';
  });
}

function removeStaleSocket(file: string | undefined): void {
  if (!file) return;
  try {
    if (lstatSync(file).isSocket()) unlinkSync(file);
  } catch {
    // gone already
  }
}

/** True if `p` settles within `ms`; the timer is cleared either way. */
async function settlesWithin(p: Promise<unknown>, ms: number): Promise<boolean> {
  let timer: NodeJS.Timeout | undefined;
  const timedOut = new Promise<false>((r) => {
    timer = setTimeout(() => r(false), ms);
  });
  try {
    return await Promise.race([p.then(() => true), timedOut]);
  } finally {
    clearTimeout(timer);
  }
}
