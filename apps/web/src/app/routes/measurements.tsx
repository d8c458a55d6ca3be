import { Link } from 'react-router';
import { Alert } from '@/components/ui/alert';
import { Loading, Page } from '@/components/ui/page';
import { useAppServers } from '@/features/app-servers/api/get-app-servers';
import {
  MEASUREMENTS_INTERVAL_MS,
  useMeasurements,
} from '@/features/measurements/api/get-measurements';
import { TargetSetMeasurements } from '@/features/measurements/components/target-set-measurements';

/**
 * IPFE › Measurements: the source product's measurements by its names, per Target Set and per
 * server, summed over the IPFEs: the last hour as charts of rates, the totals in the table beside.
 */
export function MeasurementsRoute() {
  const measurements = useMeasurements();
  const servers = useAppServers();
  const labels = new Map(
    (servers.data ?? []).flatMap((s) => s.addresses.map((a) => [a, s.name] as const)),
  );
  const view = measurements.data;
  const now = measurements.dataUpdatedAt || Date.now();
  return (
    <Page
      trail={['IPFE']}
      title="Measurements"
      toolbar={
        <p className="live-note">
          Summed over the IPFEs, refreshed every {MEASUREMENTS_INTERVAL_MS / 1000} s
        </p>
      }
    >
      {measurements.isError && <Alert tone="error" title={measurements.error.message} />}
      {!view ? (
        !measurements.isError && <Loading what="measurements" />
      ) : (
        <>
          {!view.accounting && (
            <Alert tone="warning" title="Accounting is off">
              Packet and byte measurements stand still while <Link to="/options">Options</Link> ›
              Accounting is off; refusals (TxReject) are still counted.
            </Alert>
          )}
          {view.reporting.length === 0 && (
            <Alert tone="info" title="No IPFE reports measurements now">
              Every measurement reads “not counted” until an agent reports them.
            </Alert>
          )}
          <p className="section-text">
            Rates per second of the last {Math.round(view.windowSeconds / 60)} minutes, one point
            per {view.stepSeconds} s; totals since each agent started. “Not counted”: no IPFE’s data
            path counts it.
          </p>
          {view.targetSets.length === 0 && <p>No Target Set is configured.</p>}
          {view.targetSets.map((ts) => (
            <TargetSetMeasurements
              key={ts.number}
              ts={ts}
              labels={labels}
              now={now}
              windowSeconds={view.windowSeconds}
              stepSeconds={view.stepSeconds}
            />
          ))}
        </>
      )}
    </Page>
  );
}
