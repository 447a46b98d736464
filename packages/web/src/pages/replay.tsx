import { PageHeader } from '../ui/kit';

/** Placeholder until this page is built. */
export function ReplayPage() {
  return <PageHeader title="ReplayPage" sub="Not built yet." />;
}
