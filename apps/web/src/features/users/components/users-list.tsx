import { RecordTable } from '@/components/ui/record-table';
import { clock } from '@/lib/time';
import type { User } from '../api/get-users';

const when = (iso: string) => <time dateTime={iso}>{clock(iso)}</time>;

export function UsersList({
  users,
  selected,
  onSelect,
}: {
  users: User[];
  selected: string | null;
  onSelect: (name: string) => void;
}) {
  return (
    <RecordTable
      caption="Users"
      rows={users}
      rowKey={(u) => u.name}
      rowLabel={(u) => `user ${u.name}`}
      selected={selected}
      onSelect={onSelect}
      columns={[
        { header: 'Name', cell: (u) => u.name },
        { header: 'Role', cell: (u) => u.role },
        { header: 'Created', cell: (u) => when(u.createdAt) },
        { header: 'Last changed', cell: (u) => when(u.updatedAt) },
      ]}
      empty={<p>No user.</p>}
    />
  );
}
