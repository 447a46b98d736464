import { PageHeader } from '../ui/kit';

/** Placeholder until this page is built. */
export function ProjectsPage() {
  return <PageHeader title="ProjectsPage" sub="Not built yet." />;
}
