import { PageHeader } from '../ui/kit';

/** Placeholder until this page is built. */
export function AgentsPage() {
  return <PageHeader title="AgentsPage" sub="Not built yet." />;
}
