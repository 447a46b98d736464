import { useState, type ReactNode } from 'react';
import { Link, useLocation } from 'wouter';
import { useAuth } from '../auth';

const NAV: { href: string; label: string }[] = [
  { href: '/sessions', label: 'Sessions' },
  { href: '/webhooks', label: 'Webhooks' },
  { href: '/keys', label: 'API keys' },
  { href: '/agents', label: 'Agents' },
  { href: '/usage', label: 'Usage & billing' },
  { href: '/members', label: 'Members' },
  { href: '/projects', label: 'Projects' },
];

/** The signed-in frame: navigation, the project switcher, the user and sign-out; the page inside. */
export function Shell({ children }: { children: ReactNode }) {
  const { me, projects, project, selectProject, signOut } = useAuth();
  const [location, navigate] = useLocation();
  const [open, setOpen] = useState(false);
  const current = (href: string) =>
    location === href || location.startsWith(`${href}/`) || (href === '/sessions' && location === '/');
  return (
    <div className="shell">
      <a className="skip" href="#main">
        Skip to content
      </a>
      <header className="topbar">
        <Link href="/sessions" className="brand" aria-label="vss home">
          <img src="/favicon.svg" alt="" width={24} height={24} /> vss
        </Link>
        <button
          type="button"
          className="secondary menu-toggle"
          aria-expanded={open}
          aria-controls="nav"
          onClick={() => setOpen((o) => !o)}
        >
          Menu
        </button>
        <label className="project-switch">
          <span className="visually-hidden">Project</span>
          <select
            aria-label="Project"
            value={project?.id ?? ''}
            onChange={(e) => {
              selectProject(e.target.value);
              navigate('/sessions');
            }}
          >
            {projects.map((p) => (
              <option key={p.id} value={p.id}>
                {p.name}
              </option>
            ))}
          </select>
        </label>
        <span className="who muted" title={me?.role}>
          {me?.email}
        </span>
        <button
          type="button"
          className="secondary"
          onClick={async () => {
            await signOut();
            navigate('/login');
          }}
        >
          Sign out
        </button>
      </header>
      <div className="frame">
        <nav id="nav" aria-label="Main" className={open ? 'open' : ''}>
          <ul>
            {NAV.map((n) => (
              <li key={n.href}>
                <Link
                  href={n.href}
                  aria-current={current(n.href) ? 'page' : undefined}
                  onClick={() => setOpen(false)}
                >
                  {n.label}
                </Link>
              </li>
            ))}
            <li>
              <a href="/watch">Public sessions</a>
            </li>
            <li>
              <a href="/docs">API reference</a>
            </li>
          </ul>
        </nav>
        <main id="main" tabIndex={-1}>
          {/* Pages re-mount on a project switch, so nothing of the previous project lingers. */}
          <div key={project?.id ?? 'none'}>{children}</div>
        </main>
      </div>
    </div>
  );
}
