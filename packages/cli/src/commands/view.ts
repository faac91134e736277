import { spawn } from 'node:child_process';
import { mkdir, readdir, readFile } from 'node:fs/promises';
import { dirname, join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { defineCommand, type FlagsOf, flag, text } from '@redis-benchdb/command';
import { contentId, type ResultV1, validateResult, verifyEnvelopeText } from '@redis-benchdb/result';
import { writeAtomically } from '../atomic-write.js';
import { CliError, EXIT_USAGE } from '../errors.js';
import { resultsDir } from '../local-database.js';
import { database } from '../options/common.js';
import { resultPage } from '../view/result-page.js';

const VIEW_OPTIONS = {
  out: text('--out <file>', 'write the page here (default: pages/<id>.html beside the kept results)'),
  open: flag('--open', 'open the page in the default browser too'),
  db: database(', beside which the results and pages are kept'),
};

export default defineCommand({
  name: 'view',
  description: 'write one result as a standalone HTML page and print its path',
  argument: {
    usage: '<id|file>',
    help: 'a result id (or the start of one) that run kept, or a file: run --out, or run --json',
  },
  options: VIEW_OPTIONS,
  helpAfter: `
Examples:
  redis-benchdb view 3f2a          the kept result whose id starts with 3f2a
  redis-benchdb view r.json --open a file written by run --out, opened in the browser
`,
  run: (flags, what) => viewCommand(what, flags),
});

export async function viewCommand(
  what: string | undefined,
  flags: FlagsOf<typeof VIEW_OPTIONS>,
): Promise<number> {
  if (!what) throw new CliError('name a result: an id that run printed, or a file', 'ERR_USAGE', EXIT_USAGE);
  const file = /^[0-9a-f]{4,64}$/.test(what) ? await keptFile(what, flags.db) : what;
  let body: string;
  try {
    body = await readFile(file, 'utf8');
  } catch (err) {
    throw new CliError(`cannot read ${file}: ${(err as Error).message}`, 'ERR_VIEW_FILE');
  }
  const { doc, id, signedBy, signatureOk } = parse(body, file);
  const out = resolve(flags.out ?? join(dirname(resultsDir(flags.db)), 'pages', `${id}.html`));
  await mkdir(dirname(out), { recursive: true });
  await writeAtomically(out, resultPage(doc, { id, signedBy, signatureOk }));
  process.stdout.write(`wrote ${out}\nopen it in a browser: ${pathToFileURL(out).href}\n`);
  if (flags.open) openInBrowser(out);
  return 0;
}

/** The kept result whose id is `prefix` or starts with it; one, or a clear error. */
async function keptFile(prefix: string, db: string | undefined): Promise<string> {
  const dir = resultsDir(db);
  const names = (await readdir(dir).catch(() => [] as string[])).filter(
    (n) => n.startsWith(prefix) && n.endsWith('.json'),
  );
  if (names.length === 1) return join(dir, names[0]!);
  if (names.length === 0)
    throw new CliError(
      `no kept result ${prefix} in ${dir}: give the id that run printed ("kept in ..."), or a file`,
      'ERR_VIEW_NOT_FOUND',
    );
  throw new CliError(
    `${names.length} kept results start with ${prefix}: give more of the id`,
    'ERR_USAGE',
    EXIT_USAGE,
  );
}

/** A signed envelope (checked, but shown even when the check fails, and said so), or a bare result. */
function parse(
  body: string,
  file: string,
): { doc: ResultV1; id: string; signedBy: string | null; signatureOk: boolean | null } {
  let json: { payload?: unknown; keyFingerprint?: unknown };
  try {
    json = JSON.parse(body);
  } catch {
    throw new CliError(
      `${file} is not JSON: give a file written by run --out or run --json`,
      'ERR_VIEW_FILE',
    );
  }
  if (typeof json.payload === 'string') {
    const doc = JSON.parse(json.payload) as ResultV1;
    return {
      doc,
      id: contentId(json.payload),
      signedBy: String(json.keyFingerprint),
      signatureOk: verifyEnvelopeText(body).ok,
    };
  }
  const valid = validateResult(json);
  if (!valid.ok)
    throw new CliError(
      `${file} is neither a signed result nor a result document: ${valid.errors
        .map((e) => `${e.path}: ${e.message}`)
        .slice(0, 3)
        .join('; ')}`,
      'ERR_VIEW_FILE',
    );
  // Unsigned, so no result id: the page is named by the file's hash.
  return {
    doc: json as ResultV1,
    id: `unsigned-${contentId(body).slice(0, 16)}`,
    signedBy: null,
    signatureOk: null,
  };
}

/** Best effort: the page's path is printed either way. */
function openInBrowser(path: string): void {
  const [cmd, ...args] =
    process.platform === 'darwin'
      ? ['open', path]
      : process.platform === 'win32'
        ? ['cmd', '/c', 'start', '""', path]
        : ['xdg-open', path];
  const child = spawn(cmd!, args, { stdio: 'ignore', detached: true });
  child.on('error', (err) =>
    process.stderr.write(`could not open a browser (${cmd}: ${err.message}): open the path above yourself\n`),
  );
  child.unref();
}
