import type { CellWorkloadColumns, SiteResultRecord } from '@redis-benchdb/db';
import type { ImportedV1, ResultV1 } from '@redis-benchdb/result';
import {
  checkEnvelopeSignature,
  noVerdictWarnings,
  spreadOf,
  spreadText,
  warningsOf,
} from '@redis-benchdb/result';
import { reproduceCommands } from '../results/reproduce.js';
import { safeStrings } from '../text/text.js';
import { type SloView, sloView } from './slo.js';
import { type WorkloadParams, workloadParams } from './workload-params.js';

/**
 * One shape for every result the site shows, whether our runner measured it (signed) or it was
 * re-typed from a publication (imported). Pages and charts read only this, so the two kinds cannot
 * be rendered differently by accident; what an imported result does not know is null, never guessed.
 */
export interface CellView extends CellWorkloadColumns {
  opsMedian: number;
  /**
   * The spread of the trials' median (packages/result spread.ts), computed from the trials here, not
   * read from the result's ci95 fields (a bootstrap, which with 3 trials is their min–max): a 95%
   * interval of the median from 6 trials on, else the range of the trials; null for one trial.
   */
  opsLow: number | null;
  opsHigh: number | null;
  /** What opsLow–opsHigh is, as a page says it: "range of 3 trials", "95% interval of the median of 10 trials". */
  opsSpread: string;
  opsCv: number | null;
  trialOps: number[];
  unstable: boolean;
  /** Most replies were errors (warning ERRORS): left out of headlines and comparisons. */
  errors: boolean;
  /** The warnings that keep this cell from a verdict (BUSY_HOST, DRIFT, UNSTABLE...: see verdict.ts). */
  noVerdict: string[];
  latencyUs: {
    p50Us: number | null;
    p99Us: number | null;
    p999Us: number | null;
    maxUs: number | null;
  } | null;
  histogram: string | null;
  clientBound: boolean | null;
  crossCheck: string | null;
  /** Every fingerprinted parameter (explore.ts), to say how two workloads differ; null for an imported cell. */
  params: WorkloadParams | null;
  /** A search for the max ops/s at a latency objective (run --slo): its searches; null for other cells. */
  slo: SloView | null;
}

export interface ResultView {
  id: string;
  kind: 'signed' | 'imported';
  receivedAt: string;
  startedAt: string | null;
  suite: { id: string; version: number | null; profile: string | null } | null;
  machine: {
    cpuModel: string | null;
    cores: number | null;
    threads: number | null;
    virtualization: string | null;
    hypervisor: string | null;
    os: string | null;
    thp: string | null;
    /** The CPUs the server and the client were pinned to (environment.client.numa, kernel list form: "1", "0-2"); null: not pinned, or not said. */
    serverCpus?: string | null;
    clientCpus?: string | null;
  };
  server: {
    product: string | null;
    version: string | null;
    /** The release tag the server was built from (server.build), where it differs from what INFO says: valkey 8.0.0-rc2 reports 7.9.240. */
    buildTag?: string | null;
    allocator: string | null;
    ioThreads: number | null;
    persistence: string | null;
  };
  link: { kind: string | null; rttP50Us: number | null };
  warnings: { code: string; message: string; cell: string | null }[];
  /** What decides whose between-run noise applies: null for an imported result. */
  environmentFingerprint: string | null;
  /** The earlier result of the same key whose measurements this one repeats (db copies.ts), or null. */
  copyOf: string | null;
  cells: CellView[];
  signature: {
    status: 'verified' | 'failed' | 'imported';
    keyFingerprint: string | null;
    /** The signer the database names for this key (the project, for a data key), or null when the key is its own. */
    signer: string | null;
    detail: string | null;
  };
  source: {
    title: string;
    url: string | null;
    section: string | null;
    tool: string | null;
    /** As precise as the source gives it: 2013, 2013-07 or 2013-07-01; null when it gives none. */
    publishedAt: string | null;
    /** When the figures were imported into data/ (the file's source.importedAt), not when the database was built. */
    importedAt?: string | null;
    /** How many runs the source says each figure comes from ("three runs" in its own words, quoted in the notes); null when it does not say. */
    runs?: number | null;
  } | null;
  /** interleaved: the members ran round by round (runGroup.schedule), so their trials pair up. */
  runGroup: { id: string; label: string; index: number; interleaved: boolean } | null;
  /** The command line(s) that reproduce the result, one per line, as far as they can be known. */
  reproduce: string;
  /** Machine kind and configuration (packages/result identity.ts, db migration 9); null only for a row it could not read. */
  machineKind: { key: string; label: string } | null;
  /** isDefault: the configuration `run` launches by default (identity.ts), the one default views show. */
  configuration: { key: string; label: string; isDefault: boolean } | null;
  /** The raw record as stored: the envelope for a signed result, the document for an imported one. */
  raw: string;
}

