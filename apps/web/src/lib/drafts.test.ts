import { beforeEach, describe, expect, it } from 'vitest';
import { handOver, readDraft, removeDrafts, takeHandOver, writeDraft } from './drafts';

beforeEach(() => {
  removeDrafts();
  sessionStorage.clear();
});

describe('drafts', () => {
  it('never writes a password to the tab’s storage', () => {
    writeDraft('/users/ann/edit', {
      user: 'admin',
      base: { name: 'ann', password: '', role: 'viewer' },
      mine: { name: 'ann', password: 'secret-typed', role: 'operator' },
    });
    expect(JSON.stringify(sessionStorage)).not.toContain('secret-typed');
    expect(readDraft('/users/ann/edit')).toEqual({
      user: 'admin',
      base: { name: 'ann', role: 'viewer' },
      mine: { name: 'ann', role: 'operator' },
    });
  });

  it('never writes an SNMP community or key either', () => {
    const destination = { host: '192.0.2.1', version: 'v3', user: 'nms' };
    writeDraft('/options#snmp-traps', {
      user: 'admin',
      base: { destinations: [destination] },
      mine: {
        destinations: [
          {
            ...destination,
            community: 'public-typed',
            authKey: 'auth-typed',
            privKey: 'priv-typed',
          },
        ],
      },
    });
    expect(JSON.stringify(sessionStorage)).not.toMatch(/-typed/);
    expect(readDraft('/options#snmp-traps')?.mine).toEqual({ destinations: [destination] });
  });

  it('keeps an emptied number box empty (NaN), not 0 or null', () => {
    writeDraft('/options', { user: 'olga', base: { n: 3 }, mine: { n: Number.NaN } });
    expect(readDraft('/options')?.mine).toEqual({ n: Number.NaN });
  });

  it('drops what someone else typed when another user logs in, and everything on Log out', () => {
    writeDraft('/a', { user: 'olga', base: {}, mine: { x: 1 } });
    writeDraft('/b', { user: 'vera', base: {}, mine: { x: 2 } });
    removeDrafts({ user: 'olga' });
    expect(readDraft('/a')).not.toBeNull();
    expect(readDraft('/b')).toBeNull();
    handOver('/a', { reason: 'stale', what: 'X', user: 'olga', base: {}, mine: {} });
    removeDrafts();
    expect(readDraft('/a')).toBeNull();
    expect(takeHandOver('/a')).toBeNull();
  });
});
