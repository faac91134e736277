import { describe, expect, it } from 'vitest';
import { ClusterRouting } from '../dist/cluster/routing.js';
import { crc16, KeySlots, KeysBySlot, SLOT_TABLE_MAX_KEYS } from '../dist/cluster/slots.js';
import { clusterRefusal, customTest, findTests, keySlot, parseShards, parseSlots } from '../dist/index.js';

// Pure parts of cluster mode. That slots agree with a real server's CLUSTER KEYSLOT is checked
// in cluster.test.ts; here the algorithm, the tables and the topology parsers.

describe('hash slots', () => {
  it('CRC16 is the XMODEM variant Redis uses (its check value)', () => {
    expect(crc16(Buffer.from('123456789'))).toBe(0x31c3);
  });

  it('hashes only a non-empty hash tag, else the whole key', () => {
    expect(keySlot('{user1000}.following')).toBe(keySlot('user1000'));
    expect(keySlot('foo{bar}{zap}')).toBe(keySlot('bar'));
    expect(keySlot('foo{}{bar}')).toBe(crc16(Buffer.from('foo{}{bar}')) % 16384);
    expect(keySlot('foo{{bar}}zap')).toBe(keySlot('{bar'));
    expect(keySlot('foo{bar')).toBe(crc16(Buffer.from('foo{bar')) % 16384);
  });

  it('a key-space table gives each key number the slot of its full name', () => {
    const prefix = 'rbdb:abcdef:key:';
    const slots = new KeySlots(Buffer.from(prefix), 5000);
    expect(slots.table).not.toBeNull();
    for (const k of [0, 1, 42, 999, 4999])
      expect(slots.slotOf(k)).toBe(keySlot(`${prefix}${String(k).padStart(12, '0')}`));
  });

  it('above the table limit the slot is computed per key, with the same answer', () => {
    const prefix = 'rbdb:abcdef:key:';
    const big = new KeySlots(Buffer.from(prefix), SLOT_TABLE_MAX_KEYS + 1);
    expect(big.table).toBeNull();
    for (const k of [0, 7, 123_456_789, SLOT_TABLE_MAX_KEYS])
      expect(big.slotOf(k)).toBe(keySlot(`${prefix}${String(k).padStart(12, '0')}`));
  });

  it('a hash tag in the prefix puts every key in one slot; an open brace does not', () => {
    const tagged = new KeySlots(Buffer.from('rbdb:abcdef:{u1}:'), 100);
    expect(tagged.table).toBeNull();
    expect(tagged.slotOf(5)).toBe(keySlot('u1'));
    const open = new KeySlots(Buffer.from('rbdb:abcdef:{u1:'), 100);
    expect(open.slotOf(5)).toBe(keySlot('rbdb:abcdef:{u1:000000000005'));
  });

  it('groups key numbers by slot, so a multi-key request can stay in one', () => {
    const slots = new KeySlots(Buffer.from('rbdb:abcdef:key:'), 20_000);
    const groups = new KeysBySlot(slots.table!);
    expect(groups.start[16384]).toBe(20_000);
    const s = slots.slotOf(123);
    const members = Array.from(groups.keys.subarray(groups.start[s], groups.start[s + 1]));
    expect(members).toContain(123);
    for (const k of members) expect(slots.slotOf(k)).toBe(s);
  });
});

describe('which tests cluster mode takes', () => {
  it('takes single-key tests, and MSET (its keys are drawn from one slot)', () => {
    for (const t of findTests(['set', 'get', 'incr', 'lpush', 'sadd', 'hset', 'ping_inline', 'xadd', 'mset']))
      expect(clusterRefusal(t, 1_000_000)).toBeNull();
  });

  it('refuses MSET over a key space too large for a slot table, naming -r', () => {
    expect(clusterRefusal(findTests(['mset'])[0]!, SLOT_TABLE_MAX_KEYS + 1)).toMatch(/-r/);
  });

  it('refuses a custom command whose key placeholders differ, and says how to write it', () => {
    expect(clusterRefusal(customTest(['MSET', 'a:__rand_int__', 'x', 'b:__rand_int__', 'y']), 100)).toMatch(
      /MSET __key__ __data__ __key__ __data__/,
    );
    expect(
      clusterRefusal(customTest(['MSET', '__key__', '__data__', '__key__', '__data__']), 100),
    ).toBeNull();
  });
});

