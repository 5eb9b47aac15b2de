// The layer rules of CONVENTIONS.md, checked by `pnpm depcheck` (CI runs it before the tests).
// A service's domain declares ports (domain/**/ports.ts) that data/, clients/ and the other edges
// implement; the wiring happens in <name>-service.ts. Tests are not checked.

/** Folders of a service that talk to the outside world; the domain must not import them. */
const EDGES = '(data|http|grpc|consumers|clients|storage|jobs|events)';
/** Packages that talk to a database, a broker, the network or a web framework. */
const DRIVERS = '(mongoose|mongodb|ioredis|amqplib|@grpc/[^/]+|express|@aws-sdk/[^/]+)';

module.exports = {
  forbidden: [
    {
      name: 'domain-imports-edge',
      comment: 'Domain code depends on ports it declares, never on data/, http/, grpc/, consumers/ or clients/.',
      severity: 'error',
      from: { path: '^(services/[^/]+|gateway)/src/domain/' },
      to: { path: `^(services/[^/]+|gateway)/src/${EDGES}/` },
    },
    {
      name: 'domain-imports-driver',
      comment: 'Domain code imports no database, broker, gRPC, HTTP or cloud driver.',
      severity: 'error',
      from: { path: '^(services/[^/]+|gateway)/src/domain/' },
      to: { path: `(^|/)node_modules/${DRIVERS}/` },
    },
    {
      name: 'domain-imports-service-file',
      comment: 'The domain does not reach back into the service wiring (<name>-service.ts, config, index).',
      severity: 'error',
      from: { path: '^(services/[^/]+|gateway)/src/domain/' },
      to: { path: '^$1/src/[^/]+$', pathNot: '/src/(logger|context)\\.ts$' },
    },
    {
      name: 'service-imports-another-service',
      comment: 'Services share code only through packages/ and talk over gRPC and events.',
      severity: 'error',
      from: { path: '^(services/[^/]+|gateway)/' },
      to: { path: '^(services/[^/]+|gateway)/', pathNot: '^$1/' },
    },
    {
      name: 'package-imports-service',
      comment: 'Shared packages know no service.',
      severity: 'error',
      from: { path: '^packages/' },
      to: { path: '^(services|gateway)/' },
    },
    {
      name: 'no-cycle',
      comment: 'Modules that import each other cannot be understood (or loaded) one at a time.',
      severity: 'error',
      from: {},
      to: { circular: true },
    },
  ],
  options: {
    // Type-only imports count: a domain that names a driver's types still depends on it.
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.base.json' },
    includeOnly: { path: ['^(services/[^/]+|gateway|packages/[^/]+)/src/', 'node_modules/'] },
    exclude: { path: ['\\.test\\.ts$', '/dist/', '\\.d\\.ts$'] },
    doNotFollow: { path: 'node_modules' },
    reporterOptions: { text: { highlightFocused: true } },
  },
};
