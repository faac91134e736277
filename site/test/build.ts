import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';

const script = fileURLToPath(new URL('../../scripts/site-build.mjs', import.meta.url));

/**
 * The real site build from the given database into `outDir`: `pnpm site:build --db PATH --out DIR`;
 * resolves with what it printed. It waits on the process, never on a clock (a build on a busy
 * machine takes minutes; vitest's timeout is the guard against a hang), and it does not block the
 * test's thread: vitest's worker keeps answering its runner meanwhile (a blocked one fails the run
 * with "Timeout calling onTaskUpdate", though every test passed).
 */
export async function buildSite(
  dbPath: string,
  outDir: string,
  env: Record<string, string> = {},
): Promise<string> {
  // Astro's log goes to the state folder: the test's own, beside its output, so none is left in HOME.
  const state = { XDG_STATE_HOME: `${outDir}.state` };
  const r = await runNode([script, '--db', dbPath, '--out', outDir], { ...process.env, ...state, ...env });
  if (r.status !== 0) throw new Error(`site build failed (${r.status}):\n${r.stdout}\n${r.stderr}`);
  return r.stdout;
}

/** `node ...args` until it exits, with what it printed; no time limit of its own. */
export function runNode(
  args: string[],
  env: NodeJS.ProcessEnv,
): Promise<{ status: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, args, { env, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (s: string) => {
      stdout += s;
    });
    child.stderr.setEncoding('utf8').on('data', (s: string) => {
      stderr += s;
    });
    child.on('error', reject);
    child.on('close', (status) => resolve({ status, stdout, stderr }));
  });
}
