import type { Core } from '../../core.js';
import { projectsService, type ProjectsService } from './service.js';
import { projectsStore } from './store.js';

/** The projects module over the core: its store and service. */
export function projectsModule(core: Core): ProjectsService {
  return projectsService({ store: projectsStore(core.db), reads: core.reads });
}
