import { formatHostPort, slotLabel, type DataPath, type ForwardedProtocol } from '@ipfe/schema';
import { Link } from 'react-router';
import { ago, clock } from '@/lib/time';
import type { IpfeSlotView } from '../api/get-ipfe';
import { groupAlarms } from './alarm-groups';
import { syncOf } from './sync-state';

const MATES = { A1: 'A2', A2: 'A1', B1: 'B2', B2: 'B1' } as const;
const DATA_PATH_NAMES: Record<DataPath, string> = {
  userspace: 'User space',
  kernel: 'Kernel NAT',
  direct: 'Direct (transparent)',
};
const PROTOCOL_NAMES: Record<ForwardedProtocol, string> = { tcp: 'TCP', sctp: 'SCTP' };

/** "TCP and SCTP forwarded", or "TCP only: SCTP not forwarded". */
function forwarding(forwards: ForwardedProtocol[]): string {
  const names = (list: ForwardedProtocol[]) => list.map((p) => PROTOCOL_NAMES[p]).join(' and ');
  const missing = (['tcp', 'sctp'] as const).filter((p) => !forwards.includes(p));
  if (missing.length === 0) return `${names(forwards)} forwarded`;
  if (forwards.length === 0) return `${names(missing)} not forwarded`;
  return `${names(forwards)} only: ${names(missing)} not forwarded`;
}

/**
 * Per IPFE: where its agent listens and how it forwards (data path, open connections, whether
 * SCTP is forwarded), the push state of the configuration ("synced · r12",
 * pending, rejected with the agent's message, unreachable), last contact, its mate, the TSAs it
 * serves now, and its active alarms folded by code, each with what it is on.
 */
export function IpfeTable({ slots, now }: { slots: IpfeSlotView[]; now: number }) {
  return (
    <div className="table-scroll">
      <table className="data-table status-table">
        <caption className="visually-hidden">IPFE nodes</caption>
        <thead>
          <tr>
            <th scope="col">IPFE</th>
            <th scope="col">Agent</th>
            <th scope="col">Configuration</th>
            <th scope="col">Last contact</th>
            <th scope="col">Mate</th>
            <th scope="col">Serves (TSA)</th>
            <th scope="col">Active alarms</th>
          </tr>
        </thead>
        <tbody>
          {slots.map((slot) => {
            const sync = syncOf(slot);
            return (
              <tr key={slot.slot} id={`ipfe-${slot.slot}`} className={`row-${sync.tone}`}>
                <th scope="row">IPFE-{slot.slot}</th>
                <td>
                  {slot.configured && slot.address !== null && slot.agentPort !== null ? (
                    <code>{formatHostPort(slot.address, slot.agentPort)}</code>
                  ) : (
                    <Link to="/options">Configure under Options</Link>
                  )}
                  {slot.dataplane && (
                    <span className="sub">
                      {DATA_PATH_NAMES[slot.dataplane]} data path ·{' '}
                      {(slot.connections ?? 0).toLocaleString('en-US')} open connections
                    </span>
                  )}
                  {slot.forwards && <span className="sub">{forwarding(slot.forwards)}</span>}
                </td>
                <td>
                  <span className={`state state-${sync.tone}`}>{sync.label}</span>
                  {sync.detail && <span className="sub state-detail">{sync.detail}</span>}
                </td>
                <td>
                  {slot.configured ? (
                    <time dateTime={slot.lastContact ?? undefined} title={clock(slot.lastContact)}>
                      {ago(slot.lastContact, now)}
                    </time>
                  ) : (
                    '—'
                  )}
                </td>
                <td>
                  {slot.mateAlive === null ? (
                    '—'
                  ) : slot.mateAlive ? (
                    `${slotLabel(MATES[slot.slot])} alive`
                  ) : (
                    <span className="state state-error">{slotLabel(MATES[slot.slot])} silent</span>
                  )}
                </td>
                <td>
                  {slot.owned.length === 0
                    ? '—'
                    : slot.owned.map((o) => (
                        <span key={o.tsa} className="owned">
                          <code>{o.tsa}</code> TS {o.targetSet}{' '}
                          <span className="sub-inline">({o.role})</span>
                        </span>
                      ))}
                </td>
                <td>
                  {slot.alarms.length === 0 ? (
                    '—'
                  ) : (
                    <ul className="plain-list alarm-groups">
                      {groupAlarms(slot.alarms).map((g) => (
                        <li key={g.code}>
                          <span className={`sev sev-${g.severity}`}>{g.severity}</span> {g.code}{' '}
                          {g.name}
                          {g.count > 1 && <span className="alarm-count"> ×{g.count}</span>}
                          {g.on && <span className="sub"> on {g.on}</span>}
                        </li>
                      ))}
                    </ul>
                  )}
                </td>
              </tr>
            );
          })}
        </tbody>
      </table>
    </div>
  );
}
