import { useSearchParams } from 'react-router';
import { Alert } from '@/components/ui/alert';
import { Loading, Page } from '@/components/ui/page';
import { useAlarms } from '@/features/alarms/api/get-alarms';
import { AlarmsList, type AlarmFilter } from '@/features/alarms/components/alarms-list';
import { useTargetSets } from '@/features/target-sets/api/get-target-sets';

/** IPFE › Alarms: active first, then history; the filter lives in the address (?ts=&severity=). */
export function AlarmsRoute() {
  const alarms = useAlarms();
  const targetSets = useTargetSets();
  const [params, setParams] = useSearchParams();
  const ts = Number(params.get('ts'));
  const filter: AlarmFilter = {
    targetSet: Number.isInteger(ts) && ts > 0 ? ts : null,
    severity: params.get('severity') || null,
  };
  const onFilter = (next: AlarmFilter) => {
    const search = new URLSearchParams();
    if (next.targetSet !== null) search.set('ts', String(next.targetSet));
    if (next.severity !== null) search.set('severity', next.severity);
    setParams(search, { replace: true });
  };
  return (
    <Page trail={['IPFE']} title="Alarms">
      {alarms.isError && <Alert tone="error" title={alarms.error.message} />}
      {alarms.data ? (
        <AlarmsList
          alarms={alarms.data}
          targetSets={(targetSets.data ?? []).map((t) => t.number)}
          filter={filter}
          onFilter={onFilter}
          now={Date.now()}
        />
      ) : (
        !alarms.isError && <Loading what="alarms" />
      )}
    </Page>
  );
}
