// The workflow bundle's entry: every workflow the worker registers.
export { scanWorkflow } from './scan';
