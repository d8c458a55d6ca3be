import { RecordTable } from '@/components/ui/record-table';
import type { PeerNodeGroupView } from '../api/get-peer-node-groups';

export function PeerNodeGroupsList({
  groups,
  selected,
  onSelect,
}: {
  groups: PeerNodeGroupView[];
  selected: string | null;
  onSelect?: (name: string) => void;
}) {
  return (
    <RecordTable
      caption="Peer node groups"
      rows={groups}
      rowKey={(g) => g.name}
      rowLabel={(g) => `peer node group ${g.name}`}
      selected={selected}
      onSelect={onSelect}
      columns={[
        { header: 'Name', cell: (g) => g.name },
        {
          header: 'Members',
          cell: (g) => (
            <span className="members">
              {g.members.map((m) => (
                <code key={m}>{m}</code>
              ))}
            </span>
          ),
        },
      ]}
      empty={
        <p>
          No peer node group. Groups are optional: Peer Node Aware Least Load spreads the
          connections of one group (peers whose source address matches a member) across servers.
        </p>
      }
    />
  );
}
