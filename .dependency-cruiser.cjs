// The layers of docs/architecture.md, enforced: `npm test` runs this check (test/unit/architecture.test.ts) and fails
// naming each offending import. A rule here says what the architecture says; change both together.
/** @type {import('dependency-cruiser').IConfiguration} */
module.exports = {
  forbidden: [
    {
      name: 'no-cycles',
      comment: 'No import cycles: a module and what it imports form a tree (type-only imports included).',
      severity: 'error',
      from: { path: '^(src|activities|workflows|workers|web/src)/' },
      to: { circular: true },
    },
    {
      name: 'shared-stands-alone',
      comment: 'src/shared (what the CI client and the server share) imports nothing outside src/shared.',
      severity: 'error',
      from: { path: '^src/shared/' },
      to: { path: '^(src/(?!shared/)|(activities|workflows|workers|web)/)' },
    },
    {
      name: 'domain-is-pure',
      comment: 'The domain imports nothing of storage, HTTP, Temporal, the pool, infra or the processes.',
      severity: 'error',
      from: { path: '^src/domain/' },
      to: { path: '^(src/(?!domain/|shared/)|(activities|workflows|workers|web)/)' },
    },
    {
      name: 'domain-no-io-packages',
      comment: 'The domain uses no I/O or framework package (koa, Temporal, MongoDB, pino, piscina).',
      severity: 'error',
      from: { path: '^src/(domain|shared)/' },
      to: {
        dependencyTypes: ['npm', 'npm-dev', 'npm-optional', 'npm-peer', 'npm-no-pkg', 'npm-unknown'],
        path: 'node_modules/(koa|@koa|@temporalio|mongodb|pino|piscina|prom-client|nodemailer)(/|$)',
      },
    },
    {
      name: 'workflows-are-deterministic',
      comment:
        'Workflow code imports @temporalio/workflow, other workflow modules, the workflow contracts (names, inputs, retry policies, limits) and types only.',
      severity: 'error',
      from: { path: '^workflows/' },
      to: {
        pathNot: '^(workflows/|node_modules/@temporalio/workflow/|src/temporal/[a-z-]+-workflow-contract\\.ts$)',
        dependencyTypesNot: ['type-only'],
      },
    },
    {
      name: 'workflow-contracts-are-deterministic',
      comment: 'A workflow contract is loaded into the workflow sandbox: @temporalio/common and types only.',
      severity: 'error',
      from: { path: '^src/temporal/[a-z-]+-workflow-contract\\.ts$' },
      to: { pathNot: '^node_modules/@temporalio/common/', dependencyTypesNot: ['type-only'] },
    },
    {
      name: 'storage-and-activities-not-http',
      comment: 'Storage and activities never import HTTP: response shapes they need live in src/presenters.',
      severity: 'error',
      from: { path: '^(src/storage|activities)/' },
      to: { path: '^src/http/' },
    },
    {
      name: 'temporal-not-http',
      comment:
        'Temporal code (client side, workflows, activities, workers) never imports HTTP: ports live in src/ports.ts.',
      severity: 'error',
      from: { path: '^(src/temporal|workflows|activities|workers)/' },
      to: { path: '^src/http/' },
    },
    {
      name: 'below-http-not-http',
      comment:
        'Only the processes (src/main.ts, src/cli) wire HTTP in: presenters, sweepers, ports, pool and infra never import it.',
      severity: 'error',
      from: { path: '^src/(presenters|sweepers|ports\\.ts|pool|infra|metrics|advisories|intel)' },
      to: { path: '^src/http/' },
    },
    {
      name: 'storage-not-above',
      comment: 'Storage knows no workflow engine, process, sweeper or presenter.',
      severity: 'error',
      from: { path: '^src/storage/' },
      to: { path: '^(src/(temporal|sweepers|presenters|cli|client|main\\.ts)|activities|workflows|workers)' },
    },
    {
      name: 'client-imports-only-shared',
      comment: 'The CI client (bundled alone into one file) imports nothing of the server but src/shared.',
      severity: 'error',
      from: { path: '^src/client/' },
      to: { path: '^(src/(?!client/|shared/)|activities|workflows|workers|web)' },
    },
    {
      name: 'server-not-client',
      comment: 'The server never imports the CI client.',
      severity: 'error',
      from: { path: '^(src/(?!client/|cli/)|activities|workflows|workers)' },
      to: { path: '^src/client/' },
    },
    {
      name: 'web-over-http-only',
      comment: 'The web app reaches the server only over HTTP; its API types are generated from the OpenAPI document.',
      severity: 'error',
      from: { path: '^web/' },
      to: { path: '^(src|activities|workflows|workers)/' },
    },
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    exclude: { path: '(^|/)(dist|node_modules)/' },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
    enhancedResolveOptions: { extensions: ['.ts', '.tsx', '.js', '.json'] },
  },
};
