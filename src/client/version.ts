// The client's version: the package version, written in at bundle time (tools/build-client.js); "dev" when the
// sources run unbundled (tests).
declare const __SCANNER_VERSION__: string | undefined;
export const VERSION: string = typeof __SCANNER_VERSION__ === 'string' ? __SCANNER_VERSION__ : 'dev';
