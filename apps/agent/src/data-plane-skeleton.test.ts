import pino from 'pino';
import { describe, expect, it } from 'vitest';
import { NftPath, renderDue } from './data-plane-skeleton.ts';
import { plan } from './plan-fixtures.ts';

describe('the kernel paths’ shared skeleton', () => {
  it.each([
    { last: 0, now: 100, force: false, due: false },
    { last: 0, now: 250, force: false, due: true },
    { last: 0, now: 100, force: true, due: true },
    { last: 1000, now: 1249, force: false, due: false },
  ])('renders at $now after $last (force: $force): $due', ({ last, now, force, due }) => {
    expect(renderDue(last, now, 250, force)).toBe(due);
  });

  it('renders a change of served TSAs or revision at once, the rest at most every interval', () => {
    let now = 1000;
    const path = new NftPath({
      family: 'inet',
      slot: 'A1',
      log: pino({ level: 'silent' }),
      refreshEveryMs: 500,
      now: () => now,
    });
    expect(path.table).toBe('ipfe_a1');
    const p = plan([]);
    expect(path.serveDue(p, ['192.0.2.1'])).toBe(true);
    now += 100;
    expect(path.serveDue(p, ['192.0.2.1'])).toBe(false);
    expect(path.refreshDue()).toBe(false);
    expect(path.serveDue(p, ['192.0.2.1', '192.0.2.2'])).toBe(true);
    now += 100;
    expect(path.serveDue(plan([], { revision: 2 }), ['192.0.2.1', '192.0.2.2'])).toBe(true);
    now += 500;
    expect(path.refreshDue()).toBe(true);
    expect(path.refreshDue()).toBe(false);
  });

  it('listens on what the plan wants while nft takes the rules', () => {
    const path = new NftPath({
      family: 'netdev',
      slot: 'B2',
      log: pino({ level: 'silent' }),
      refreshEveryMs: 250,
      now: () => 0,
    });
    path.want([{ tsa: '192.0.2.1', port: 80, targetSet: 1 }]);
    expect(path.listening()).toEqual([{ tsa: '192.0.2.1', port: 80, targetSet: 1 }]);
    expect(path.rulesError()).toBeNull();
  });
});
