import { existsSync } from 'node:fs';
import { mkdir, readdir, readFile, readlink, rename, rm, stat, symlink, writeFile } from 'node:fs/promises';
import { join } from 'node:path';

/**
 * Result pages built once and kept between builds (issue 42). A result never changes once stored, so
 * the service does not render 10,000 unchanged pages after each submission: a build is told which
 * pages are kept (`keysFile`, REDIS_BENCHDB_KEPT_PAGES) and renders only the others (site/src/lib/build/
 * frozen-pages.ts), and after it the new pages move here, out of the build's directory. A request for
 * `/results/<id>/...` that the build's directory lacks is answered from here.
 *
 * Our own store rather than Astro 7's experimental incremental build: that copies every cached page
 * into each build's output (about 15 files per result, 750,000 copies at 50,000 results), so a build's
 * cost would still grow with the database. Here a build writes only what it rendered.
 *
 * Layout, under `dir` (<site-dir>/pages):
 *   keys.json                  the pages kept: `{ template, keys: { id: key } }`, written last
 *   <template>/<id>@<key>/     one result's files (index.html, raw.json, charts/...)
 *   <template>/<id>            a symlink to the one served, swapped by rename (atomic)
 * A key names what the page shows that can change without the result (its standing, the labels of its
 * machine kind and signer); the template is the site's version. A new template is a new folder: the
 * previous one keeps serving the previous build until the new one is swapped in, then goes.
 */

/** A build's record of every live result's key (frozen-pages.ts PAGE_KEYS_FILE). */
const BUILD_KEYS = '.redis-benchdb-page-keys.json';
const ID = /^[0-9a-f]{64}$/;
/** In each template's folder the service made: only such a folder is ever removed (--site-dir may hold more). */
const OWN = '.redis-benchdb-kept-pages';
const PAGE = /^\/results\/([0-9a-f]{64})(\/.*)$/;

interface PageKeys {
  template: string;
  keys: Record<string, string>;
}

export class KeptPages {
  /** What the site served now reads: its template's folder, and the results it holds live. */
  private served: { template: string; live: Set<string> } | null = null;
  /** Folders replaced by a build: removed once it is served, when requests go to their successors. */
  private replaced: string[] = [];

  constructor(readonly dir: string) {}

  /** The file a build reads to know which pages it need not render. */
  get keysFile(): string {
    return join(this.dir, 'keys.json');
  }

  /** Take up what the site served now (a build folder, or null) holds live. */
  async load(root: string | null): Promise<void> {
    const built = root === null ? null : await readKeys(join(root, BUILD_KEYS));
    this.served = built && { template: built.template, live: new Set(Object.keys(built.keys)) };
  }

  /**
   * Move the result pages a finished build rendered into the store, before its folder is served. A
   * build that wrote no keys (another site command, --site-build) keeps every page in its own folder.
   */
  async absorb(out: string): Promise<number> {
    const built = await readKeys(join(out, BUILD_KEYS));
    if (built === null) return 0;
    const kept = (await readKeys(this.keysFile)) ?? { template: built.template, keys: {} };
    let moved = 0;
    const keys: Record<string, string> = kept.template === built.template ? kept.keys : {};
    const layer = join(this.dir, built.template);
    await mkdir(layer, { recursive: true });
    await writeFile(join(layer, OWN), '');
    const rendered = join(out, 'results');
    const names = existsSync(rendered) ? await readdir(rendered) : [];
    for (const id of names) {
      const key = built.keys[id];
      // A page that failed to render has no index.html: it is not kept, and the next build tries again.
      if (!ID.test(id) || key === undefined || !existsSync(join(rendered, id, 'index.html'))) continue;
      const target = `${id}@${key}`;
      await rm(join(layer, target), { recursive: true, force: true });
      await rename(join(rendered, id), join(layer, target));
      const link = join(layer, id);
      const before = await readlink(link).catch(() => null);
      await rm(`${link}.new`, { force: true });
      await symlink(target, `${link}.new`);
      await rename(`${link}.new`, link);
      if (before !== null && before !== target) this.replaced.push(join(layer, before));
      keys[id] = key;
      moved++;
    }
    // A build of result pages alone under new templates renders none (frozen-pages.ts): the kept
    // pages stay those of the templates served until the whole site's build.
    if (moved === 0 && kept.template !== built.template) return 0;
    // Only pages that are here and current: a retracted result's key goes, and its page after the swap.
    const next: PageKeys = {
      template: built.template,
      keys: Object.fromEntries(Object.entries(keys).filter(([id, key]) => built.keys[id] === key)),
    };
    await writeFile(`${this.keysFile}.new`, JSON.stringify(next));
    await rename(`${this.keysFile}.new`, this.keysFile);
    return moved;
  }

  /** Whether a site is served whose result pages are kept here: then new ones can be added alone. */
  get serving(): boolean {
    return this.served !== null;
  }

  /** Serve the pages kept under the templates served now: those just absorbed from a build of result pages alone. */
  async servePages(): Promise<void> {
    const kept = await readKeys(this.keysFile);
    if (kept === null || this.served === null || kept.template !== this.served.template) return;
    for (const id of Object.keys(kept.keys)) this.served.live.add(id);
  }

  /** The build in `root` is served now: answer from its keys, and clear what no reader needs. */
  async swapped(root: string): Promise<void> {
    const previous = this.served;
    const replaced = this.replaced;
    this.replaced = [];
    await this.load(root);
    if (this.served === null) return;
    const { template, live } = this.served;
    // Other templates' folders of ours: the previous build's is still read by requests under way.
    for (const name of await readdir(this.dir).catch(() => [] as string[]))
      if (name !== template && name !== previous?.template && existsSync(join(this.dir, name, OWN)))
        await rm(join(this.dir, name), { recursive: true, force: true });
    for (const old of replaced) await rm(old, { recursive: true, force: true });
    if (previous?.template === template)
      for (const id of previous.live) if (!live.has(id)) await removePage(join(this.dir, template), id); // retracted
  }

  /**
   * Where a site path of a kept result page is: its folder and the path under it, or null. A result
   * the served site does not hold (retracted, or newer than its build) has none.
   */
  async find(path: string): Promise<{ root: string; file: string } | null> {
    const m = PAGE.exec(path);
    if (!m || this.served === null || !this.served.live.has(m[1]!)) return null;
    const root = join(this.dir, this.served.template);
    const rest = m[2]!.endsWith('/') ? `${m[2]}index.html` : m[2]!;
    const found = await stat(join(root, m[1]!, rest)).catch(() => null);
    return found?.isFile() ? { root, file: `/${m[1]}${rest}` } : null;
  }
}

async function readKeys(file: string): Promise<PageKeys | null> {
  try {
    return JSON.parse(await readFile(file, 'utf8')) as PageKeys;
  } catch {
    return null;
  }
}

async function removePage(layer: string, id: string): Promise<void> {
  const target = await readlink(join(layer, id)).catch(() => null);
  await rm(join(layer, id), { force: true });
  if (target !== null) await rm(join(layer, target), { recursive: true, force: true });
}
