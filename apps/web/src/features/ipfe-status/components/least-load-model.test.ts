import { describe, expect, it } from 'vitest';
import { liveServer } from '@/testing/fixtures';
import { leastLoadPicture } from './least-load-model';

const verdicts = (p: ReturnType<typeof leastLoadPicture>) =>
  Object.fromEntries(p.servers.map((s) => [s.address, s.verdict]));

describe('the Least Load picture', () => {
  it('puts the servers within the allowed deviation of the lowest L in the band', () => {
    const picture = leastLoadPicture(
      [
        liveServer('s1', { load: 10 }),
        liveServer('s2', { load: 14 }),
        liveServer('s3', { load: 15.5 }),
        liveServer('s4', { load: 12 }),
      ],
      5,
    );
    expect(picture.lowest).toBe(10);
    expect(picture.bandTop).toBe(15);
    expect(verdicts(picture)).toEqual({ s1: 'band', s2: 'band', s3: 'above', s4: 'band' });
    expect(picture.summary).toMatch(/^3 servers within 5 points of the lowest L share/);
  });

  it('gives every new connection to the least loaded when the runner-up is a deviation or more above', () => {
    const picture = leastLoadPicture(
      [
        liveServer('s1', { load: 20 }),
        liveServer('s2', { load: 10 }),
        liveServer('s3', { load: 15 }),
      ],
      5,
    );
    expect(verdicts(picture)).toEqual({ s1: 'above', s2: 'least', s3: 'above' });
    expect(picture.summary).toBe('s2 is the least loaded and takes every new connection.');
  });

  it('excludes weight 0 and refusing states, and says why, without letting them set the lowest L', () => {
    const picture = leastLoadPicture(
      [
        liveServer('s1', { load: 1, weight: 0 }),
        liveServer('s2', { load: 2, state: 'offline' }),
        liveServer('s3', { load: 3, state: 'stressed' }),
        liveServer('s4', { load: 30 }),
        liveServer('s5', { load: 33, state: 'burdened' }),
      ],
      5,
    );
    expect(picture.lowest).toBe(30);
    expect(verdicts(picture)).toEqual({
      s1: 'excluded',
      s2: 'excluded',
      s3: 'excluded',
      s4: 'band',
      s5: 'band',
    });
    const reasons = Object.fromEntries(picture.servers.map((s) => [s.address, s.reason]));
    expect(reasons.s1).toMatch(/^weight 0/);
    expect(reasons.s2).toBe('offline: refuses new connections');
    expect(reasons.s3).toBe('stressed: only if no other server can take it');
  });

  it('falls back to stressed servers when no other can take a connection', () => {
    const picture = leastLoadPicture(
      [
        liveServer('s1', { load: 80, state: 'stressed' }),
        liveServer('s2', { load: 82, state: 'stressed' }),
        liveServer('s3', { load: 10, state: 'overloaded' }),
      ],
      5,
    );
    expect(verdicts(picture)).toEqual({ s1: 'last-resort', s2: 'last-resort', s3: 'excluded' });
    expect(picture.summary).toMatch(/Only stressed servers are left\.$/);
  });

  it('says so when no server can take a new connection', () => {
    const picture = leastLoadPicture([liveServer('s1', { state: 'initializing', load: null })], 5);
    expect(picture.lowest).toBeNull();
    expect(picture.summary).toBe(
      'No server can take a new connection: new connections are refused.',
    );
  });

  it('with a deviation of 0 picks the least loaded alone, as the engine does', () => {
    const picture = leastLoadPicture(
      [liveServer('s1', { load: 5 }), liveServer('s2', { load: 5 })],
      0,
    );
    expect(verdicts(picture)).toEqual({ s1: 'least', s2: 'above' });
  });
});
