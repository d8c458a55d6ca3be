import { IPFE_SLOTS, servesThrough, type IpfeSlot } from '@ipfe/schema';
import { useState } from 'react';
import { Alert } from '@/components/ui/alert';
import { Loading, Page } from '@/components/ui/page';
import { OptionsForm } from '@/features/options/components/options-form';
import { useOptions } from '@/features/options/api/get-options';
import { useSnmpTraps } from '@/features/options/api/snmp-traps';
import { SnmpTrapsForm } from '@/features/options/components/snmp-traps-form';
import { useTargetSets } from '@/features/target-sets/api/get-target-sets';
import { canEdit, useUser } from '@/lib/auth';

export function OptionsRoute() {
  const options = useOptions();
  const targetSets = useTargetSets();
  const { data: user } = useUser();
  const [version, setVersion] = useState(0);
  const readOnly = !canEdit(user);
  const snmpTraps = useSnmpTraps();
  const [trapsVersion, setTrapsVersion] = useState(0);

  let body;
  if (options.isError || targetSets.isError) {
    body = <Alert tone="error" title={(options.error ?? targetSets.error)!.message} />;
  } else if (!options.data || !targetSets.data) {
    body = <Loading what="the options" />;
  } else {
    const locked: Partial<Record<IpfeSlot, number[]>> = {};
    for (const slot of IPFE_SLOTS) {
      const users = targetSets.data.filter((ts) => servesThrough(ts, slot)).map((ts) => ts.number);
      if (users.length > 0) locked[slot] = users;
    }
    body = (
      <OptionsForm
        key={version}
        options={options.data.data}
        etag={options.data.etag}
        readOnly={readOnly}
        lockedSlots={locked}
        onReload={() => void options.refetch().then(() => setVersion((v) => v + 1))}
      />
    );
  }
  return (
    <Page trail={['IPFE', 'Configuration']} title="Options">
      {readOnly && (
        <p className="page-note">Read-only: your role may view the options but not change them.</p>
      )}
      {body}
      {snmpTraps.isError && <Alert tone="error" title={snmpTraps.error.message} />}
      {snmpTraps.data && (
        <SnmpTrapsForm
          key={`snmp-traps-${trapsVersion}`}
          view={snmpTraps.data.data}
          etag={snmpTraps.data.etag}
          readOnly={user?.role !== 'admin'}
          onReload={() => void snmpTraps.refetch().then(() => setTrapsVersion((v) => v + 1))}
        />
      )}
    </Page>
  );
}
