import { PageHeader } from '../ui/kit';

/** Placeholder until this page is built. */
export function InvitePage() {
  return <PageHeader title="InvitePage" sub="Not built yet." />;
}
