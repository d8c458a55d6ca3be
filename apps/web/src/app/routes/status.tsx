import { IPFE_SLOTS } from '@ipfe/schema';
import { Link } from 'react-router';
import { Alert } from '@/components/ui/alert';
import { Loading, Page } from '@/components/ui/page';
import { useAppServers } from '@/features/app-servers/api/get-app-servers';
import { useAgentStatuses } from '@/features/ipfe-status/api/get-agent-status';
import { LIVE_INTERVAL_MS, useIpfe } from '@/features/ipfe-status/api/get-ipfe';
import { BgpStatus } from '@/features/ipfe-status/components/bgp-status';
import { IpfeTable } from '@/features/ipfe-status/components/ipfe-table';
import { ownerOf } from '@/features/ipfe-status/components/sync-state';
import { TargetSetStatus } from '@/features/ipfe-status/components/target-set-status';
import { useOams } from '@/features/oams/api/get-oams';
import { OamTable } from '@/features/oams/components/oam-table';
import { useOptions } from '@/features/options/api/get-options';
import { useTargetSets } from '@/features/target-sets/api/get-target-sets';
import { clock } from '@/lib/time';

/**
 * IPFE › Status & Manage: per IPFE the push state and what it serves, per Target Set the live
 * figures of the IPFE serving it, refreshed every LIVE_INTERVAL_MS.
 */
export function StatusRoute() {
  const ipfe = useIpfe();
  const targetSets = useTargetSets({ live: true });
  const servers = useAppServers();
  const options = useOptions();
  const oams = useOams();
  const slots = ipfe.data?.items ?? [];
  const configured = IPFE_SLOTS.filter((s) => slots.find((v) => v.slot === s)?.configured);
  const { statuses } = useAgentStatuses(configured);
  const labels = new Map(
    (servers.data ?? []).flatMap((s) => s.addresses.map((a) => [a, s.name] as const)),
  );
  const activeAlarms = slots.reduce((n, s) => n + s.alarms.length, 0);
  // Decision 018: shown once BGP is configured, or an agent reports it.
  const showBgp =
    Boolean(options.data?.data.bgp) || [...statuses.values()].some((status) => status?.bgp);
  const error = ipfe.error ?? targetSets.error;
  const now = Date.now();
  return (
    <Page
      trail={['IPFE']}
      title="Status & Manage"
      toolbar={
        <p className="live-note">
          Live, refreshed every {LIVE_INTERVAL_MS / 1000} s
          {ipfe.dataUpdatedAt > 0 && (
            <> · read {clock(new Date(ipfe.dataUpdatedAt).toISOString())}</>
          )}
          {ipfe.data && (
            <>
              {' · '}latest revision <strong>r{ipfe.data.latestRevision}</strong>
              {' · '}
              <Link to="/alarms">
                {activeAlarms === 1 ? '1 active alarm' : `${activeAlarms} active alarms`}
              </Link>
            </>
          )}
        </p>
      }
    >
      {error && <Alert tone="error" title={error.message} />}
      <section className="status-block" aria-labelledby="status-ipfe">
        <h2 id="status-ipfe" className="block-title">
          IPFE nodes
        </h2>
        {ipfe.data ? (
          <IpfeTable slots={slots} now={now} />
        ) : (
          !ipfe.isError && <Loading what="the IPFE status" />
        )}
      </section>
      {showBgp && (
        <section className="status-block" aria-labelledby="status-bgp">
          <h2 id="status-bgp" className="block-title">
            BGP
          </h2>
          <BgpStatus slots={configured} statuses={statuses} />
        </section>
      )}
      <section className="status-block" aria-labelledby="status-oam">
        <h2 id="status-oam" className="block-title">
          OAM servers
        </h2>
        {oams.data ? (
          <OamTable oams={oams.data} now={now} />
        ) : oams.isError ? (
          <Alert tone="error" title={oams.error.message} />
        ) : (
          <Loading what="the OAM servers" />
        )}
      </section>
      <section className="status-block" aria-labelledby="status-ts">
        <h2 id="status-ts" className="block-title">
          Target Sets
        </h2>
        {!targetSets.data ? (
          !targetSets.isError && <Loading what="Target Sets" />
        ) : targetSets.data.length === 0 ? (
          <div className="empty">
            No Target Set yet: insert one under{' '}
            <Link to="/target-sets">IPFE › Configuration › Target Sets</Link>.
          </div>
        ) : (
          targetSets.data.map((ts) => {
            const owner = ts.disabled ? null : ownerOf(slots, ts.primary.address);
            const live =
              (owner && statuses.get(owner)?.targetSets.find((t) => t.number === ts.number)) ||
              null;
            return (
              <TargetSetStatus
                key={ts.number}
                ts={{ ...ts, owner, activeBindings: live?.activeBindings ?? null }}
                live={live}
                labels={labels}
                leastLoadThreshold={options.data?.data.leastLoadThreshold ?? 0}
              />
            );
          })
        )}
      </section>
    </Page>
  );
}
