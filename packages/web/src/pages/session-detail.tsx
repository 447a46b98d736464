import { PageHeader } from '../ui/kit';

/** Placeholder until this page is built. */
export function SessionDetailPage() {
  return <PageHeader title="SessionDetailPage" sub="Not built yet." />;
}
