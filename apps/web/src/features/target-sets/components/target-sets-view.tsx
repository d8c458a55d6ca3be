import { familyLabel, slotLabel, type IpfeSlot } from '@ipfe/schema';
import { Fragment } from 'react';
import type { TargetSetView } from '../api/get-target-sets';

const PROTOCOLS = { tcp: 'TCP', sctp: 'SCTP', both: 'TCP, SCTP' } as const;
const PROTOCOL_NAMES = { tcp: 'TCP', sctp: 'SCTP' } as const;
const slot = (s: IpfeSlot | null) => (s ? slotLabel(s) : 'none');
const range = (r: { start: number; end: number } | null) => (r ? `${r.start}–${r.end}` : '—');

const groupOf = (ts: TargetSetView) =>
  ts.serving === 'activeActive' ? (ts.activeActiveIpfes ?? []) : null;

function Algorithm({ ts }: { ts: TargetSetView }) {
  if (ts.algorithm === 'hash') return <>Hash</>;
  const ll = ts.leastLoad;
  return (
    <>
      Least Load
      <span className="sub">
        Fm/Fc {ll.mpsFactor}/{ll.connectionCountFactor} · deviation {ll.allowedDeviation}
      </span>
      <span className="sub">PNA {ll.peerNodeAware ? `on, D ${ll.peerNodeThreshold}` : 'off'}</span>
    </>
  );
}

/**
 * The configured protocols, and those the serving IPFE reports it does not forward (its data path
 * cannot): "SCTP not forwarded on IPFE-A1". Where nobody reports the Target Set, nothing is said.
 */
function Protocols({ ts }: { ts: TargetSetView }) {
  const missing = ts.notForwarded ?? [];
  const all = missing.length === (ts.protocols === 'both' ? 2 : 1);
  return (
    <>
      {PROTOCOLS[ts.protocols]}
      {missing.length > 0 && (
        <span className="sub warn">
          {all ? '' : `${missing.map((p) => PROTOCOL_NAMES[p]).join(', ')} `}not forwarded on{' '}
          {slot(ts.owner ?? null)}
        </span>
      )}
    </>
  );
}

/**
 * Enabled is green only while the Target Set serves: one no IPFE serves now says "Not served" and
 * why (as the agents report), one whose servers all refuse new connections "No server available".
 */
function State({ ts }: { ts: TargetSetView }) {
  if (ts.disabled) return <span className="badge badge-off">Disabled</span>;
  if (ts.notServed) {
    return (
      <>
        <span className="badge badge-error">Not served</span>
        <span className="sub error">{ts.notServed}</span>
      </>
    );
  }
  const bindings = ts.activeBindings;
  if (bindings && bindings.available === 0 && bindings.total > 0) {
    return (
      <>
        <span className="badge badge-error">No server available</span>
        <span className="sub error">0 of {bindings.total} servers take new connections</span>
      </>
    );
  }
  return <span className="badge badge-on">Enabled</span>;
}

/** The IPFEs that serve an address: the active one and its standby, or the active-active group. */
function Tsa({
  tsa,
  group,
}: {
  tsa: { address: string; activeIpfe: IpfeSlot; standbyIpfe: IpfeSlot | null } | null;
  group: IpfeSlot[] | null;
}) {
  if (!tsa) return <>—</>;
  return (
    <>
      <code>{tsa.address}</code>
      <span className="sub">
        {group ? (
          <>
            {group.map((s, i) => (
              <Fragment key={s}>
                {i > 0 && ', '}
                <span className="nowrap">{slot(s)}</span>
              </Fragment>
            ))}{' '}
            <span className="nowrap">(active-active)</span>
          </>
        ) : (
          <>
            <span className="nowrap">active {slot(tsa.activeIpfe)}</span> ·{' '}
            <span className="nowrap">standby {slot(tsa.standbyIpfe)}</span>
          </>
        )}
      </span>
    </>
  );
}

/**
 * Target Sets [View]: every Target Set with every column of the source page, and its IP list
 * nested under it. Read-only; `onSelect` adds the row selection that Edit and Delete act on.
 */
