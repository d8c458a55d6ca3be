import type { OamMember } from '@ipfe/schema';
import { Alert } from '@/components/ui/alert';
import { ago, clock } from '@/lib/time';

const ROLE_NAMES = { leader: 'leader', follower: 'follower' } as const;

/**
 * The OAMs of the cluster: where each serves, whether it leads (pushes to the agents, mirrors
 * their alarms, sends the traps) and when it was heard from. One silent for three heartbeats is
 * shown as gone, never as a follower that is fine.
 */
export function OamTable({ oams, now }: { oams: OamMember[]; now: number }) {
  const leaders = oams.filter((m) => m.present && m.role === 'leader').length;
  return (
    <>
      {leaders === 0 && (
        <Alert tone="warning" title="No OAM leads right now">
          Nothing is pushed to the agents and no trap is sent until one does.
        </Alert>
      )}
      <div className="table-scroll">
        <table className="data-table status-table">
          <caption className="visually-hidden">OAM servers of this cluster</caption>
          <thead>
            <tr>
              <th scope="col">OAM</th>
              <th scope="col">Role</th>
              <th scope="col">Started</th>
              <th scope="col">Last seen</th>
            </tr>
          </thead>
          <tbody>
            {oams.map((m) => (
              <tr key={m.id}>
                <th scope="row">
                  <code>{m.address}</code>
                  {m.self && <span className="sub-inline"> (this one)</span>}
                </th>
                <td>
                  {m.present ? (
                    <span className={`badge ${m.role === 'leader' ? 'badge-on' : 'badge-off'}`}>
                      {ROLE_NAMES[m.role]}
                    </span>
                  ) : (
                    <span className="badge badge-error">gone</span>
                  )}
                </td>
                <td>{clock(m.startedAt)}</td>
                <td>{m.self ? 'now' : ago(m.lastSeen, now)}</td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
    </>
  );
}
