import { useEffect, useState, type FormEvent } from 'react';
import { Link, useLocation } from 'wouter';
import { vss } from '../api';
import { useAuth } from '../auth';
import { ErrorNote, Field } from '../ui/kit';
import { useAction } from '../ui/hooks';

/**
 * Only same-origin places are followed after signing in. Resolved as the browser would resolve
 * it, so that spellings which look like a path but lead elsewhere (`//host`, `/\host`) are refused.
 */
function safeNext(next: string | null): string {
  let u: URL;
  try {
    u = new URL(next || '/sessions', location.origin);
  } catch {
    return '/sessions';
  }
  return u.origin === location.origin ? u.pathname + u.search + u.hash : '/sessions';
}

/** Sign in, or create an account (a user, their organisation and a "Default" project). */
export function AuthPage({ mode }: { mode: 'login' | 'signup' }) {
  const { refresh } = useAuth();
  const [, navigate] = useLocation();
  // The raw query, decoded once (an OAuth `next` carries encoded `&` and `+` that must survive).
  const params = new URLSearchParams(window.location.search);
  const next = safeNext(params.get('next'));
  const [email, setEmail] = useState('');
  const [password, setPassword] = useState('');
  const signup = mode === 'signup';
  useEffect(() => {
    document.title = `${signup ? 'Create your account' : 'Sign in'} · vss`;
  }, [signup]);
  const submit = useAction(async () => {
    if (signup) await vss.post('/v1/auth/register', { body: { email, password } });
    else await vss.post('/v1/auth/login', { body: { email, password } });
    await refresh();
    // Full-page targets (the OAuth consent page) are outside the app's routes.
    if (next.startsWith('/oauth/')) location.assign(next);
    else navigate(next);
  });
  const onSubmit = (e: FormEvent) => {
    e.preventDefault();
    void submit.run();
  };
  const other = `${signup ? '/login' : '/signup'}${params.get('next') ? `?next=${encodeURIComponent(next)}` : ''}`;
  return (
    <main className="auth" id="main">
      <h1>
        <img src="/favicon.svg" alt="" width={32} height={32} />{' '}
        {signup ? 'Create your account' : 'Sign in to vss'}
      </h1>
      <form onSubmit={onSubmit} className="card">
        <Field label="Email">
          {(id) => (
            <input
              id={id}
              type="email"
              autoComplete="email"
              required
              value={email}
              onChange={(e) => setEmail(e.target.value)}
            />
          )}
        </Field>
        <Field label="Password" hint={signup ? '8 to 256 characters' : undefined}>
          {(id, hint) => (
            <input
              id={id}
              type="password"
              autoComplete={signup ? 'new-password' : 'current-password'}
              required
              minLength={signup ? 8 : undefined}
              maxLength={signup ? 256 : undefined}
              aria-describedby={hint}
              value={password}
              onChange={(e) => setPassword(e.target.value)}
            />
          )}
        </Field>
        <ErrorNote error={submit.error} />
        <button type="submit" disabled={submit.busy}>
          {submit.busy ? 'Working…' : signup ? 'Create account' : 'Sign in'}
        </button>
      </form>
      <p>
        {signup ? 'Already have an account? ' : 'New here? '}
        <Link href={other}>{signup ? 'Sign in' : 'Create an account'}</Link>
        {' · '}
        <a href="/watch">Public sessions</a>
      </p>
    </main>
  );
}
