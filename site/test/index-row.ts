import type { IndexRow } from '../src/lib/lists/filters.js';

/** A results-index row for the lists' logic tests: a signed quick run with no figures, changed by `o`. */
export const indexRow = (o: Partial<IndexRow>): IndexRow => ({
  id: 'f'.repeat(64),
  kind: 'signed',
  receivedAt: '2026-01-01T00:00:00Z',
  machine: 'amd-epyc-0a1b2c3d',
  machineLabel: 'AMD EPYC · fam 25 mod 1 · L1d 32 KiB · L2 512 KiB · 2 vCPU · KVM',
  virt: 'vm',
  product: 'redis',
  version: '7.2.4',
  allocator: 'jemalloc-5.3.0',
  link: 'tcp-loopback',
  profile: 'quick',
  warnings: 0,
  cells: 30,
  date: '2026-01-01T00:00:00Z',
  tests: null,
  getOps: null,
  getP99Us: null,
  setOps: null,
  setP99Us: null,
  firstOps: null,
  ...o,
});
