import { clock } from '@/lib/time';
import type { AuditEntry } from '../api/get-audit';

const ACTION_WORDS: Record<string, string> = {
  login: 'log in',
  'login-failed': 'failed login',
  logout: 'log out',
  post: 'insert',
  put: 'edit',
  delete: 'delete',
  patch: 'change',
};

const outcome = (status: number) =>
  status < 400 ? 'done' : status === 401 || status === 403 ? 'refused' : 'failed';

/**
 * Administration › Audit log: every login, failed login, logout and change under /api/, newest
 * first, with who, from where, what and the outcome (a change that committed names its revision).
 */
export function AuditLog({ entries }: { entries: AuditEntry[] }) {
  if (entries.length === 0) return <div className="empty">The audit log is empty.</div>;
  return (
    <div className="table-scroll">
      <table className="data-table audit-table">
        <caption className="visually-hidden">Audit log, newest first</caption>
        <thead>
          <tr>
            <th scope="col" className="num">
              #
            </th>
            <th scope="col">Time</th>
            <th scope="col">User</th>
            <th scope="col">From</th>
            <th scope="col">Action</th>
            <th scope="col">Target</th>
            <th scope="col">Outcome</th>
            <th scope="col">Detail</th>
          </tr>
        </thead>
        <tbody>
          {entries.map((e) => {
            const result = outcome(e.status);
            return (
              <tr key={e.id} className={result === 'done' ? undefined : 'row-error'}>
                <td className="num">{e.id}</td>
                <td className="nowrap">
                  <time dateTime={e.at}>{clock(e.at)}</time>
                </td>
                <td>{e.user ?? <span className="absent">unknown</span>}</td>
                <td>
                  <code>{e.address}</code>
                </td>
                <th scope="row">{ACTION_WORDS[e.action] ?? e.action}</th>
                <td>
                  <code>{e.target}</code>
                </td>
                <td>
                  <span
                    className={`state state-${result === 'done' ? 'ok' : result === 'refused' ? 'error' : 'warn'}`}
                  >
                    {result} ({e.status})
                  </span>
                </td>
                <td>{e.detail ?? '—'}</td>
              </tr>
            );
          })}
        </tbody>
      </table>
    </div>
  );
}
