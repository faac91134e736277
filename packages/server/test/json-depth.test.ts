import { describe, expect, it } from 'vitest';
import { nestsDeeperThan } from '../src/json-depth.js';

const deep = (d: number) => Buffer.from(`${'['.repeat(d)}${']'.repeat(d)}`);

describe('nestsDeeperThan', () => {
  it('counts arrays and objects, up to the limit and one past it', () => {
    expect(nestsDeeperThan(deep(64), 64)).toBe(false);
    expect(nestsDeeperThan(deep(65), 64)).toBe(true);
    expect(nestsDeeperThan(Buffer.from('{"a":{"b":[{"c":1}]}}'), 3)).toBe(true);
    expect(nestsDeeperThan(Buffer.from('{"a":{"b":[{"c":1}]}}'), 4)).toBe(false);
  });

  it('does not count brackets inside strings, escaped quotes included', () => {
    const payload = JSON.stringify({ payload: JSON.stringify({ a: [[[[['\\"[[[[']]]]] }) });
    expect(nestsDeeperThan(Buffer.from(payload), 1)).toBe(false);
    expect(nestsDeeperThan(Buffer.from(`{"s":"${'['.repeat(1000)}"}`), 1)).toBe(false);
  });

  it('scans 100,000 levels without parsing them', () => {
    expect(nestsDeeperThan(deep(100_000), 64)).toBe(true);
  });
});
