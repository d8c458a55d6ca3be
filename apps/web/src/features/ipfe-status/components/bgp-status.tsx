import type { AgentBgpStatus, IpfeSlot } from '@ipfe/schema';

const STATE_NAMES = { established: 'established', connecting: 'connecting', down: 'down' } as const;

function Sessions({ bgp }: { bgp: AgentBgpStatus }) {
  if (bgp.sessions.length === 0) return <>no peer</>;
  return (
    <ul className="plain-list">
      {bgp.sessions.map((s) => (
        <li key={s.peer}>
          <code>{s.peer}</code>{' '}
          <span className={`badge ${s.state === 'established' ? 'badge-on' : 'badge-off'}`}>
            {STATE_NAMES[s.state]}
          </span>{' '}
          <span className="sub-inline">BFD {s.bfd}</span>
        </li>
      ))}
    </ul>
  );
}

/**
 * Per IPFE: its BGP sessions to the upstream routers with their BFD state, and the TSA prefixes it
 * announces now (decision 018), as its agent reported them last. "—": the agent reports no BGP
 * (none runs there, or an agent from before reports none).
 */
export function BgpStatus({
  slots,
  statuses,
}: {
  slots: IpfeSlot[];
  statuses: Map<IpfeSlot, { bgp?: AgentBgpStatus | null | undefined } | null>;
}) {
  return (
    <div className="table-scroll">
      <table className="data-table status-table">
        <caption className="visually-hidden">BGP sessions of the IPFE nodes</caption>
        <thead>
          <tr>
            <th scope="col">IPFE</th>
            <th scope="col">BGP sessions (BFD)</th>
            <th scope="col">Announced</th>
          </tr>
        </thead>
        <tbody>
          {slots.map((slot) => {
            const bgp = statuses.get(slot)?.bgp ?? null;
            return (
              <tr key={slot}>
                <th scope="row">IPFE-{slot}</th>
                <td>{bgp ? <Sessions bgp={bgp} /> : '—'}</td>
                <td>
                  {!bgp
                    ? '—'
                    : bgp.announced.length === 0
                      ? 'nothing'
                      : bgp.announced.map((prefix, i) => (
                          <span key={prefix}>
                            {i > 0 && ', '}
                            <code>{prefix}</code>
                          </span>
                        ))}
                </td>
              </tr>
            );
          })}
        </tbody>
      </table>
    </div>
  );
}
