import { describe, expect, it } from 'vitest';
import { defaultDatabasePath } from '../src/index.js';

describe('defaultDatabasePath', () => {
  it('prefers $REDIS_BENCHDB_DB, then $XDG_DATA_HOME, then ~/.local/share', () => {
    expect(defaultDatabasePath({ REDIS_BENCHDB_DB: 'x.sqlite', XDG_DATA_HOME: '/data' }, '/home/u')).toBe(
      'x.sqlite',
    );
    expect(defaultDatabasePath({ XDG_DATA_HOME: '/data' }, '/home/u')).toBe(
      '/data/redis-benchdb/benchdb.sqlite',
    );
    expect(defaultDatabasePath({}, '/home/u')).toBe('/home/u/.local/share/redis-benchdb/benchdb.sqlite');
  });

  it('treats empty and relative XDG_DATA_HOME as unset, as the spec says', () => {
    const fallback = '/home/u/.local/share/redis-benchdb/benchdb.sqlite';
    expect(defaultDatabasePath({ REDIS_BENCHDB_DB: '', XDG_DATA_HOME: '' }, '/home/u')).toBe(fallback);
    expect(defaultDatabasePath({ XDG_DATA_HOME: 'rel/dir' }, '/home/u')).toBe(fallback);
  });
});
