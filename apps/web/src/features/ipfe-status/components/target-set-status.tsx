import { slotLabel, type AgentStatus, type DerivedTargetSet, type IpfeSlot } from '@ipfe/schema';
import { useId } from 'react';
import { ConnectionsChart } from './connections-chart';
import { LeastLoadChart } from './least-load-chart';
import { formatLoad, leastLoadPicture, VERDICT_WORDS, type Verdict } from './least-load-model';

export type LiveTargetSet = AgentStatus['targetSets'][number];

/** A Target Set as GET /api/target-sets answers it, live fields included. */
export type TargetSetWithLive = DerivedTargetSet & {
  owner?: IpfeSlot | null;
  activeBindings?: { available: number; total: number } | null;
  /** Why no IPFE serves it now, as the agents report; null when one does or nobody reported. */
  notServed?: string | null;
};

const STATE_TONE: Record<string, string> = {
  underused: 'ok',
  normal: 'ok',
  burdened: 'ok',
  stressed: 'warn',
  overloaded: 'warn',
  halting: 'error',
  offline: 'error',
  initializing: 'warn',
};

const VERDICT_TONE: Record<Verdict, string> = {
  band: 'ok',
  least: 'ok',
  'last-resort': 'warn',
  above: 'off',
  excluded: 'error',
};

/**
 * One Target Set on the Status page: who serves it, its active bindings, and per server the
 * state, load L, new connections per second and open connections as the serving IPFE reports
 * them, with a chart of open connections; for Least Load, the Least Load picture.
 */
export function TargetSetStatus({
  ts,
  live,
  labels,
  leastLoadThreshold,
}: {
  ts: TargetSetWithLive;
  /** The serving IPFE's view of this Target Set (null: nobody reports it). */
  live: LiveTargetSet | null;
  /** Application server names by address. */
  labels: Map<string, string>;
  leastLoadThreshold: number;
}) {
  const id = useId();
  const owner = ts.owner ?? null;
  const bindings = ts.activeBindings ?? live?.activeBindings ?? null;
  const liveOf = (address: string) => live?.servers.find((s) => s.address === address) ?? null;
  const name = (address: string) => labels.get(address);
  const algorithm = ts.algorithm === 'hash' ? 'Hash' : 'Least Load';
  const title = `Target Set ${ts.number}`;
  return (
    <section className="section ts-status" aria-labelledby={`${id}-h`}>
      <div className="section-head">
        <h3 id={`${id}-h`}>
          {title} <code>{ts.primary.address}</code>
        </h3>
        <span className="section-note">
          {algorithm}
          {ts.algorithm === 'leastLoad' &&
            ` · deviation ${ts.leastLoad.allowedDeviation} · Fm/Fc ${ts.leastLoad.mpsFactor}/${ts.leastLoad.connectionCountFactor}`}
        </span>
        <span className="ts-facts">
          <span>
            Owner{' '}
            {ts.disabled ? (
              <span className="state state-off">disabled: nobody</span>
            ) : owner ? (
              <strong>IPFE-{owner}</strong>
            ) : (
              <span className="state state-error">none</span>
            )}
            {ts.serving === 'activeActive' && (
              <span className="state">
                {' '}
                active-active: {(ts.activeActiveIpfes ?? []).map(slotLabel).join(', ')}
              </span>
            )}
            {ts.serving !== 'activeActive' && owner && owner !== ts.primary.activeIpfe && (
              <span className="state state-warn">
                {' '}
                standby serving (active IPFE-{ts.primary.activeIpfe})
              </span>
            )}
          </span>
          <span>
            Active bindings{' '}
            <strong>
              {bindings ? `${bindings.available}/${bindings.total}` : `—/${ts.servers.length}`}
            </strong>
          </span>
        </span>
      </div>
      {!ts.disabled && ts.notServed && (
        <p className="section-text state-error">Not served: {ts.notServed}</p>
      )}
      {!live && !(!ts.disabled && ts.notServed) && (
        <p className="section-text">
          {ts.disabled
            ? 'This Target Set is disabled: no IPFE serves it.'
            : 'No IPFE reports this Target Set now: live figures are unknown.'}
        </p>
      )}
      <div className="ts-status-body">
        <table className="grid-table server-status-table">
          <caption className="visually-hidden">Servers of {title}</caption>
          <thead>
            <tr>
              <th scope="col">Server</th>
              <th scope="col" className="num">
                Weight
              </th>
              <th scope="col">State</th>
              <th scope="col" className="num">
                Load L
              </th>
              <th scope="col" className="num">
                New/s
              </th>
              <th scope="col" className="num">
                Open connections
              </th>
            </tr>
          </thead>
          <tbody>
            {ts.servers.map((s) => {
              const l = liveOf(s.address);
              return (
                <tr key={s.address}>
                  <th scope="row">
                    <code>{s.address}</code>
                    {name(s.address) && <span className="sub-inline"> {name(s.address)}</span>}
                  </th>
                  <td className="num">{l?.weight ?? s.weight}</td>
                  <td>
                    {l ? (
                      <span className={`state state-${STATE_TONE[l.state] ?? 'off'}`}>
                        {l.state}
                      </span>
                    ) : (
                      '—'
                    )}
                  </td>
                  <td className="num">{l ? formatLoad(l.load) : '—'}</td>
                  <td className="num">{l ? l.newPerSecond : '—'}</td>
                  <td className="num">{l ? l.active : '—'}</td>
                </tr>
              );
            })}
          </tbody>
        </table>
        <figure className="ts-chart">
          <figcaption>Open connections per server</figcaption>
          <ConnectionsChart
            title={`Open connections per server, ${title}`}
            bars={ts.servers.map((s) => ({
              label: name(s.address) ? `${name(s.address)} ${s.address}` : s.address,
              value: liveOf(s.address)?.active ?? null,
            }))}
          />
        </figure>
      </div>
      {ts.algorithm === 'leastLoad' && live && (
        <LeastLoadFigure
          title={title}
          live={live}
          allowedDeviation={ts.leastLoad.allowedDeviation}
          peerNodeAware={ts.leastLoad.peerNodeAware && ts.leastLoad.peerNodeThreshold >= 1}
          peerNodeThreshold={ts.leastLoad.peerNodeThreshold}
          leastLoadThreshold={leastLoadThreshold}
          owner={owner}
          labels={labels}
        />
      )}
    </section>
  );
}

