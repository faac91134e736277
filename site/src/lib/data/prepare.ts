import { getSiteResult } from '@redis-benchdb/db';
import { type StagedSvg, stagedSvgs } from '../build/stage.js';
import type { Comparison } from '../compare/compare.js';
import type { EmbedTarget } from '../embeds/embed.js';
import { type GroupCaveat, groupCaveats, groupPage, memberName } from '../groups/group.js';
import { type GroupHead, groupHead } from '../groups/group-matrix.js';
import type { CellView, ResultView } from '../model/model.js';
import { toResultView } from '../model/model.js';
import { resultCharts } from '../results/result-charts.js';
import { type ResultLead, resultLead } from '../results/result-lead.js';
import { resultEmbed, stageResultFiles } from '../results/result-page.js';
import { database, resultView } from './data.js';

/** What a result page renders: the view without what only files need (raw JSON, histograms). */
export interface PreparedResult {
  view: Omit<ResultView, 'raw' | 'cells'> & { cells: Omit<CellView, 'histogram'>[] };
  targets: EmbedTarget[];
  /** What the page says first: read here, where the signed document (raw) is at hand. */
  lead: ResultLead;
  /** SVG files written, for the build to draw as PNGs. */
  svgs: StagedSvg[];
}

/**
 * The expensive part of a result page: read and check the result, draw its charts, write its
 * files. Pure of Astro, so the build can run it in worker threads (see prepare-pool.ts) while the
 * main thread renders HTML: at 10,000 results this is most of the build.
 */
export function prepareResult(id: string): PreparedResult {
  const rec = getSiteResult(database(), id);
  if (!rec) throw new Error(`result ${id} is not in the database (or was retracted)`);
  const r = toResultView(rec);
  const targets = resultCharts(r).map((c) => resultEmbed(r, c));
  const before = stagedSvgs().length;
  stageResultFiles(r, targets);
  const svgs = stagedSvgs().splice(before);
  const { raw: _raw, cells, ...rest } = r;
  return {
    view: { ...rest, cells: cells.map(({ histogram: _h, ...c }) => c) },
    targets,
    lead: resultLead(r),
    svgs,
  };
}

/** What a run group's page renders. */
export interface PreparedGroup {
  names: string[];
  /** The first screen: machine kind, configuration, and the matrix against each member. */
  head: GroupHead;
  caveats: GroupCaveat[];
  comparison: Comparison | null;
  targets: EmbedTarget[];
  svgs: StagedSvg[];
}

/** A run group's page work (its members' views, side-by-side charts, files): like prepareResult. */
export function prepareGroup(groupId: string, ids: readonly string[]): PreparedGroup {
  const members = ids.map(resultView);
  const before = stagedSvgs().length;
  const { comparison, targets } = groupPage(groupId, members);
  return {
    names: members.map(memberName),
    head: groupHead(members),
    caveats: groupCaveats(members),
    comparison,
    targets,
    svgs: stagedSvgs().splice(before),
  };
}
