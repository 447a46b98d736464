import { PageHeader } from '../ui/kit';

/** Placeholder until this page is built. */
export function MembersPage() {
  return <PageHeader title="MembersPage" sub="Not built yet." />;
}
