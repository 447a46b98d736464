import { useEffect, useRef, useState, type ReactNode } from 'react';
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

/**
 * After a client-side navigation (not on the first load), focus moves to the new page's heading,
 * as a full page load would start reading there. The page may still be loading: focus waits on
 * <main> and moves to the heading once it is rendered, unless the person has moved it meanwhile.
 */
function useFocusOnNavigate(location: string): void {
  const first = useRef(true);
  useEffect(() => {
    if (first.current) {
      first.current = false;
      return;
    }
    const main = document.getElementById('main');
    if (!main) return;
    const heading = () => main.querySelector<HTMLElement>('h1');
    const now = heading();
    if (now) {
      now.focus();
      return;
    }
    main.focus();
    const watch = new MutationObserver(() => {
      const h = heading();
      if (!h) return;
      watch.disconnect();
      if (document.activeElement === main) h.focus();
    });
    watch.observe(main, { childList: true, subtree: true });
    return () => watch.disconnect();
  }, [location]);
}

/** The signed-in frame: navigation, the project switcher, the user and sign-out; the page inside. */
export function Shell({ children }: { children: ReactNode }) {
  const { me, projects, project, selectProject, signOut } = useAuth();
  const [location, navigate] = useLocation();
  const [open, setOpen] = useState(false);
  useFocusOnNavigate(location);
  // Applied as it is chosen. The dashboard does not reload for it: the pages read the new project's
  // data, so passing several options with the arrow keys costs one request per page each.
  const switchProject = (id: string) => {
    if (!id || id === project?.id) return;
    selectProject(id);
    navigate('/sessions');
  };
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
        <div className="project-switch row">
          <select
            aria-label="Project"
            value={project?.id ?? ''}
            onChange={(e) => switchProject(e.target.value)}
          >
            {projects.map((p) => (
              <option key={p.id} value={p.id}>
                {p.name}
              </option>
            ))}
          </select>
        </div>
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