export function toResultView(rec: SiteResultRecord): ResultView {
  const r = rec.row;
  const view = {
    ...(r.kind === 'signed' ? fromSigned(rec) : fromImported(rec)),
    machineKind: r.machineKey ? { key: r.machineKey, label: r.machineLabel ?? '?' } : null,
    configuration: r.configKey
      ? { key: r.configKey, label: r.configLabel ?? '?', isDefault: r.configDefault === 1 }
      : null,
  };
  // Every string a page, chart or card shows, without control or bidi characters (see text.ts).
  return safeStrings(view, KEEP_AS_STORED);
}

/** The raw record is offered for download byte for byte; a histogram is base64, never shown. */
const KEEP_AS_STORED = new Set(['raw', 'histogram']);

function fromSigned(rec: SiteResultRecord): Omit<ResultView, 'machineKind' | 'configuration'> {
  // What the page shows is parsed from the signed payload itself, once its signature checks: so a
  // page can only show bytes its submitter signed. (Schema and plausibility were checked at ingest.)
  const check = checkEnvelopeSignature(JSON.parse(rec.envelope ?? '{}'));
  const doc = JSON.parse(check.ok ? check.payload : rec.document()) as ResultV1;
  const env = doc.environment;
  const m = env.client;
  const s = env.server;
  // A member only where the database admitted it: a result another key signed into a stored group
  // was taken out of it (packages/db migration 12, run-group.ts) and names a group it is not in.
  const rg = doc.runGroup?.id === rec.row.runGroupId ? doc.runGroup : undefined;
  return {
    id: rec.row.id,
    kind: 'signed',
    receivedAt: rec.row.receivedAt,
    startedAt: doc.startedAt,
    suite: doc.suite ? { id: doc.suite.id, version: doc.suite.version, profile: doc.suite.profile } : null,
    machine: {
      cpuModel: m.cpu.model,
      cores: m.cpu.cores,
      threads: m.cpu.threads,
      virtualization: m.virtualization.kind,
      hypervisor: m.virtualization.hypervisor,
      os:
        [m.os.distro, m.os.release, m.os.kernel && `kernel ${m.os.kernel}`].filter(Boolean).join(' ') || null,
      thp: m.thp.enabled,
      serverCpus: m.numa?.serverCpus ?? null,
      clientCpus: m.numa?.clientCpus ?? null,
    },
    server: {
      product: s?.product ?? null,
      version: s?.version ?? null,
      buildTag: s?.build?.tag ?? null,
      allocator: s?.allocator ?? null,
      ioThreads: s?.ioThreads ?? null,
      persistence: s ? persistenceText(s.persistence) : null,
    },
    link: { kind: env.link.kind, rttP50Us: env.link.rttUs?.p50Us ?? null },
    warnings: warningsOf(doc).map((w) => ({ code: w.code, message: restated(w), cell: w.cell })),
    environmentFingerprint: env.fingerprint,
    copyOf: rec.row.copyOf,
    cells: doc.cells.map((c, idx) => ({
      idx,
      label: c.label,
      test: c.test,
      workloadFingerprint: c.workloadFingerprint,
      connections: c.workload.connections,
      pipelineDepth: c.workload.pipelineDepth,
      pipelineMode: c.workload.pipelineMode,
      valueSizeMin: c.workload.valueSizeBytes.min,
      valueSizeMax: c.workload.valueSizeBytes.max,
      keyspaceSize: c.workload.keyspaceSize,
      keyPattern: c.workload.keyPattern,
      rateOpsPerSec: c.workload.rateOpsPerSec,
      opsMedian: c.opsPerSec.median,
      ...trialSpread(c.trials.map((t) => t.opsPerSec)),
      opsCv: c.opsPerSec.cv,
      trialOps: c.trials.map((t) => t.opsPerSec),
      unstable: c.unstable,
      errors: doc.warnings.some((w) => w.code === 'ERRORS' && w.cell === c.label),
      noVerdict: noVerdictWarnings(doc.warnings, {
        label: c.label,
        unstable: c.unstable,
        clientBound: c.saturation?.clientBound ?? null,
        interference: c.interference ?? null,
      }),
      latencyUs: c.latencyUs,
      histogram: c.histogram,
      clientBound: c.saturation?.clientBound ?? null,
      crossCheck: c.crossCheck?.status ?? null,
      params: workloadParams(c.workload),
      slo: c.workload.slo ? sloView(c.trials.map((t) => t.sloSearch)) : null,
    })),
    signature: check.ok
      ? {
          status: 'verified',
          keyFingerprint: rec.row.keyFingerprint,
          signer: namedSigner(rec.row),
          detail: null,
        }
      : {
          status: 'failed',
          keyFingerprint: rec.row.keyFingerprint,
          signer: namedSigner(rec.row),
          detail: check.reason,
        },
    source: null,
    runGroup: rg
      ? { id: rg.id, label: rg.label, index: rg.index, interleaved: rg.schedule !== undefined }
      : null,
    reproduce: reproduceCommands(doc).join('\n'),
    raw: rec.envelope ?? rec.document(),
  };
}

