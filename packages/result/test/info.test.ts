import { describe, expect, it } from 'vitest';
import { parseInfo } from '../src/info.js';

describe('parseInfo', () => {
  it('keeps each name:value line, skips section headers and blank lines, keeps colons in values', () => {
    const text =
      '# Server\r\nredis_version:7.2.5\r\nexecutable:/usr/bin/redis-server\r\n\r\n# Keyspace\r\ndb0:keys=3,expires=0\r\nlistener0:name=tcp,bind=::1,port=6379\r\n';
    expect(parseInfo(text)).toEqual({
      redis_version: '7.2.5',
      executable: '/usr/bin/redis-server',
      db0: 'keys=3,expires=0',
      listener0: 'name=tcp,bind=::1,port=6379',
    });
  });

  it('ignores a line without a name', () => {
    expect(parseInfo(':orphan\nno colon here\nrole:master')).toEqual({ role: 'master' });
  });
});
