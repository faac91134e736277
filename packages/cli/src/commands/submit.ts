import { readFile } from 'node:fs/promises';
import { defineCommand, type FlagsOf, flag } from '@redis-benchdb/command';
import { noServerHelp, serverUrl } from '../config.js';
import { CliError, EXIT_USAGE } from '../errors.js';
import { database, ingestServer, json } from '../options/common.js';
import {
  type CellRank,
  deliverEnvelope,
  pendingEntries,
  pendingHint,
  rankLines,
  type SpoolEntry,
  setAside,
  spool,
  spoolDir,
  unspool,
} from '../submit.js';

const SUBMIT_OPTIONS = {
  server: ingestServer(),
  pending: flag('--pending', 'send the results waiting in the spool, each to the service it was meant for'),
  db: database(', whose spool (a folder beside it) holds what waits'),
  json: json('print the outcome of each file as JSON'),
};

export type SubmitFlags = FlagsOf<typeof SUBMIT_OPTIONS>;

export default defineCommand({
  name: 'submit',
  description: 'post signed results (run --out files) to the ingest service; --pending: what waits',
  argument: { usage: '[file...]', help: 'signed result files' },
  options: SUBMIT_OPTIONS,
  run: (flags, files) => submitCommand(files, flags),
});

interface Outcome {
  file: string;
  server: string | null;
  outcome: string;
  id?: string;
  url?: string;
  detail?: string;
  /** Where its headline cells stand in their cohorts, when the service said. */
  ranks?: CellRank[];
  /** The lines printed for them, by the admission rule the service ranks by (submit.ts rankLines). */
  rankText?: string[];
}

/**
 * `redis-benchdb submit FILE...` posts signed results (`run --out` files) to the ingest service;
 * `submit --pending` sends what an earlier run or submit could not deliver, each entry to the
 * service it was meant for (--server sends them all there instead). A file the service could not
 * take is spooled; a spooled file leaves the spool only once the service has stored it.
 */
export async function submitCommand(files: string[], flags: SubmitFlags): Promise<number> {
  const url = await serverUrl(flags.server);
  // There is no default public service yet (config.ts): say so, and what to pass instead.
  const noServer = (what: string) =>
    new CliError(
      `${what}: there is no public service yet, so name one: ${noServerHelp()}. Nothing was sent, and nothing is lost.`,
      'ERR_USAGE',
      EXIT_USAGE,
    );
  if (!flags.pending && files.length === 0)
    throw new CliError('name the files to submit, or use --pending', 'ERR_USAGE', EXIT_USAGE);
  const report: Outcome[] = [];
  if (flags.pending) {
    const entries = await pendingEntries(flags.db);
    if (entries.length === 0 && !flags.json)
      process.stderr.write(`nothing pending in ${spoolDir(flags.db)}\n`);
    // --server overrides where each entry was meant to go; an entry that says nothing goes to the default.
    const targets = (e: SpoolEntry) => (flags.server || e.servers.length === 0 ? [url] : e.servers);
    const waiting = entries.filter((e) => targets(e).includes(null)).length;
    if (waiting > 0)
      throw noServer(
        `${waiting} result${waiting === 1 ? '' : 's'} in ${spoolDir(flags.db)} wait${waiting === 1 ? 's' : ''} for a service (try ${pendingHint(flags.db, true)})`,
      );
    for (const entry of entries)
      for (const server of targets(entry)) report.push(await sendPending(entry, server!, flags));
  } else {
    if (!url) throw noServer('no server to submit to');
    // Every file is read before any is sent: a mistyped name stops the command with nothing half done.
    const bodies = await Promise.all(files.map(readResultFile));
    for (const [i, file] of files.entries()) report.push(await sendFile(file, bodies[i]!, url, flags));
  }
  if (flags.json) process.stdout.write(`${JSON.stringify(report, null, 2)}\n`);
  else {
    for (const r of report) {
      process.stdout.write(
        `${r.file}: ${r.outcome}${r.id ? ` ${r.id} (${r.url})` : ''}${r.detail ? `: ${r.detail}` : ''}\n`,
      );
      for (const line of r.rankText ?? []) process.stdout.write(`${line}\n`);
    }
  }
  return report.every((r) => r.outcome === 'stored' || r.outcome === 'already stored') ? 0 : 1;
}

/** A file named on the command line, or a CliError that says what was wrong with the name. */
async function readResultFile(file: string): Promise<string> {
  try {
    return await readFile(file, 'utf8');
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    const why =
      code === 'ENOENT'
        ? 'no such file'
        : code === 'EISDIR'
          ? 'it is a directory'
          : code === 'EACCES'
            ? 'permission denied'
            : (err as Error).message;
    throw new CliError(
      `cannot read ${file}: ${why}. Name a signed result file, as \`run --out FILE\` writes it; nothing was sent`,
      'ERR_NO_FILE',
      EXIT_USAGE,
    );
  }
}

async function sendFile(file: string, body: string, server: string, flags: SubmitFlags): Promise<Outcome> {
  const out = await deliverEnvelope(server, body);
  if (out.kind === 'stored') return stored(file, server, out, body);
  if (out.kind === 'refused')
    return { file, server, outcome: 'refused', detail: `${out.status} ${out.code}: ${out.message}` };
  const kept = await spool(body, server, flags.db);
  return {
    file,
    server,
    outcome: 'unavailable',
    detail: `${out.reason}; kept in ${kept}: send it later with ${pendingHint(flags.db)}`,
  };
}

async function sendPending(entry: SpoolEntry, server: string, flags: SubmitFlags): Promise<Outcome> {
  const file = entry.file;
  const body = await readFile(file, 'utf8');
  const out = await deliverEnvelope(server, body);
  if (out.kind === 'stored') {
    // Sent elsewhere with --server: the entry is done with.
    await unspool(entry, flags.server ? null : server);
    return stored(file, server, out, body);
  }
  if (out.kind === 'refused') {
    const detail = `${out.status} ${out.code}: ${out.message}`;
    return {
      file,
      server,
      outcome: 'refused',
      detail: `${detail} (moved to ${await setAside(file, detail)})`,
    };
  }
  return { file, server, outcome: 'unavailable', detail: `${out.reason}; still pending` };
}

function stored(
  file: string,
  server: string,
  out: { id: string; pagePath: string; duplicate: boolean; ranks: CellRank[] },
  envelope: string,
): Outcome {
  return {
    file,
    server,
    outcome: out.duplicate ? 'already stored' : 'stored',
    id: out.id,
    url: `${server}${out.pagePath}`,
    ranks: out.ranks,
    rankText: rankLines(out.ranks, envelope),
  };
}
