import type { MatrixEntry } from '../compare/matrix.js';
import { COMPARISON_LABELS } from '../data/data.js';
import { groupHead, matrixAgainst } from '../groups/group-matrix.js';
import type { ResultView } from '../model/model.js';
import { pinningWords } from '../model/pinning.js';
import { paths } from '../routes/routes.js';
import { productName } from '../text/titles.js';
import { compareServers } from '../versions/versions.js';
import { type AnswerLeader, answerLeader } from './home-leader.js';

/**
 * The home page's first screen (issue 44, item 1): which version is faster, on which machine, by how
 * much and how sure, from the most precise evidence the database holds. That is the interleaved run
 * group with the most rounds (then the most servers, then the newest) in the default configuration:
 * its paired ratios have the narrowest intervals. Every server of the group, Redis and Valkey alike,
 * is set against one reference, the oldest Redis in it (else its first member), with the group page's
 * own figures (matrixAgainst), so the two pages cannot disagree. Pure over the views it is given.
 */
export interface AnswerRow {
  /** "Redis 7.9.224": the product and the version the server reports. */
  server: string;
  /** The release the binary was built from, where the server reports another version: "8.0-m01". */
  release: string | null;
  href: string;
  reference: boolean;
  /** One per shown workload, in `labels` order. */
  entries: MatrixEntry[];
}

export interface HomeAnswer {
  groupId: string;
  machine: { label: string; href: string | null } | null;
  /** "server pinned to 1 of 2 vCPUs and the client to the other, on one host", or null. */
  pinning: string | null;
  /** The day the group ran (its first member's start), YYYY-MM-DD. */
  runDay: string | null;
  rounds: number;
  servers: number;
  reference: string;
  labels: { label: string; note: string }[];
  rows: AnswerRow[];
  /** The server with the highest ratio in the first column, and what holds its lead (home-leader.ts). */
  leader: (AnswerLeader & { server: string }) | null;
}

/** A member's rounds: the trials of its cells (an interleaved group runs one trial per server per round). */
const roundsOf = (m: ResultView) => Math.max(0, ...m.cells.map((c) => c.trialOps.length));

/** The group the answer comes from: interleaved, default configuration, most rounds, most servers, newest. */
export function bestGroup(groups: readonly (readonly ResultView[])[]): readonly ResultView[] | null {
  const fit = groups.filter(
    (g) =>
      g.length >= 2 &&
      g.every((m) => m.kind === 'signed' && m.runGroup?.interleaved && m.configuration?.isDefault),
  );
  const key = (g: readonly ResultView[]) => [roundsOf(g[0]!), g.length];
  fit.sort((a, b) => {
    const [ra, na] = key(a);
    const [rb, nb] = key(b);
    return rb! - ra! || nb! - na! || (b[0]!.startedAt ?? '').localeCompare(a[0]!.startedAt ?? '');
  });
  return fit[0] ?? null;
}

/** The name a row gives its server: product and reported version, the release tag beside it where they differ. */
export function serverNames(m: ResultView): { server: string; release: string | null } {
  const tag = m.server.buildTag ?? null;
  return {
    server: `${productName(m.server.product)} ${m.server.version ?? '?'}`,
    release: tag && tag !== m.server.version ? tag : null,
  };
}

/** The answer from a group's members (in group order), on the workloads where the rule gave a verdict; at most `most` of them. */
export function homeAnswer(members: readonly ResultView[], most = 2): HomeAnswer {
  const order = [...members.keys()].sort(
    (a, b) =>
      compareServers(
        { product: members[a]!.server.product, version: members[a]!.server.version },
        { product: members[b]!.server.product, version: members[b]!.server.version },
      ) || a - b,
  );
  const ref = order.find((i) => members[i]!.server.product === 'redis') ?? 0;
  const matrix = matrixAgainst(members, ref);
  // The server-bound workloads first (data.ts COMPARISON_LABELS: pipeline 10, where the server and
  // not the one client thread is the limit on a 2-vCPU VM), then any other the rule judged.
  const serverBound = (l: string) => ((COMPARISON_LABELS as readonly string[]).includes(l) ? 0 : 1);
  const judged = matrix.rows
    .filter((r) => r.entries.some((e) => e.kind === 'ratio' && e.verdict.outcome !== 'no verdict'))
    .sort((a, b) => serverBound(a.label) - serverBound(b.label));
  const rows = (judged.length > 0 ? judged : matrix.rows).slice(0, most);
  const first = members[0]!;
  const name = (m: ResultView) => serverNames(m).server;
  const leader = rows[0] ? answerLeader(members, rows[0].label, rows[0].entries, name) : null;
  const refView = members[ref]!;
  const refNames = serverNames(refView);
  return {
    groupId: first.runGroup!.id,
    machine: groupHead(members).machine,
    pinning: pinningWords(first.machine),
    runDay: first.startedAt?.slice(0, 10) ?? null,
    rounds: roundsOf(first),
    servers: members.length,
    reference: refNames.server + (refNames.release ? ` (${refNames.release})` : ''),
    labels: rows.map((r) => ({ label: r.label, note: r.note })),
    rows: [ref, ...order.filter((i) => i !== ref)].map((i) => ({
      ...serverNames(members[i]!),
      href: paths.result(members[i]!.id),
      reference: i === ref,
      entries: rows.map((r) => r.entries[i]!),
    })),
    leader: leader && { ...leader, server: name(members[leader.index]!) },
  };
}
