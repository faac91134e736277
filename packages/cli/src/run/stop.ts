import { signalExitCode } from '../invocation.js';
import { watchLauncher } from './launcher-watch.js';

/** The signals that stop a run (and a run group) cleanly. */
export const STOP_SIGNALS: readonly NodeJS.Signals[] = ['SIGINT', 'SIGTERM', 'SIGHUP'];
/** The exit codes of a run those signals stopped: 130, 143, 129. */
export const INTERRUPT_CODES: ReadonlySet<number> = new Set(STOP_SIGNALS.map((s) => signalExitCode(s)));
export { signalExitCode };

/**
 * How a run is stopped from outside. SIGINT (Ctrl-C), SIGTERM and SIGHUP all mean "stop": the first
 * stops the load and lets the run remove its keys and keep its result; a second one stops that
 * cleanup (the run then says what is left and how to remove it); a third quits at once. The exit
 * code is 128 + the first signal's number, as a shell reports a process that signal ended.
 */
export class RunStop {
  private readonly loadController = new AbortController();
  private readonly cleanupController = new AbortController();
  /** The first signal received, or null. */
  signal: NodeJS.Signals | null = null;
  private count = 0;
  private readonly handler = (s: NodeJS.Signals) => this.receive(s);
  private unwatch: () => void = () => {};

  constructor(private readonly log: (s: string) => void) {}

  /** Aborted by the first signal: stop the load. */
  get load(): AbortSignal {
    return this.loadController.signal;
  }

  /** Aborted by the second signal: stop removing keys. */
  get cleanup(): AbortSignal {
    return this.cleanupController.signal;
  }

  get interrupted(): boolean {
    return this.signal !== null;
  }

  get exitCode(): number {
    return signalExitCode(this.signal ?? 'SIGINT');
  }

  install(): void {
    for (const s of STOP_SIGNALS) process.on(s, this.handler);
    // The launcher (npx, npm) ending is a hang-up: nobody is left to stop the run, so it stops itself.
    this.unwatch = watchLauncher(() => {
      // A Ctrl-C reaches the launcher and the run alike, and the launcher exits at once: that exit is
      // not a second signal, which would stop the cleanup the first one started.
      if (this.interrupted) return;
      process.stderr.on('error', () => {}); // its terminal or pipe may be gone with it
      this.log('\nthe process that started this run (npx, npm or pnpm) has ended');
      this.receive('SIGHUP');
    });
  }

  uninstall(): void {
    for (const s of STOP_SIGNALS) process.off(s, this.handler);
    this.unwatch();
  }

  private receive(s: NodeJS.Signals): void {
    this.count++;
    // A hang-up may have closed the terminal: a failed status line must not end the cleanup.
    if (s === 'SIGHUP' && this.count === 1) process.stderr.on('error', () => {});
    if (this.count === 1) {
      this.signal = s;
      this.log(
        `\ninterrupted (${s}): stopping the load and removing this run's keys (Ctrl-C again to stop the cleanup)`,
      );
      this.loadController.abort();
    } else if (this.count === 2) {
      this.log(`\n${s}: stopping the cleanup; counting what is left (Ctrl-C again to quit at once)`);
      this.cleanupController.abort();
    } else process.exit(this.exitCode);
  }
}
