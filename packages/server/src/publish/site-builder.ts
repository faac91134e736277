import { type ChildProcess, spawn } from 'node:child_process';
import { createWriteStream, existsSync } from 'node:fs';
import {
  copyFile,
  mkdir,
  readdir,
  readFile,
  readlink,
  rename,
  rm,
  symlink,
  writeFile,
} from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { KeptPages } from './kept-pages.js';

/** Runs a build and ends it when the service ends, even by SIGKILL (build-watchdog.ts). */
const WATCHDOG = fileURLToPath(new URL('./build-watchdog.js', import.meta.url));

export interface SiteBuilderOptions {
  /**
   * Where builds go: `builds/<n>/` each, `current` a symlink to the one served, `pages/` the result
   * pages kept between builds (kept-pages.ts), `build.log` the last build's log, `failed-build.log` the
   * last failed one's. Only `builds/<n>/` and `pages/` are ever served.
   */
  siteDir: string;
  /**
   * What builds the site: an argv run as is, or a shell command line. It gets REDIS_BENCHDB_DB,
   * REDIS_BENCHDB_SITE_OUT (an empty directory to fill) and REDIS_BENCHDB_SITE_URL in its environment.
   */
  command: readonly string[] | string;
  dbPath: string;
  /** The first new result after a quiet spell waits this long, and results sent meanwhile join its build. */
  debounceMs: number;
  log: (line: string) => void;
}

/** What /api/v1/health says of the site. */
export interface SiteStatus {
  /** `none`: no site built yet; `failed`: the last build failed, and the previous site is served. */
  state: 'none' | 'ready' | 'failed';
  building: boolean;
  /** A build is wanted: it starts when the wait (debounce) ends, or when the running build ends. */
  pending: boolean;
  /** When the site served was built (ISO 8601), and how long that took. */
  lastBuildAt: string | null;
  lastBuildMs: number | null;
  /** When the last build failed (ISO 8601), until a build succeeds. */
  lastFailureAt: string | null;
  /**
   * Why, in a few fixed words (`the site build exited with code 3`), until a build succeeds. Never the
   * build's output: health is public, and a log can name paths and settings. The operator has the log
   * (stderr, and failed-build.log in the site directory).
   */
  lastFailure: string | null;
}

const MARKER = '.redis-benchdb-build.json';

/**
 * Rebuilds the static site after new results, one build at a time. A build writes into a fresh
 * directory, and only a build that exits 0 is swapped in (the `current` symlink is replaced by
 * rename, and `root` changes), so a half-built site is never served; a failed one leaves the previous
 * site in place. A request during a build makes one more build after it, however many came.
 */
export class SiteBuilder {
  /** The directory served now, or null before the first build. */
  root: string | null = null;
  private timer: NodeJS.Timeout | null = null;
  private timerAt = 0;
  private running: { child: ChildProcess | null; startedAt: number; done: Promise<void> } | null = null;
  /** How long the last build of new result pages alone took, to their being served. */
  private lastPagesMs: number | null = null;
  private again = false;
  private closed = false;
  private builtFingerprint: string | null = null;
  private lastBuildAt: number | null = null;
  private lastBuildMs: number | null = null;
  private lastFailure: { at: number; reason: string } | null = null;
  private siteUrl = '';
  /** What the database holds now, as a string: a build is skipped when the site served was built from the same. */
  fingerprint: () => string = () => '';
  /** Result pages rendered once and kept: a build renders only new ones and those whose key changed. */
  readonly kept: KeptPages;

  constructor(private readonly o: SiteBuilderOptions) {
    this.kept = new KeptPages(join(o.siteDir, 'pages'));
  }

  /**
   * Serve the site already built in siteDir, if any. Called before the service listens, so that its
   * first answer for a built page is that page (not a 503 or a "result received" placeholder).
   */
  async load(): Promise<void> {
    const current = await readlink(join(this.o.siteDir, 'current')).catch(() => null);
    if (current !== null && existsSync(join(current, MARKER))) {
      const marker = JSON.parse(await readFile(join(current, MARKER), 'utf8')) as BuildMarker;
      this.root = current;
      this.builtFingerprint = marker.fingerprint;
      this.lastBuildAt = Date.parse(marker.builtAt);
      this.lastBuildMs = marker.durationMs;
    }
    await this.kept.load(this.root);
  }

  /**
   * Clear what an interrupted build left, then build now when the database has changed since the site
   * served (load() first). `siteUrl`: the public address the pages name (embeds, cards), known once
   * the service listens.
   */
  async start(siteUrl: string): Promise<void> {
    this.siteUrl = siteUrl;
    const builds = join(this.o.siteDir, 'builds');
    await mkdir(builds, { recursive: true });
    // A build cut short by a stop: never served, never finished.
    for (const name of await readdir(builds))
      if (name.endsWith('.partial')) await rm(join(builds, name), { recursive: true, force: true });
    this.request(0);
  }