function LeastLoadFigure({
  title,
  live,
  allowedDeviation,
  peerNodeAware,
  peerNodeThreshold,
  leastLoadThreshold,
  owner,
  labels,
}: {
  title: string;
  live: LiveTargetSet;
  allowedDeviation: number;
  peerNodeAware: boolean;
  peerNodeThreshold: number;
  leastLoadThreshold: number;
  owner: IpfeSlot | null;
  labels: Map<string, string>;
}) {
  const id = useId();
  const picture = leastLoadPicture(live.servers, allowedDeviation);
  const label = (address: string) =>
    labels.get(address) ? `${labels.get(address)} ${address}` : address;
  const chartLabels = new Map(live.servers.map((s) => [s.address, label(s.address)]));
  return (
    <div className="ll-picture" role="group" aria-labelledby={`${id}-h`}>
      <h4 id={`${id}-h`}>Least Load picture of {title}</h4>
      <div className="ll-body">
        <div className="ll-chart-col">
          <LeastLoadChart
            title={`Least Load picture of ${title}: load L per server, lowest L and the allowed-deviation band`}
            picture={picture}
            labels={chartLabels}
          />
          <p className="ll-summary">{picture.summary}</p>
        </div>
        <div className="ll-side">
          <table className="nested-table ll-table">
            <caption className="visually-hidden">Least Load picture of {title} (table)</caption>
            <thead>
              <tr>
                <th scope="col">Server</th>
                <th scope="col" className="num">
                  L
                </th>
                <th scope="col">Verdict</th>
                <th scope="col">Why</th>
              </tr>
            </thead>
            <tbody>
              {picture.servers.map((s) => (
                <tr key={s.address}>
                  <th scope="row">{label(s.address)}</th>
                  <td className="num">{formatLoad(s.load)}</td>
                  <td>
                    <span className={`state state-${VERDICT_TONE[s.verdict]}`}>
                      {VERDICT_WORDS[s.verdict]}
                    </span>
                  </td>
                  <td className="ll-why">{s.reason}</td>
                </tr>
              ))}
            </tbody>
          </table>
          <ul className="ll-notes">
            <li>
              L = (Fm·m/mtotal + Fc·c′/ctotal)·Whigh/w from each server&apos;s latest heartbeat, as
              IPFE-{owner ?? '?'} computes it; band = lowest L + {allowedDeviation}.
            </li>
            {peerNodeAware && (
              <li>
                Peer Node Aware (D = {peerNodeThreshold}) filters per connection, by the
                client&apos;s Peer Node Group: it cannot be shown globally, so a server in the band
                may still be passed over for a given client.
              </li>
            )}
            {leastLoadThreshold > 0 && (
              <li>
                Below {leastLoadThreshold} new connections/s on this Target Set the choice is
                weighted round-robin over every candidate instead.
              </li>
            )}
          </ul>
        </div>
      </div>
    </div>
  );
}
