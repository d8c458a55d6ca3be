import { useEffect, useRef, useState, type ReactNode } from 'react';
import { NavLink, useLocation, useNavigate } from 'react-router';
import { Button } from '@/components/ui/button';
import { canEdit, useLogout, useUser } from '@/lib/auth';

function Item({ to, children }: { to: string; children: ReactNode }) {
  return (
    <li>
      <NavLink to={to} className={({ isActive }) => (isActive ? 'active' : undefined)}>
        {children}
      </NavLink>
    </li>
  );
}

export const MENU_ID = 'main-menu';

/** The menu tree in the manner of the source GUI. */
export function MenuTree() {
  const { data: user } = useUser();
  return (
    <nav className="menu" id={MENU_ID} aria-label="Main menu">
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
            <Item to="/measurements">Measurements</Item>
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
        {canEdit(user) && <Item to="/import">Import</Item>}
        <Item to="/tokens">API tokens</Item>
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
 * `notices` between the top bar and the page, in the flow so that it covers nothing (the push
 * progress of the last commit); the app composes them. In a narrow window (below 1024 px, see
 * styles.css) the menu folds away behind the top bar's Menu button.
 */
export function AppLayout({
  children,
  status,
  notices,
}: {
  children: ReactNode;
  status?: ReactNode;
  notices?: ReactNode;
}) {
  const { data: user } = useUser();
  const logout = useLogout();
  const navigate = useNavigate();
  const location = useLocation();
  const [menuOpen, setMenuOpen] = useState(false);
  const toggle = useRef<HTMLButtonElement>(null);
  // Following a link of the folded menu closes it: the page, not the menu, is what was asked for.
  useEffect(() => setMenuOpen(false), [location.pathname]);
  return (
    <div
      className={`shell${menuOpen ? ' menu-open' : ''}`}
      onKeyDown={(event) => {
        if (event.key === 'Escape' && menuOpen) {
          setMenuOpen(false);
          toggle.current?.focus();
        }
      }}
    >
      <a className="skip-link" href="#main">
        Skip to content
      </a>
      <header className="topbar">
        <button
          ref={toggle}
          type="button"
          className="menu-toggle"
          aria-controls={MENU_ID}
          aria-expanded={menuOpen}
          onClick={() => setMenuOpen((open) => !open)}
        >
          <span className="menu-toggle-icon" aria-hidden="true" />
          Menu
        </button>
        <span className="brand">
          IPFE <span className="brand-sub">OAM</span>
        </span>
        {user && status && <div className="topbar-status">{status}</div>}
        {user && (
          <div className="user">
            <span>
              <span className="user-lead">Logged in as </span>
              <strong>{user.name}</strong>{' '}
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
      {user && notices}
      <div className="body">
        <MenuTree />
        <main id="main" className="content" tabIndex={-1}>
          {children}
        </main>
      </div>
    </div>
  );
}
