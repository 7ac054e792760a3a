// Response schemas of the module and attribution reads (platform.md §2).
import { listEnvelope } from './common';

export const readSchemas = {
  ScanModuleWithCounts: { type: 'object' },
  ScanModuleList: listEnvelope('modules', 'ScanModuleWithCounts'),
  AttributionItem: { type: 'object' },
  AttributionList: listEnvelope('attributions', 'AttributionItem'),
  AttributionPath: { type: 'object' },
};
