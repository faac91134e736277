import { mkdirSync, writeFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { findForbiddenChar, parseInfo, TEXT_MAX } from '@redis-benchdb/result';
import { afterAll, describe, expect, it } from 'vitest';
import { probeMachine } from '../src/machine.js';
import { describeServer } from '../src/server.js';

const scratch: string[] = [];
afterAll(async () => {
  await Promise.all(scratch.map((d) => rm(d, { recursive: true, force: true })));
});

async function fakeRoot(files: Record<string, string>): Promise<string> {
  const root = await mkdtemp(path.join(os.tmpdir(), 'rbdb-probe-clean-'));
  scratch.push(root);
  for (const [file, text] of Object.entries(files)) {
    mkdirSync(path.dirname(path.join(root, file)), { recursive: true });
    writeFileSync(path.join(root, file), text);
  }
  return root;
}

/** Every string in a block, with its dotted path, keys of maps included. */
function strings(value: unknown, p = ''): [string, string][] {
  if (typeof value === 'string') return [[p, value]];
  if (value === null || typeof value !== 'object') return [];
  return Object.entries(value).flatMap(([k, v]) => [
    [`${p}.${k} (key)`, k] as [string, string],
    ...strings(v, `${p}.${k}`),
  ]);
}

const RLO = '\u202e';
const longModel = `AMD EPYC 7763 ${'64-Core Processor '.repeat(60)}`; // ~1,100 characters

describe('probes clean what they read', () => {
  it('a CPU model with a BEL, an RTL override and 1,000 characters, and a hostile os-release', async () => {
    const root = await fakeRoot({
      'proc/cpuinfo': `processor\t: 0\nvendor_id\t: Genuine\u0000Intel\nmodel name\t: ${RLO}Intel(R)\u0007 ${longModel}\nflags\t\t: fpu\n`,
      'etc/os-release': `NAME="Debian\u0085 ${RLO}GNU/Linux"\nVERSION_ID="12\u2066"\n`,
      'proc/sys/kernel/osrelease': `6.1.0-${'x'.repeat(300)}\u001b[31m\n`,
      'sys/devices/system/cpu/vulnerabilities/spectre_v2': `Mitigation: Retpolines${RLO}\n`,
    });
    const m = await probeMachine({ root, platform: 'linux', env: {} });
    expect(m.cpu.model).toMatch(/^Intel\(R\) AMD EPYC 7763 64-Core Processor 64-Core/);
    expect(Array.from(m.cpu.model!)).toHaveLength(TEXT_MAX.cpuModel);
    expect(m.cpu.model!.endsWith('...')).toBe(true);
    expect(m.cpu.vendor).toBe('GenuineIntel');
    expect(m.os.distro).toBe('Debian GNU/Linux');
    expect(m.os.release).toBe('12');
    expect(m.os.kernel).toMatch(/^6\.1\.0-x+\.\.\.$/);
    expect(m.mitigations).toEqual({ spectre_v2: 'Mitigation: Retpolines' });
    for (const [where, s] of strings(m)) expect(findForbiddenChar(s), where).toBeUndefined();
  });

  it('INFO strings from a server: version, os and allocator', () => {
    const s = describeServer(
      parseInfo(
        `redis_version:7.0.15${RLO}\r\nredis_mode:standalone\r\nos:Linux ${'6.1.0 '.repeat(100)}\u0007x86_64\r\nmem_allocator:jemalloc-5.3.0\u2069\r\nmultiplexing_api:epoll\r\narch_bits:sixty${RLO}four\r\n`,
      ),
      null,
    );
    expect(s.version).toBe('7.0.15');
    expect(s.allocator).toBe('jemalloc-5.3.0');
    expect(Array.from(s.os!)).toHaveLength(TEXT_MAX.serverOs);
    expect(s.unknown.archBits).toBe('INFO arch_bits is "sixtyfour", neither 32 nor 64');
    for (const [where, str] of strings(s)) expect(findForbiddenChar(str), where).toBeUndefined();
  });
});
