import { screen, within } from '@testing-library/react';
import { describe, expect, it } from 'vitest';
import { AlarmsList } from '@/features/alarms/components/alarms-list';
import { AuditLog } from '@/features/audit/components/audit-log';
import { RevisionsList } from '@/features/revisions/components/revisions-list';
import { UsersList } from '@/features/users/components/users-list';
import { renderWithRouter } from '@/testing/render';

const AT = '2026-03-04T05:06:07.000Z';

/** The text of the cell in `column` of the table's first body row. */
function cell(table: string, column: string) {
  const grid = screen.getByRole('table', { name: table });
  const headers = within(grid)
    .getAllByRole('columnheader')
    .map((h) => h.textContent);
  const row = within(grid).getAllByRole('row')[1]!;
  return row.children[headers.indexOf(column)]!.textContent;
}

describe('dates and times', () => {
  it('read the same on Alarms, Revisions, Users and the Audit log', () => {
    renderWithRouter(
      <>
        <AlarmsList
          alarms={{
            active: [
              {
                id: 1,
                slot: 'A1',
                code: 5012,
                name: 'Mate Heartbeat Timeout',
                severity: 'major',
                targetSet: null,
                server: null,
                text: 'No beacon from IPFE A2 for 3000 ms',
                raisedAt: AT,
                clearedAt: null,
              },
            ],
            history: [],
          }}
          targetSets={[]}
          filter={{ targetSet: null, severity: null }}
          onFilter={() => {}}
          now={Date.parse(AT)}
        />
        <RevisionsList
          revisions={[
            { number: 1, author: 'ada', createdAt: AT, summary: 'x', sha256: 'a'.repeat(64) },
          ]}
        />
        <UsersList
          users={[{ name: 'ada', role: 'admin', createdAt: AT, updatedAt: AT }]}
          selected={null}
          onSelect={() => {}}
        />
        <AuditLog
          entries={[
            {
              id: 1,
              at: AT,
              user: 'ada',
              address: '127.0.0.1',
              action: 'login',
              target: '/api/session',
              status: 200,
              detail: null,
            },
          ]}
        />
      </>,
    );
    const shown = [
      cell('Active alarms', 'Raised'),
      cell('Configuration revisions, newest first', 'Time'),
      cell('Users', 'Created'),
      cell('Users', 'Last changed'),
      cell('Audit log, newest first', 'Time'),
    ];
    expect(shown[0]).toMatch(/^2026-03-0[34] \d\d:\d\d:07$/);
    expect(new Set(shown)).toEqual(new Set([shown[0]]));
  });
});
