import { PageHeader } from '../ui/kit';

/** Placeholder until this page is built. */
export function WebhookPage() {
  return <PageHeader title="WebhookPage" sub="Not built yet." />;
}
