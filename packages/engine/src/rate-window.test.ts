import { describe, expect, it } from 'vitest';
import { RateWindow } from './rate-window.ts';

describe('RateWindow', () => {
  it('counts the events of the last second per index', () => {
    const w = new RateWindow(4);
    w.advance(10_000);
    w.add(1);
    w.add(1);
    w.advance(10_500);
    w.add(1);
    w.add(2);
    expect(w.count(1)).toBe(3);
    expect(w.count(2)).toBe(1);
    expect(w.count(0)).toBe(0);
  });

  it('forgets events once they are a second old', () => {
    const w = new RateWindow(2);
    w.advance(10_000);
    w.add(0);
    w.advance(10_950);
    w.add(0);
    expect(w.count(0)).toBe(2);
    w.advance(11_000); // the 10.0 s slot leaves the window
    expect(w.count(0)).toBe(1);
    w.advance(11_950);
    expect(w.count(0)).toBe(0);
  });

  it('clears everything after a long jump and ignores time going backwards', () => {
    const w = new RateWindow(2);
    w.advance(1000);
    w.add(1);
    w.advance(500);
    w.add(1);
    expect(w.count(1)).toBe(2);
    w.advance(1_000_000);
    expect(w.count(1)).toBe(0);
  });

  it('grows to new indices without losing counts', () => {
    const w = new RateWindow(1);
    w.advance(0);
    w.add(0);
    w.ensure(100);
    w.add(99);
    expect(w.count(0)).toBe(1);
    expect(w.count(99)).toBe(1);
  });
});
