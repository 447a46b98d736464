import { PageHeader } from '../ui/kit';

/** Placeholder until this page is built. */
export function LivePage() {
  return <PageHeader title="LivePage" sub="Not built yet." />;
}
