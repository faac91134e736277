/**
 * A one-line progress display on stderr, drawn only when stderr is a terminal, so that piped or
 * --json output is never mixed with it.
 */
export class Progress {
  private last = 0;
  private active = false;
  constructor(private readonly stream: NodeJS.WriteStream = process.stderr) {}

  get enabled(): boolean {
    return this.stream.isTTY === true;
  }

  update(
    label: string,
    cellIndex: number,
    cells: number,
    completed: number,
    requested: number | null,
    elapsedSec: number,
    durationSec: number | null,
  ): void {
    if (!this.enabled) return;
    const now = Date.now();
    if (now - this.last < 100) return;
    this.last = now;
    const fraction = requested ? completed / requested : durationSec ? elapsedSec / durationSec : 0;
    const width = 24;
    const filled = Math.max(0, Math.min(width, Math.round(fraction * width)));
    const rate = elapsedSec > 0 ? Math.round(completed / elapsedSec) : 0;
    const text = `[${cellIndex + 1}/${cells}] ${label} [${'#'.repeat(filled)}${'.'.repeat(width - filled)}] ${Math.round(fraction * 100)}% ${rate.toLocaleString('en-US')} ops/s`;
    this.stream.write(`\r\x1b[2K${text.slice(0, (this.stream.columns ?? 100) - 1)}`);
    this.active = true;
  }

  /** Erase the line before anything else is printed. */
  clear(): void {
    if (this.active) this.stream.write('\r\x1b[2K');
    this.active = false;
  }
}
