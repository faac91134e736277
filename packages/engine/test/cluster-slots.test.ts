import { describe, expect, it } from 'vitest';
import { PendingPool } from '../dist/cluster/pending-pool.js';
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

describe('a node’s pending pool', () => {
  it('is FIFO across wrap-around, reading entries in place from head', () => {
    // Room for 12 (its storage is 16 entries): push and drop in uneven steps so the ring wraps often.
    const pool = new PendingPool(12, true);
    let next = 0;
    let expected = 0;
    for (let round = 0; round < 20; round++) {
      while (pool.length < 12) {
        pool.push(next % 7, next, (next * 37) % 16384, next + 0.5);
        next++;
      }
      const take = 5 + (round % 7);
      for (let j = 0, e = pool.head; j < take; j++, e = (e + 1) & pool.mask) {
        expect([pool.templates[e], pool.keys[e], pool.slots[e], pool.intended![e]]).toEqual([
          expected % 7,
          expected,
          (expected * 37) % 16384,
          expected + 0.5,
        ]);
        expected++;
      }
      pool.drop(take);
      expect(pool.length).toBe(12 - take);
    }
    pool.clear();
    expect(pool.length).toBe(0);
  });

  it('keeps slot -1 (a keyless request, sent round-robin), and no intended times in the closed loop', () => {
    const pool = new PendingPool(4, false);
    pool.push(2, 0, -1, 123);
    expect(pool.slots[pool.head]).toBe(-1);
    expect(pool.intended).toBeNull();
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
