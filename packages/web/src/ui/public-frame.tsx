import type { ReactNode } from 'react';
import { Link } from 'wouter';
import { useAuth } from '../auth';
import './public-frame.css';

/**
 * The frame of the pages anybody may open: the brand, and a way to sign in (or, for someone
 * signed in, back to their dashboard); no account needed.
 */
export function PublicFrame({ children }: { children: ReactNode }) {
  const { me } = useAuth();
  return (
    <div>
      <a className="skip" href="#main">
        Skip to content
      </a>
      <header className="topbar public-header">
        <Link href="/watch" className="brand" aria-label="vss public sessions">
          <img src="/favicon.svg" alt="" width={24} height={24} /> vss
        </Link>
        <nav aria-label="Account">
          {me ? (
            <>
              <span className="muted">{me.email}</span>{' '}
              <Link href="/sessions" className="button secondary">
                Dashboard
              </Link>
            </>
          ) : me === null ? (
            <Link
              href={`/login?next=${encodeURIComponent(location.pathname + location.search)}`}
              className="button secondary"
            >
              Sign in
            </Link>
          ) : null}
        </nav>
      </header>
      <main id="main" tabIndex={-1} className="public-main">
        {children}
      </main>
    </div>
  );
}
