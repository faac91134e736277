import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
// @ts-expect-error: a plain .mjs script without types
import { generate } from '../gen-result-types.mjs';

const ROOT = new URL('../../', import.meta.url);

describe('scripts/gen-result-types.mjs', () => {
  it('writes what packages/result/src/generated/ holds: the generated files are up to date with schemas/ (run `pnpm gen:types`)', async () => {
    const files: Record<string, string> = await generate();
    expect(Object.keys(files).sort()).toEqual([
      'packages/result/src/generated/imported-v1.ts',
      'packages/result/src/generated/result-v1.ts',
      'packages/result/src/generated/schemas.ts',
    ]);
    for (const [path, content] of Object.entries(files)) {
      expect(readFileSync(new URL(path, ROOT), 'utf8'), `${path} is stale: run pnpm gen:types`).toBe(content);
    }
  });
});
