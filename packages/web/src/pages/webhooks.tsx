import { PageHeader } from '../ui/kit';

/** Placeholder until this page is built. */
export function WebhooksPage() {
  return <PageHeader title="WebhooksPage" sub="Not built yet." />;
}
