import { PageHeader } from '../ui/kit';

/** Placeholder until this page is built. */
export function WatchListPage() {
  return <PageHeader title="WatchListPage" sub="Not built yet." />;
}
/** Placeholder until this page is built. */
export function WatchPage() {
  return <PageHeader title="WatchPage" sub="Not built yet." />;
}
/** Placeholder until this page is built. */
export function ReplayLinkPage() {
  return <PageHeader title="ReplayLinkPage" sub="Not built yet." />;
}
