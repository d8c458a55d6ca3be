import { RecordTable } from '@/components/ui/record-table';
import type { XsiNetworkView } from '../api/get-xsi-networks';

export function XsiNetworksList({
  networks,
  selected,
  onSelect,
}: {
  networks: XsiNetworkView[];
  selected: string | null;
  onSelect?: (name: string) => void;
}) {
  return (
    <RecordTable
      caption="XSI networks"
      rows={networks}
      rowKey={(n) => n.name}
      rowLabel={(n) => `XSI network ${n.name}`}
      selected={selected}
      onSelect={onSelect}
      columns={[
        { header: 'Name', cell: (n) => n.name },
        { header: 'Network (CIDR)', cell: (n) => <code>{n.cidr}</code> },
      ]}
      empty={
        <p>
          No XSI network yet. Every Target Set address and every application server address must lie
          on an XSI network: insert one first.
        </p>
      }
    />
  );
}
