import { Component, type ErrorInfo, type ReactNode } from 'react';

interface State {
  error: Error | null;
}

/**
 * Shows a failed page as a sentence and a way out instead of a blank screen. The usual cause is a
 * page's code that can no longer be loaded because the server was updated since this tab opened
 * (its files have new names): reloading fetches the current version.
 */
export class ErrorBoundary extends Component<{ children: ReactNode }, State> {
  override state: State = { error: null };

  static getDerivedStateFromError(error: Error): State {
    return { error };
  }

  override componentDidCatch(error: Error, info: ErrorInfo): void {
    console.error(error, info.componentStack);
  }

  override render() {
    const { error } = this.state;
    if (!error) return this.props.children;
    const stale =
      /dynamically imported module|Importing a module script failed|error loading dynamically/i.test(
        error.message,
      );
    return (
      <main className="auth" id="main">
        <div className="card" role="alert">
          <h1>{stale ? 'A newer version of vss is available' : 'This page failed'}</h1>
          <p>{stale ? 'Reload to use it.' : error.message}</p>
          <button type="button" onClick={() => location.reload()}>
            Reload
          </button>
        </div>
      </main>
    );
  }
}
