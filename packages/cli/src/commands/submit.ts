import { readFile, rm } from 'node:fs/promises';
import { basename } from 'node:path';
import { CliError, EXIT_USAGE } from '../errors.js';
import { configDir } from '../signing-key.js';
import { pendingFiles, postEnvelope, serverUrl, setAside, spool, spoolDir } from '../submit.js';

export interface SubmitFlags {
  server?: string;
  pending?: boolean;
  json?: boolean;
}

/**
 * `redis-benchdb submit FILE...` posts signed results (`run --out` files) to the ingest service;
 * `submit --pending` sends what an earlier run or submit could not deliver. A file the service could
 * not take is spooled; a spooled file leaves the spool only once the service has stored it.
 */
export async function submitCommand(files: string[], flags: SubmitFlags): Promise<number> {
  const url = await serverUrl(flags.server);
  if (!url) {
    throw new CliError(
      `no server to submit to: pass --server URL, set REDIS_BENCHDB_SERVER, or put {"server": "URL"} in ${configDir()}/config.json`,
      'ERR_USAGE',
      EXIT_USAGE,
    );
  }
  if (!flags.pending && files.length === 0)
    throw new CliError('name the files to submit, or use --pending', 'ERR_USAGE', EXIT_USAGE);
  const list = flags.pending ? await pendingFiles() : files;
  if (flags.pending && list.length === 0 && !flags.json)
    process.stderr.write(`nothing pending in ${spoolDir()}\n`);
  const report: { file: string; outcome: string; id?: string; url?: string; detail?: string }[] = [];
  for (const file of list) {
    const body = await readFile(file, 'utf8');
    const out = await postEnvelope(url, body);
    if (out.kind === 'stored') {
      if (flags.pending) await rm(file);
      report.push({
        file,
        outcome: out.duplicate ? 'already stored' : 'stored',
        id: out.id,
        url: `${url}${out.pagePath}`,
      });
    } else if (out.kind === 'refused') {
      const detail = `${out.status} ${out.code}: ${out.message}`;
      report.push({
        file,
        outcome: 'refused',
        detail: flags.pending ? `${detail} (moved to ${await setAside(file, detail)})` : detail,
      });
    } else {
      const detail = flags.pending
        ? `${out.reason}; still pending`
        : `${out.reason}; kept in ${await spool(body, basename(file))}: send it later with redis-benchdb submit --pending`;
      report.push({ file, outcome: 'unavailable', detail });
    }
  }
  if (flags.json) process.stdout.write(`${JSON.stringify(report, null, 2)}\n`);
  else {
    for (const r of report) {
      process.stdout.write(
        `${r.file}: ${r.outcome}${r.id ? ` ${r.id} (${r.url})` : ''}${r.detail ? `: ${r.detail}` : ''}\n`,
      );
    }
  }
  return report.every((r) => r.outcome === 'stored' || r.outcome === 'already stored') ? 0 : 1;
}
