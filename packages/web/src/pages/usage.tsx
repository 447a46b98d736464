import { PageHeader } from '../ui/kit';

/** Placeholder until this page is built. */
export function UsagePage() {
  return <PageHeader title="UsagePage" sub="Not built yet." />;
}
