// Issue 44, items 5 and 6, on the site built from data/ and read in Chromium: where the home answer
// names the fastest server, the caveats stand beside it (one run; no verdict at the other value size);
// a version page's paired figure names its run group and what the other groups that ran both gave,
// recomputed here from the group files' trials.

import { fileURLToPath } from 'node:url';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { dirs, type Member, members, paired } from './group-files.js';
import { pageAt, type ServedSite, serveSiteFromData } from './served.js';

const _root = fileURLToPath(new URL('../../', import.meta.url));
let site: ServedSite;

beforeAll(async () => {
  if (dirs.length === 0) return;
  site = await serveSiteFromData('rbdb-paired-sources-');
}, 900_000);

afterAll(() => site?.close());

const at = (path: string, width: number, height: number): Promise<Page> => pageAt(site, path, width, height);

const named = (m: Member) => `${m.product === 'redis' ? 'Redis' : 'Valkey'} ${m.version}`;

describe.skipIf(dirs.length === 0)("the home answer's leader and its caveats (issue 44, item 6)", () => {
  it('names the fastest server of the first column with its one-run caveat and the 128 B figures that have no verdict', async () => {
    const page = await at('/', 1280, 800);
    const seen = await page.evaluate(() => {
      const a = document.querySelector<HTMLElement>('section.answer')!;
      const p = a.querySelector<HTMLElement>('.answer-leader');
      const e = a.querySelector<HTMLElement>('.answer-elsewhere');
      return {
        group: a.dataset.group!,
        label: a.querySelectorAll('thead th')[1]!.firstChild!.textContent!,
        leader: p?.dataset.leader ?? null,
        text: p?.textContent?.replace(/\s+/g, ' ') ?? '',
        other: e?.dataset.label ?? null,
        undecided: Number(e?.dataset.undecided ?? -1),
        note: a.querySelector('.multiplicity')?.textContent ?? '',
      };
    });
    // Recomputed from the files: the highest paired ratio over Redis 6.0.20 in the first column.
    const mine = members().filter((m) => m.group === seen.group);
    const ref = mine.find((m) => m.product === 'redis' && m.version === '6.0.20')!;
    const over = (m: Member) =>
      m === ref ? 1 : paired(ref.trials.get(seen.label)!, m.trials.get(seen.label)!)!.ratio;
    const leader = [...mine].sort((a, b) => over(b) - over(a))[0]!;
    expect(seen.leader).toBe(named(leader));
    expect(seen.text).toContain('within this one run on one machine');
    // The same command at 128 B: the servers the leader's paired interval over holds 1.
    const other = seen.label.replace(/ 16B$/, ' 128B');
    expect(seen.other).toBe(other);
    const undecided = mine.filter((m) => {
      if (m === leader) return false;
      const p = paired(leader.trials.get(other)!, m.trials.get(other)!)!;
      return p.low <= 1 && p.high >= 1;
    });
    expect(undecided.length).toBeGreaterThan(0);
    expect(seen.undecided).toBe(undecided.length);
    for (const m of undecided) expect(seen.text).toContain(named(m));
    // The multiplicity note of the one run the whole answer comes from.
    expect(seen.note).toMatch(/^\d+ comparisons on this page; .* They all come from one run on one machine/);
    await page.context().close();
  });
});

describe.skipIf(dirs.length === 0)(
  "a version page's paired figures name their group (issue 44, item 5)",
  () => {
    it("Valkey 8.0.1's GET against Redis 7.4.1 on the AMD kind says both groups' figures and that they point different ways", async () => {
      const all = members();
      // Every group on one machine kind and configuration that ran both servers, with each's GET figure.
      const kinds = new Map<string, Member[]>();
      for (const m of all)
        kinds.set(m.machineKey + m.configKey, [...(kinds.get(m.machineKey + m.configKey) ?? []), m]);
      const found: { ratio: number; group: string }[][] = [];
      for (const ms of kinds.values()) {
        const groups = [...new Set(ms.map((m) => m.group))];
        const figures = groups.flatMap((g) => {
          const v = ms.find((m) => m.group === g && m.product === 'valkey' && m.version === '8.0.1');
          const r = ms.find((m) => m.group === g && m.product === 'redis' && m.version === '7.4.1');
          const p =
            v && r && v.trials.get('GET') && r.trials.get('GET')
              ? paired(v.trials.get('GET')!, r.trials.get('GET')!)
              : null;
          return p ? [{ ratio: p.ratio, group: g }] : [];
        });
        if (figures.length >= 2) found.push(figures);
      }
      const split = found.find((f) => f.some((x) => x.ratio > 1) && f.some((x) => x.ratio < 1));
      expect(split, 'data/ holds a pair two groups measured the other way round').toBeDefined();
      const page = await at('/versions/', 1280, 800);
      const href = await page.evaluate(
        () =>
          [...document.querySelectorAll<HTMLAnchorElement>('a')].find((a) =>
            /\/versions\/valkey-8\.0\.1-/.test(a.href),
          )?.href,
      );
      await page.goto(href!, { waitUntil: 'load' });
      const lines = await page.evaluate(() =>
        [...document.querySelectorAll('main .source')].map((e) => e.textContent ?? ''),
      );
      const times = (x: number) => `${x.toFixed(2)}×`;
      // The line under the figure names the groups whose cells the site admitted: each one's figure is
      // the files' paired ratio, and they lie on both sides of 1.
      const line = lines.find(
        (l) => l.startsWith('GET redis 7.4.1:') && l.includes('groups ran both and point different ways'),
      );
      expect(line, lines.join('\n')).toBeDefined();
      // The other groups are named in the line; the shown one's figure is "here" (its group is named above the notes).
      const ids = [...line!.matchAll(/run group ([0-9a-f]{8})/g)].map((m) => m[1]!);
      const others = ids.map((id) => found.flat().find((f) => f.group.startsWith(id)));
      expect(
        others.length > 0 && others.every(Boolean),
        `${line} names groups of ${JSON.stringify(split)}`,
      ).toBe(true);
      const here = found
        .flat()
        .find((f) => !ids.includes(f.group.slice(0, 8)) && line!.includes(`${times(f.ratio)} here`));
      expect(here, line).toBeDefined();
      const figures = [here, ...others];
      for (const f of others) expect(line).toContain(times(f!.ratio));
      expect(figures.some((f) => f!.ratio > 1) && figures.some((f) => f!.ratio < 1)).toBe(true);
      // Every paired figure on the page names its group.
      // Every paired figure's group is named under its matrix, a link to the group's page.
      const named = await page.evaluate(() =>
        [...document.querySelectorAll<HTMLElement>('main .matrix-box')].map((box) => ({
          entries: [...box.querySelectorAll<HTMLElement>('td[data-kind="ratio"]')]
            .filter((t) => t.dataset.low !== '')
            .map((t) => t.querySelector<HTMLAnchorElement>('a.sub')?.pathname ?? ''),
          sources: [
            ...(box.nextElementSibling?.matches('.sources, .multiplicity')
              ? box.nextElementSibling.querySelectorAll('a')
              : []),
          ].map((a) => (a as HTMLAnchorElement).pathname),
        })),
      );
      expect(named.some((m) => m.entries.length > 0)).toBe(true);
      for (const m of named) for (const e of m.entries) expect(m.sources).toContain(e);
      await page.context().close();
    });
  },
);
