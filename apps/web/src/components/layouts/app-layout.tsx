import type { ReactNode } from 'react';
import { NavLink, useNavigate } from 'react-router';
import { Button } from '@/components/ui/button';
import { useLogout, useUser } from '@/lib/auth';

function Item({ to, children }: { to: string; children: ReactNode }) {
  return (
    <li>
      <NavLink to={to} className={({ isActive }) => (isActive ? 'active' : undefined)}>
        {children}
      </NavLink>
    </li>
  );
}

/** The menu tree in the manner of the source GUI. */
export function MenuTree() {
  const { data: user } = useUser();
  return (
    <nav className="menu" aria-label="Main menu">
      <ul className="tree">
        <li>
          <span className="tree-folder">IPFE</span>
          <ul>
            <li>
              <span className="tree-folder">Configuration</span>
              <ul>
                <Item to="/options">Options</Item>
                <Item to="/target-sets">Target Sets</Item>
              </ul>
            </li>
            <Item to="/status">Status &amp; Manage</Item>
            <Item to="/alarms">Alarms</Item>
          </ul>
        </li>
        <li>
          <span className="tree-folder">Network</span>
          <ul>
            <Item to="/xsi-networks">XSI Networks</Item>
            <Item to="/app-servers">Application Servers</Item>
            <Item to="/peer-node-groups">Peer Node Groups</Item>
          </ul>
        </li>
        <Item to="/revisions">Revisions</Item>
        {user?.role === 'admin' && (
          <li>
            <span className="tree-folder">Administration</span>
            <ul>
              <Item to="/users">Users</Item>
              <Item to="/audit">Audit log</Item>
            </ul>
          </li>
        )}
      </ul>
    </nav>
  );
}

/**
 * The shell: top bar, menu tree, content. `status` goes in the top bar (the IPFEs' sync badge),
 * `overlay` above the content (the push progress of the last commit); the app composes them.
 */
export function AppLayout({
  children,
  status,
  overlay,
}: {
  children: ReactNode;
  status?: ReactNode;
  overlay?: ReactNode;
}) {
  const { data: user } = useUser();
  const logout = useLogout();
  const navigate = useNavigate();
  return (
    <div className="shell">
      <a className="skip-link" href="#main">
        Skip to content
      </a>
      <header className="topbar">
        <span className="brand">
          IPFE <span className="brand-sub">OAM</span>
        </span>
        {user && status && <div className="topbar-status">{status}</div>}
        {user && (
          <div className="user">
            <span>
              Logged in as <strong>{user.name}</strong>{' '}
              <span className="role" aria-label={`role ${user.role}`}>
                {user.role}
              </span>
            </span>
            <Button
              variant="secondary"
              onClick={() => logout.mutate(undefined, { onSettled: () => void navigate('/login') })}
            >
              Log out
            </Button>
          </div>
        )}
      </header>
      <div className="body">
        <MenuTree />
        <main id="main" className="content" tabIndex={-1}>
          {children}
        </main>
      </div>
      {user && overlay}
    </div>
  );
}
