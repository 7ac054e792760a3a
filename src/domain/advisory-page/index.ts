export { AdvisoryCatalog, type CatalogEntry } from './catalog';
export {
  advisoryFromAlerts,
  advisoryView,
  alertsByProject,
  cvssVectors,
  type AdvisoryView,
  type ProjectAlerts,
  type ProjectKey,
} from './present';