  /** Ask for a build: after the debounce (or now, with 0); during a build, once more after it. */
  request(delayMs = this.o.debounceMs): void {
    if (this.closed) return;
    if (this.running) {
      this.again = true;
      return;
    }
    if (this.timer) return;
    this.timerAt = Date.now() + delayMs;
    this.timer = setTimeout(() => {
      this.timer = null;
      void this.build();
    }, delayMs);
  }

  status(): SiteStatus {
    return {
      state: this.lastFailure !== null ? 'failed' : this.root === null ? 'none' : 'ready',
      building: this.running !== null,
      pending: this.timer !== null || this.again,
      lastBuildAt: this.lastBuildAt === null ? null : new Date(this.lastBuildAt).toISOString(),
      lastBuildMs: this.lastBuildMs,
      lastFailureAt: this.lastFailure === null ? null : new Date(this.lastFailure.at).toISOString(),
      lastFailure: this.lastFailure?.reason ?? null,
    };
  }

  /**
   * When a result received at `receivedAt` (ms) should have its page, from the last build's duration:
   * null when no build is under way or due, or no build has finished yet to go by.
   */
  expectedAt(receivedAt: number): number | null {
    // A page is live after the build of new result pages alone, when there is one (buildResultPages).
    const took = this.kept.serving && this.lastPagesMs !== null ? this.lastPagesMs : this.lastBuildMs;
    if (took === null) return null;
    if (this.running) {
      const end = this.running.startedAt + took;
      // A build reads the database as it goes; one that started before the result may not have it.
      // Otherwise it waits for the build after it, which starts a debounce after this one ends.
      return this.running.startedAt > receivedAt ? end : Math.max(end, Date.now()) + this.o.debounceMs + took;
    }
    if (this.timer) return this.timerAt + took;
    return null;
  }

  /** Stop: no more builds; a running one is ended (its directory is cleared at the next start). */
  async close(): Promise<void> {
    this.closed = true;
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    const running = this.running;
    if (running) {
      // The build's whole process group (its watchdog's: detached), Astro and its helpers included.
      const child = running.child;
      if (child)
        try {
          process.kill(-child.pid!, 'SIGTERM');
        } catch {
          child.kill('SIGTERM');
        }
      await running.done;
    }
  }

  private async build(): Promise<void> {
    const fingerprint = this.fingerprint();
    if (fingerprint === this.builtFingerprint && this.lastFailure === null) {
      this.o.log(`site: unchanged since the last build (${fingerprint}); not rebuilt`);
      return;
    }
    const startedAt = Date.now();
    let settle!: () => void;
    const done = new Promise<void>((r) => (settle = r));
    this.running = { child: null, startedAt, done };
    try {
      // The new result pages first, alone, served as soon as they are kept: a submitter's page does
      // not wait for every list, version and explorer page to be rendered again (issue 42).
      if (this.kept.serving) await this.buildResultPages(startedAt);
      if (!this.closed) await this.buildSite(fingerprint, startedAt);
    } finally {
      this.running = null;
      settle();
    }
    if (this.again && !this.closed) {
      this.again = false;
      this.request();
    }
  }

  /** A build of the result pages not kept yet, alone (REDIS_BENCHDB_SITE_ONLY=results), into the kept pages. */
  private async buildResultPages(startedAt: number): Promise<void> {
    const out = join(this.o.siteDir, 'builds', `${startedAt}.pages.partial`);
    const logPath = join(this.o.siteDir, 'pages-build.log');
    const ended = await this.runBuild(out, logPath, { REDIS_BENCHDB_SITE_ONLY: 'results' });
    try {
      if (ended.reason !== null) {
        // The full build that follows renders them too, and says why if it fails as well.
        this.o.log(`site: the result pages' build failed (${ended.reason}); the whole site's build follows`);
        return;
      }
      const kept = await this.kept.absorb(out);
      await this.kept.servePages();
      this.lastPagesMs = Date.now() - startedAt;
      this.o.log(`site: ${kept} new result page(s) live in ${(this.lastPagesMs / 1000).toFixed(1)} s`);
    } catch (e) {
      this.o.log(
        `site: the new result pages could not be kept (${(e as Error).message}); the whole site's build follows`,
      );
    } finally {
      await rm(out, { recursive: true, force: true });
    }
  }

  private async buildSite(fingerprint: string, startedAt: number): Promise<void> {
    const name = String(startedAt);
    const out = join(this.o.siteDir, 'builds', `${name}.partial`);
    const logPath = join(this.o.siteDir, 'build.log');
    this.o.log(`site: building into ${out} (log: ${logPath})`);
    const ended = await this.runBuild(out, logPath, {});
    try {
      if (ended.reason === null) await this.swapIn(out, name, fingerprint, startedAt);
      else await this.failed(out, logPath, ended.reason, ended.detail);
    } catch (e) {
      await this.failed(out, logPath, 'the built site could not be put in place', (e as Error).message);
    }
  }