describe('how deep a cluster connection pipelines', () => {
  const plan = {
    primaries: [7000, 7001, 7002, 7003].map((port) => ({ host: '127.0.0.1', port })),
    // The fourth primary serves no slots (just added): it does not count.
    ranges: [
      [0, 5460, 0],
      [5461, 10922, 1],
      [10923, 16383, 2],
    ] as [number, number, number][],
  };
  const factor = (tests: Parameters<typeof findTests>[0] | ReturnType<typeof customTest>, keyspace = 1000) =>
    new ClusterRouting(plan, Array.isArray(tests) ? findTests(tests) : [tests], 'rbdb:abcdef:', keyspace)
      .depthFactor;

  it('P per node socket when requests spread over the primaries (by key or round-robin)', () => {
    expect(factor(['set', 'get'])).toBe(3);
    expect(factor(['mset'])).toBe(3);
    expect(factor(['ping_mbulk'])).toBe(3);
  });

  it('P per connection when every request goes to one node (a fixed key, a hash tag)', () => {
    expect(factor(['lpush'])).toBe(1);
    expect(factor(['sadd'])).toBe(1);
    expect(factor(customTest(['SET', 'user:{1}:__rand_int__', '__data__']))).toBe(1);
    // One key (the suite's GET k1) is one node; two keys reach at most two.
    expect(factor(['get'], 1)).toBe(1);
    expect(factor(['get'], 2)).toBeLessThanOrEqual(2);
  });
});

describe('topology replies', () => {
  const a = 'a'.repeat(40);
  const b = 'b'.repeat(40);
  const c = 'c'.repeat(40);

  it('reads CLUSTER SHARDS: ranges, roles, tls-port, unknown endpoints', () => {
    const reply = [
      [
        'slots',
        [0, 100, 200, 300],
        'nodes',
        [
          [
            'id',
            a,
            'port',
            7000,
            'tls-port',
            7100,
            'ip',
            '127.0.0.1',
            'endpoint',
            '?',
            'role',
            'master',
            'health',
            'online',
          ],
          [
            'id',
            b,
            'port',
            7003,
            'ip',
            '127.0.0.1',
            'endpoint',
            '127.0.0.1',
            'role',
            'replica',
            'health',
            'loading',
          ],
        ],
      ],
      [
        'slots',
        [],
        'nodes',
        [['id', c, 'port', 7001, 'ip', '', 'endpoint', '', 'role', 'master', 'health', 'online']],
      ],
    ];
    const nodes = parseShards(reply, { seedHost: 'seed', tls: true });
    expect(nodes).toEqual([
      {
        id: a,
        role: 'primary',
        host: '127.0.0.1',
        port: 7100,
        primaryId: null,
        slotRanges: [
          [0, 100],
          [200, 300],
        ],
        health: 'online',
      },
      {
        id: b,
        role: 'replica',
        host: '127.0.0.1',
        port: 7003,
        primaryId: a,
        slotRanges: [
          [0, 100],
          [200, 300],
        ],
        health: 'loading',
      },
      { id: c, role: 'primary', host: 'seed', port: 7001, primaryId: null, slotRanges: [], health: 'online' },
    ]);
  });

  it('reads CLUSTER SLOTS: one node per address, with every range it serves', () => {
    const reply = [
      [0, 100, ['127.0.0.1', 7000, a], ['127.0.0.1', 7003, b]],
      [101, 200, ['', 7001, c]],
      [201, 300, ['127.0.0.1', 7000, a], ['127.0.0.1', 7003, b]],
    ];
    const nodes = parseSlots(reply, { seedHost: 'seed' });
    expect(nodes).toEqual([
      {
        id: a,
        role: 'primary',
        host: '127.0.0.1',
        port: 7000,
        primaryId: null,
        slotRanges: [
          [0, 100],
          [201, 300],
        ],
        health: null,
      },
      {
        id: b,
        role: 'replica',
        host: '127.0.0.1',
        port: 7003,
        primaryId: a,
        slotRanges: [
          [0, 100],
          [201, 300],
        ],
        health: null,
      },
      {
        id: c,
        role: 'primary',
        host: 'seed',
        port: 7001,
        primaryId: null,
        slotRanges: [[101, 200]],
        health: null,
      },
    ]);
  });
});
