import { screen, within } from '@testing-library/react';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { installFakeApi } from '@/testing/fake-api';
import { renderApp } from '@/testing/render';
import type { AlarmRecord } from '../api/get-alarms';

afterEach(() => vi.unstubAllGlobals());

const alarm = (change: Partial<AlarmRecord>): AlarmRecord => ({
  id: 1,
  slot: 'A1',
  code: 5001,
  name: 'Backend Unavailable',
  severity: 'major',
  targetSet: 1,
  server: '192.168.10.11',
  text: 'Server 192.168.10.11 is offline',
  raisedAt: '2026-01-01T10:00:00.000Z',
  clearedAt: null,
  ...change,
});

const alarms = {
  active: [
    alarm({ id: 7, code: 5001, severity: 'minor', targetSet: 2, text: 'minor one' }),
    alarm({
      id: 9,
      slot: 'A2',
      code: 5012,
      name: 'Mate Heartbeat Timeout',
      severity: 'major',
      targetSet: null,
      server: null,
      text: 'No beacon from IPFE A1 for 3000 ms',
    }),
    alarm({ id: 8, code: 5009, name: 'No Available Servers in Target Set', severity: 'critical' }),
  ],
  history: [
    alarm({
      id: 5,
      code: 5012,
      severity: 'major',
      targetSet: null,
      clearedAt: '2026-01-01T10:00:42.000Z',
    }),
    alarm({
      id: 4,
      code: 5001,
      severity: 'minor',
      targetSet: 2,
      clearedAt: '2026-01-01T09:00:00.000Z',
    }),
  ],
};

const table = (name: string) => screen.getByRole('table', { name });
const codes = (name: string) =>
  within(table(name))
    .getAllByRole('row')
    .slice(1)
    .map((r) => within(r).getByRole('rowheader').textContent);

describe('the Alarms page', () => {
  it('lists the active alarms first, worst first, then the cleared ones', async () => {
    installFakeApi({ alarms });
    renderApp('/alarms');
    expect(await screen.findByRole('heading', { name: 'Active alarms (3)' })).toBeInTheDocument();
    expect(codes('Active alarms')).toEqual([
      '5009 No Available Servers in Target Set',
      '5012 Mate Heartbeat Timeout',
      '5001 Backend Unavailable',
    ]);
    const headings = screen.getAllByRole('heading', { level: 2 }).map((h) => h.textContent);
    expect(headings).toEqual(['Active alarms (3)', 'History (2)']);
    const cleared = within(table('Alarm history')).getAllByRole('row')[1]!;
    expect(cleared).toHaveTextContent('42 s');
  });

  it('filters both lists by Target Set and by severity, and keeps the filter in the address', async () => {
    installFakeApi({ alarms });
    const { user, router } = renderApp('/alarms');
    await user.selectOptions(await screen.findByLabelText('Target Set'), 'Target Set 2');
    expect(codes('Active alarms')).toEqual(['5001 Backend Unavailable']);
    expect(codes('Alarm history')).toEqual(['5001 Backend Unavailable']);
    expect(router.state.location.search).toBe('?ts=2');
    await user.selectOptions(screen.getByLabelText('Severity'), 'major');
    expect(screen.getByText('No active alarm matches the filter.')).toBeInTheDocument();
    expect(screen.getByText('0 active, 0 cleared (filtered)')).toBeInTheDocument();
    await user.click(screen.getByRole('button', { name: 'Show all' }));
    expect(codes('Active alarms')).toHaveLength(3);
  });

  it('opens with a filter from the address', async () => {
    installFakeApi({ alarms });
    renderApp('/alarms?severity=major');
    expect(await screen.findByRole('heading', { name: 'Active alarms (1)' })).toBeInTheDocument();
    expect(screen.getByLabelText('Severity')).toHaveValue('major');
  });
});