  /** Run the build command into `out`; the reason it failed in a few fixed words, or null. */
  private runBuild(
    out: string,
    logPath: string,
    env: Record<string, string>,
  ): Promise<{ reason: string | null; detail?: string }> {
    const child = this.spawn(out, logPath, env);
    this.running!.child = child;
    // The reasons are fixed words for health; the details (an error's message) go to the operator's log.
    return new Promise((resolve) => {
      child.once('error', (e) => resolve({ reason: 'the site build could not start', detail: e.message }));
      // 'exit', not 'close': a grandchild that outlives the build (esbuild's service) may hold its pipes.
      child.once('exit', (exitCode, signal) =>
        resolve({
          reason:
            exitCode === 0
              ? existsSync(out)
                ? null
                : 'the site build exited 0 but wrote no site'
              : exitCode !== null
                ? `the site build exited with code ${exitCode}`
                : `the site build was ended by ${signal ?? 'a signal'}`,
        }),
      );
    });
  }

  private spawn(out: string, logPath: string, extra: Record<string, string>): ChildProcess {
    const env = {
      ...process.env,
      ...extra,
      // PNGs are drawn by the service when asked for (png-on-request.ts), not all at each build; the open
      // data is kept between builds, and rewritten only when the database changed (site/integration).
      REDIS_BENCHDB_SITE_PNG: process.env.REDIS_BENCHDB_SITE_PNG || 'on-request',
      REDIS_BENCHDB_OPEN_DATA_CACHE:
        process.env.REDIS_BENCHDB_OPEN_DATA_CACHE || join(this.o.siteDir, 'open-data'),
      REDIS_BENCHDB_KEPT_PAGES: this.kept.keysFile,
      REDIS_BENCHDB_DB: this.o.dbPath,
      REDIS_BENCHDB_SITE_OUT: out,
      REDIS_BENCHDB_SITE_URL: this.siteUrl,
    };
    const log = createWriteStream(logPath);
    const { command } = this.o;
    const argv = typeof command === 'string' ? ['/bin/sh', '-c', command] : command;
    // The watchdog leads the build's process group (detached) and reads EOF on its stdin when this
    // process ends, however it ends: it then ends the build. The pipe is held open, never written.
    const child = spawn(process.execPath, [WATCHDOG, ...argv], {
      env,
      stdio: ['pipe', 'pipe', 'pipe'],
      detached: true,
    });
    child.stdin?.on('error', () => {});
    child.stdout?.pipe(log, { end: false });
    child.stderr?.pipe(log, { end: false });
    child.once('exit', () => setImmediate(() => log.end()));
    return child;
  }

  private async swapIn(out: string, name: string, fingerprint: string, startedAt: number): Promise<void> {
    const durationMs = Date.now() - startedAt;
    const marker: BuildMarker = { fingerprint, builtAt: new Date().toISOString(), durationMs };
    await writeFile(join(out, MARKER), JSON.stringify(marker));
    // The result pages it rendered move to the kept pages before it is served, which answers the rest.
    await this.kept.absorb(out);
    const dir = join(this.o.siteDir, 'builds', name);
    await rename(out, dir);
    // rename() over the old link is atomic: a reader finds the old site or the new one, never neither.
    const link = join(this.o.siteDir, 'current');
    await rm(`${link}.new`, { force: true });
    await symlink(dir, `${link}.new`);
    await rename(`${link}.new`, link);
    const previous = this.root;
    this.root = dir;
    this.builtFingerprint = fingerprint;
    this.lastBuildAt = Date.parse(marker.builtAt);
    this.lastBuildMs = durationMs;
    this.lastFailure = null;
    await this.kept.swapped(dir);
    this.o.log(`site: built in ${(durationMs / 1000).toFixed(1)} s; serving ${dir}`);
    // The previous site stays one more build: a request may be reading its files now. Only a
    // finished build of ours (its marker in it) is removed: --site-dir may name a folder with more.
    for (const old of await readdir(join(this.o.siteDir, 'builds'))) {
      const path = join(this.o.siteDir, 'builds', old);
      if (path !== dir && path !== previous && !old.endsWith('.partial') && existsSync(join(path, MARKER)))
        await rm(path, { recursive: true, force: true });
    }
  }

  private async failed(out: string, logPath: string, reason: string, detail?: string): Promise<void> {
    await rm(out, { recursive: true, force: true });
    if (this.closed) return;
    this.lastFailure = { at: Date.now(), reason };
    // Kept apart from build.log, which the next build starts afresh: the operator may read it later.
    const kept = join(this.o.siteDir, 'failed-build.log');
    await copyFile(logPath, kept).catch(() => {});
    const tail = (await readFile(logPath, 'utf8').catch(() => '')).trim().split('\n').slice(-20).join('\n');
    this.o.log(
      `site: ${reason}${detail ? ` (${detail})` : ''}; the previous site is still served. The build's log is in ${kept}; its last lines:\n${tail}`,
    );
  }
}

interface BuildMarker {
  fingerprint: string;
  builtAt: string;
  durationMs: number;
}
