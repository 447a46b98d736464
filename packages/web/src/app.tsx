import { lazy, Suspense, type ComponentType, type LazyExoticComponent } from 'react';
import { Redirect, Route, Switch, useLocation } from 'wouter';
import { AuthProvider, useAuth } from './auth';
import { Shell } from './ui/shell';
import { Loading } from './ui/kit';
import { ErrorBoundary } from './ui/error-boundary';
import { AuthPage } from './pages/auth';
import { SessionsPage } from './pages/sessions';

/**
 * Every page but sign-in and the sessions list is loaded when first opened, so the first paint
 * downloads only what it shows. The server answers the same HTML at each of these paths
 * (modules/dashboard/routes.ts lists them).
 */
// Route components receive wouter's params; each page reads them through its own hooks.
type PageComponent = ComponentType<object>;
function page<K extends string>(
  load: () => Promise<Record<K, PageComponent>>,
  name: K,
): LazyExoticComponent<PageComponent> {
  return lazy(() => load().then((m) => ({ default: m[name] })));
}

const SessionDetailPage = page(() => import('./pages/session-detail'), 'SessionDetailPage');
const LivePage = page(() => import('./pages/live'), 'LivePage');
const ReplayPage = page(() => import('./pages/replay'), 'ReplayPage');
const WatchListPage = page(() => import('./pages/watch'), 'WatchListPage');
const WatchPage = page(() => import('./pages/watch'), 'WatchPage');
const ReplayLinkPage = page(() => import('./pages/watch'), 'ReplayLinkPage');
const WebhooksPage = page(() => import('./pages/webhooks'), 'WebhooksPage');
const WebhookPage = page(() => import('./pages/webhook-detail'), 'WebhookPage');
const KeysPage = page(() => import('./pages/keys'), 'KeysPage');
const AgentsPage = page(() => import('./pages/agents'), 'AgentsPage');
const UsagePage = page(() => import('./pages/usage'), 'UsagePage');
const MembersPage = page(() => import('./pages/members'), 'MembersPage');
const ProjectsPage = page(() => import('./pages/projects'), 'ProjectsPage');
const InvitePage = page(() => import('./pages/invite'), 'InvitePage');
const JoinPage = page(() => import('./pages/join'), 'JoinPage');

/** Pages of a signed-in user; signed-out visitors are sent to sign in and brought back. */
function SignedIn() {
  const { me } = useAuth();
  const [location] = useLocation();
  if (me === undefined) return <Loading />;
  if (me === null)
    return <Redirect to={`/login?next=${encodeURIComponent(location + window.location.search)}`} />;
  return (
    <Shell>
      <Switch>
        <Route path="/" component={SessionsPage} />
        <Route path="/sessions" component={SessionsPage} />
        <Route path="/sessions/:sessionId" component={SessionDetailPage} />
        <Route path="/sessions/:sessionId/live" component={LivePage} />
        <Route path="/sessions/:sessionId/replay" component={ReplayPage} />
        <Route path="/webhooks" component={WebhooksPage} />
        <Route path="/webhooks/:webhookId" component={WebhookPage} />
        <Route path="/keys" component={KeysPage} />
        <Route path="/agents" component={AgentsPage} />
        <Route path="/usage" component={UsagePage} />
        <Route path="/members" component={MembersPage} />
        <Route path="/projects" component={ProjectsPage} />
        <Route>
          <p>This page does not exist.</p>
        </Route>
      </Switch>
    </Shell>
  );
}

/** The dashboard. Public pages (catalog, public replay, replay link, join link) need no account. */
export function App() {
  return (
    <ErrorBoundary>
      <AuthProvider>
        <Suspense fallback={<Loading />}>
          <Switch>
            <Route path="/login">{() => <AuthPage mode="login" />}</Route>
            <Route path="/signup">{() => <AuthPage mode="signup" />}</Route>
            <Route path="/invite" component={InvitePage} />
            <Route path="/join/:token" component={JoinPage} />
            <Route path="/watch" component={WatchListPage} />
            <Route path="/watch/:sessionId" component={WatchPage} />
            <Route path="/v1/public/sessions/:sessionId/replay" component={ReplayLinkPage} />
            <Route>{() => <SignedIn />}</Route>
          </Switch>
        </Suspense>
      </AuthProvider>
    </ErrorBoundary>
  );
}
