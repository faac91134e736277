// The Dockerfile read as its steps, and its .dockerignore as a filter, for dockerfile.test.ts: enough
// of both for what the project's recipe uses. An instruction or pattern this does not know fails the
// test that reads it, rather than being skipped.

export interface Step {
  instruction: string;
  args: string;
}

export interface Stage {
  from: string;
  steps: Step[];
}

/** The stages (FROM ... up to the next FROM), with line continuations joined and comments dropped. */
export function dockerfileStages(text: string): Stage[] {
  const stages: Stage[] = [];
  for (const line of text.replace(/\\\n\s*/g, '').split('\n')) {
    const m = /^([A-Z]+)\s+(.*)$/.exec(line.trim());
    if (m === null) continue; // blank or a comment
    const [, instruction, args] = m as unknown as [string, string, string];
    if (instruction === 'FROM') stages.push({ from: args, steps: [] });
    else stages.at(-1)!.steps.push({ instruction, args });
  }
  return stages;
}

/** `ENV A=1 B=2` as pairs (the recipe's form: KEY=VALUE, no quotes or spaces in values). */
export function envPairs(args: string): [string, string][] {
  return args.split(/\s+/).map((kv) => {
    const i = kv.indexOf('=');
    if (i <= 0) throw new Error(`ENV ${args}: only KEY=VALUE pairs are understood here`);
    return [kv.slice(0, i), kv.slice(i + 1)];
  });
}

/** The JSON array of an exec-form instruction (`CMD [...]`, `HEALTHCHECK ... CMD [...]`). */
export function execForm(args: string): string[] {
  return JSON.parse(args.slice(args.indexOf('[')));
}

/**
 * A .dockerignore as a test of a path relative to the build context: true when docker leaves it out of
 * `COPY . .` (it, or a directory above it, matches a pattern). `*` and `?` stay within one path
 * segment, `**` spans any number; `!` exceptions are not understood and throw.
 */
export function dockerignore(text: string): (relativePath: string) => boolean {
  const patterns = text
    .split('\n')
    .map((l) => l.trim())
    .filter((l) => l !== '' && !l.startsWith('#'))
    .map((p) => {
      if (p.startsWith('!')) throw new Error(`.dockerignore: exceptions (${p}) are not understood here`);
      const body = p
        .replace(/^\/+|\/+$/g, '')
        .split('/')
        .map((seg) =>
          seg === '**'
            ? '(?:.*)'
            : seg
                .replace(/[.+^${}()|[\]\\]/g, '\\$&')
                .replace(/\*/g, '[^/]*')
                .replace(/\?/g, '[^/]'),
        )
        .join('/')
        .replace(/\(\?:\.\*\)\//g, '(?:.*/)?');
      return new RegExp(`^${body}$`);
    });
  return (path) => {
    const parts = path.split('/');
    for (let i = 1; i <= parts.length; i++) {
      const prefix = parts.slice(0, i).join('/');
      if (patterns.some((re) => re.test(prefix))) return true;
    }
    return false;
  };
}
