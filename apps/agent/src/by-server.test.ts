import { describe, expect, it } from 'vitest';
import { ByServer } from './by-server.ts';

describe('values per planned server', () => {
  it('keeps a value per TSA and server, apart for the same server behind two TSAs', () => {
    const counts = new ByServer<number>()
      .set('192.0.2.1', '10.1.0.1', 3)
      .set('192.0.2.2', '10.1.0.1', 5)
      .set('192.0.2.1', '10.1.0.2', 7);
    expect(counts.get('192.0.2.1', '10.1.0.1')).toBe(3);
    expect(counts.get('192.0.2.2', '10.1.0.1')).toBe(5);
    expect(counts.get('192.0.2.2', '10.1.0.2')).toBeUndefined();
    expect([...counts.entries()]).toEqual([
      ['192.0.2.1', '10.1.0.1', 3],
      ['192.0.2.1', '10.1.0.2', 7],
      ['192.0.2.2', '10.1.0.1', 5],
    ]);
  });

  it('maps every value with its keys', () => {
    const counts = new ByServer<number>().set('192.0.2.1', '10.1.0.1', 3);
    expect([...counts.map((n, tsa, server) => `${tsa} ${server} ${n * 2}`).entries()]).toEqual([
      ['192.0.2.1', '10.1.0.1', '192.0.2.1 10.1.0.1 6'],
    ]);
  });
});