function persistenceText(p: {
  save: string | null;
  appendonly: boolean | null;
  appendfsync: string | null;
}): string {
  const parts: string[] = [];
  parts.push(p.save ? `RDB save "${p.save}"` : 'no RDB');
  if (p.appendonly === true) parts.push(`AOF fsync ${p.appendfsync ?? '?'}`);
  else if (p.appendonly === false) parts.push('no AOF');
  return parts.join(', ');
}

function fromImported(rec: SiteResultRecord): Omit<ResultView, 'machineKind' | 'configuration'> {
  const doc = JSON.parse(rec.document()) as ImportedV1;
  return {
    id: rec.row.id,
    kind: 'imported',
    receivedAt: rec.row.receivedAt,
    startedAt: null,
    suite: null,
    machine: {
      cpuModel: doc.machine.cpuModel,
      cores: doc.machine.cores,
      threads: null,
      virtualization: doc.machine.virtualization,
      hypervisor: null,
      os: null,
      thp: null,
    },
    server: {
      product: doc.server.product,
      version: doc.server.version,
      allocator: null,
      // What the source states of the server (imported.v1 server.settings), else unknown.
      ioThreads: doc.server.settings?.ioThreads ?? null,
      persistence: null,
    },
    link: { kind: doc.server.settings?.transport === 'unix' ? 'unix' : null, rttP50Us: null },
    warnings: [],
    environmentFingerprint: null,
    copyOf: null,
    cells: doc.cells.map((c, idx) => ({
      idx,
      label: c.label,
      test: c.test,
      // Imported cells are never compared cell by cell with measured ones: too much of their workload is unknown.
      workloadFingerprint: null,
      connections: c.workload.connections,
      pipelineDepth: c.workload.pipelineDepth,
      pipelineMode: null,
      valueSizeMin: c.workload.valueSizeBytes,
      valueSizeMax: c.workload.valueSizeBytes,
      keyspaceSize: c.workload.keyspaceSize,
      keyPattern: null,
      rateOpsPerSec: null,
      opsMedian: c.opsPerSec,
      opsLow: null,
      opsHigh: null,
      opsSpread: 'a published figure, no trials',
      opsCv: null,
      trialOps: [c.opsPerSec],
      unstable: false,
      errors: false,
      noVerdict: [],
      latencyUs: c.latencyUs.p50Us === null && c.latencyUs.p99Us === null ? null : c.latencyUs,
      histogram: null,
      clientBound: null,
      crossCheck: null,
      params: null,
      slo: null,
    })),
    signature: { status: 'imported', keyFingerprint: null, signer: null, detail: null },
    source: {
      title: doc.source.title,
      url: doc.source.url,
      section: doc.source.section ?? null,
      tool: doc.tool.name,
      publishedAt: doc.source.publishedAt ?? null,
      importedAt: doc.source.importedAt ?? null,
      runs: runsStated(doc.notes ?? null),
    },
    runGroup: null,
    reproduce: doc.tool.commandLine ?? `${doc.tool.name} (command line not published)`,
    raw: rec.document(),
  };
}

