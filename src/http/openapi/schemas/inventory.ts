// Response schemas of projects and the dependency inventory (platform.md §1).
import { listEnvelope } from './common';

export const inventorySchemas = {
  Project: { type: 'object' },
  ProjectList: listEnvelope('projects', 'Project'),
  Dependency: { type: 'object' },
  DependencyList: listEnvelope('dependencies', 'Dependency'),
};
