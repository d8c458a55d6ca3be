import { RecordTable } from '@/components/ui/record-table';
import type { AppServerView } from '../api/get-app-servers';

export const formatRange = (range: { start: number; end: number } | null | undefined) =>
  range ? `${range.start}–${range.end}` : '—';

export function AppServersList({
  servers,
  selected,
  onSelect,
}: {
  servers: AppServerView[];
  selected: string | null;
  onSelect?: (name: string) => void;
}) {
  return (
    <RecordTable
      caption="Application servers"
      rows={servers}
      rowKey={(s) => s.name}
      rowLabel={(s) => `application server ${s.name}`}
      selected={selected}
      onSelect={onSelect}
      columns={[
        { header: 'Name', cell: (s) => s.name },
        { header: 'Address', cell: (s) => <code>{s.addresses[0]}</code> },
        {
          header: 'Secondary address',
          cell: (s) => (s.addresses[1] ? <code>{s.addresses[1]}</code> : '—'),
        },
        {
          header: 'Initiator Port Range',
          cell: (s) => formatRange(s.initiatorPortRange),
          className: 'num',
        },
      ]}
      empty={
        <p>
          No application server yet. Insert the servers (DA-MPs) that Target Sets spread connections
          over; each address must lie on an XSI network.
        </p>
      }
    />
  );
}