export function TargetSetsView({
  targetSets,
  selected,
  onSelect,
}: {
  targetSets: TargetSetView[];
  selected: number | null;
  onSelect?: (number: number) => void;
}) {
  const columns = 10 + (onSelect ? 1 : 0);
  return (
    <div className="table-scroll">
      <table className="data-table ts-table">
        <caption className="visually-hidden">Target Sets, each with its IP list</caption>
        <thead>
          <tr>
            {onSelect && (
              <th scope="col" className="col-select">
                <span className="visually-hidden">Select</span>
              </th>
            )}
            <th scope="col">TS #</th>
            <th scope="col">State</th>
            <th scope="col">Protocols</th>
            <th scope="col">Primary TSA</th>
            <th scope="col">Secondary TSA</th>
            <th scope="col">Algorithm</th>
            <th scope="col" className="num">
              Delete Age (s)
            </th>
            <th scope="col">Initiator Support</th>
            <th scope="col">Owner (live)</th>
            <th scope="col">Active bindings</th>
          </tr>
        </thead>
        {targetSets.map((ts) => {
          const isSelected = selected === ts.number;
          return (
            <Fragment key={ts.number}>
              <tbody className={`ts-group ${isSelected ? 'selected' : ''}`}>
                <tr onClick={onSelect ? () => onSelect(ts.number) : undefined}>
                  {onSelect && (
                    <td className="col-select" rowSpan={2}>
                      <input
                        type="radio"
                        name="target-set"
                        aria-label={`Select Target Set ${ts.number}`}
                        checked={isSelected}
                        onChange={() => onSelect(ts.number)}
                      />
                    </td>
                  )}
                  <th scope="row" className="num">
                    {ts.number}
                    <span className="sub">{familyLabel(ts.family)}</span>
                  </th>
                  <td>
                    <State ts={ts} />
                  </td>
                  <td>
                    <Protocols ts={ts} />
                  </td>
                  <td>
                    <Tsa tsa={ts.primary} group={groupOf(ts)} />
                  </td>
                  <td>
                    <Tsa tsa={ts.secondary} group={groupOf(ts)} />
                  </td>
                  <td>
                    <Algorithm ts={ts} />
                  </td>
                  <td className="num">
                    {ts.deleteAgeSeconds}
                    {ts.warnings.some((w) => w.path === 'deleteAgeSeconds') && (
                      <span className="sub warn">below default</span>
                    )}
                  </td>
                  <td>{ts.initiatorSupport ? 'Enabled' : 'Disabled'}</td>
                  <td>
                    {ts.owner ? (
                      slot(ts.owner)
                    ) : (
                      <span title="No IPFE agent reports this address">—</span>
                    )}
                  </td>
                  <td className="num">
                    {ts.activeBindings ? (
                      `${ts.activeBindings.available}/${ts.activeBindings.total}`
                    ) : (
                      <span title="No IPFE agent reports this Target Set">
                        —/{ts.servers.length}
                      </span>
                    )}
                  </td>
                </tr>
                <tr className="ts-ip-list">
                  <td colSpan={columns - (onSelect ? 1 : 0)}>
                    <table className="nested-table">
                      <caption className="visually-hidden">
                        IP list of Target Set {ts.number}
                      </caption>
                      <thead>
                        <tr>
                          <th scope="col">IP Address</th>
                          <th scope="col">Secondary IP Address</th>
                          <th scope="col">Application server</th>
                          <th scope="col">Description</th>
                          <th scope="col" className="num">
                            Weighting
                          </th>
                          <th scope="col" className="num">
                            Chance
                          </th>
                          <th scope="col" className="num">
                            Initiator Port Range
                          </th>
                        </tr>
                      </thead>
                      <tbody>
                        {ts.servers.map((s) => (
                          <tr key={s.address}>
                            <td>
                              <code>{s.address}</code>
                            </td>
                            <td>{s.secondaryAddress ? <code>{s.secondaryAddress}</code> : '—'}</td>
                            <td>{s.appServer ?? '—'}</td>
                            <td>{s.description || '—'}</td>
                            <td className="num">{s.weight}</td>
                            <td className="num">{s.chancePct.toFixed(1)} %</td>
                            <td className="num">{range(s.initiatorPortRange)}</td>
                          </tr>
                        ))}
                      </tbody>
                    </table>
                  </td>
                </tr>
              </tbody>
            </Fragment>
          );
        })}
      </table>
    </div>
  );
}