const NUMBER_WORDS: Record<string, number> = {
  one: 1,
  two: 2,
  three: 3,
  four: 4,
  five: 5,
  six: 6,
  seven: 7,
  eight: 8,
  nine: 9,
  ten: 10,
};

/**
 * The runs behind each published figure, where the notes quote the source saying so ("... three runs"):
 * only inside a quotation, so that it is the source's word and not the importer's.
 */
export function runsStated(notes: string | null): number | null {
  for (const q of (notes ?? '').matchAll(/"([^"]*)"/g)) {
    const m = /\b(\d+|one|two|three|four|five|six|seven|eight|nine|ten) runs\b/i.exec(q[1]!);
    if (m) return NUMBER_WORDS[m[1]!.toLowerCase()] ?? Number(m[1]);
  }
  return null;
}

/** The signer named for a result's key, when it is not the key itself (db migration 7). */
function namedSigner(row: { keyFingerprint: string | null; signer: string | null }): string | null {
  return row.signer !== null && row.signer !== row.keyFingerprint ? row.signer : null;
}

/** A cell's spread fields from its trials' ops/s (spread.ts); no bounds for a single trial. */
export function trialSpread(trials: readonly number[]): Pick<CellView, 'opsLow' | 'opsHigh' | 'opsSpread'> {
  if (trials.length === 0) return { opsLow: null, opsHigh: null, opsSpread: 'no trials' };
  const s = spreadOf(trials);
  const text = spreadText(s, 'trial');
  return s.kind === 'single'
    ? { opsLow: null, opsHigh: null, opsSpread: text }
    : { opsLow: s.low, opsHigh: s.high, opsSpread: text };
}

/** An older runner's DRIFT words for the spread of 2 to 5 trials: "(95% CI 113,139–120,650, 3 trials)". */
const OLD_DRIFT_SPREAD = /\(95% CI ([\d,]+)–([\d,]+), ([2-5]) trials\)/g;

/**
 * A warning's message as the page shows it. Runners before spread.ts called the range of a DRIFT
 * check's few trials a "95% CI", which it is not (3 trials' range covers their median 75% of the time):
 * the page names the same figures for what they are and says it restated them. Every other message is
 * the runner's own words.
 */
export function restated(w: { code: string; message: string }): string {
  if (w.code !== 'DRIFT') return w.message;
  const text = w.message.replace(OLD_DRIFT_SPREAD, '(range of $3 trials $1–$2)');
  if (text === w.message) return w.message;
  return `${text} (Restated by the site: this runner version misnamed each range of trials an interval.)`;
}
