export { computeInventory, compareItems, type InventoryItem } from './compute';
export { compareCodePoints, dependencyId, normalizedName } from '../../shared/inventory-ids';
export { inventoryPage, type EcosystemItems, type InventoryFilter, type InventoryPage, type ItemKey } from './page';
