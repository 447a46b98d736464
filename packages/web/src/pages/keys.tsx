import { PageHeader } from '../ui/kit';

/** Placeholder until this page is built. */
export function KeysPage() {
  return <PageHeader title="KeysPage" sub="Not built yet." />;
}
