// The architecture as rules (docs/architecture.md): `npm test` runs them and a violation fails it with
// the rule's name. test/architecture.process.test.ts proves each rule catches what it names, and checks what
// imports cannot show (the process global and the clock in the pure folders).
/** @type {import('dependency-cruiser').IConfiguration} */
module.exports = {
  forbidden: [
    {
      name: 'no-cycles',
      comment: 'A cycle means two modules cannot be understood (or loaded lazily) apart.',
      severity: 'error',
      from: {},
      to: { circular: true },
    },
    {
      name: 'pure-core-no-io',
      comment: 'config/, template/ and credential/ get files, network, process and clock as arguments.',
      severity: 'error',
      from: { path: '^src/(config|template|credential)/' },
      to: {
        dependencyTypes: ['core'],
        path: '^(node:)?(fs|fs/promises|net|http|https|http2|tls|dns|dgram|child_process|cluster|os|process|worker_threads|timers|timers/promises|readline|vm)$',
      },
    },
    {
      name: 'nothing-imports-cli',
      comment: 'cli/ turns argv into a use case; only main.ts, the composition root, starts it.',
      severity: 'error',
      from: { pathNot: '^src/(main\\.ts$|cli/)' },
      to: { path: '^src/cli/' },
    },
    {
      name: 'only-main-builds-real-deps',
      comment: 'The real file system and HTTP client are handed out by main.ts (read-file.ts is its fs reader).',
      severity: 'error',
      from: { pathNot: '^src/(main|read-file)\\.ts$' },
      to: {
        dependencyTypesNot: ['type-only'],
        path: ['^(node:)?fs(/promises)?$', '^src/request/http\\.ts$', '^src/read-file\\.ts$'],
      },
    },
    {
      name: 'network-only-in-the-http-client',
      comment:
        "Sockets are opened by the HTTP clients alone: request/http.ts (the token API: exchange.ts is its one request on the wire, observe-http.ts what doctor sees of it) and cluster.ts (doctor's cluster stage); tls-context.ts makes their secure contexts, proxy.ts only reads node:net's address checks; login/loopback.ts is the browser login's listener on the loopback address.",
      severity: 'error',
      from: {
        pathNot: [
          '^src/request/(http|exchange|proxy|observe-http|cluster|tls-context)\\.ts$',
          '^src/login/loopback\\.ts$',
        ],
      },
      to: { dependencyTypes: ['core'], path: '^(node:)?(net|http|https|http2|tls|dns|dgram)$' },
    },
    {
      name: 'cache-behind-its-face',
      comment:
        "The cache shows one face (src/cache/index.ts): keys, refs, locks, failure memory and the entry format stay behind it, so no caller recomputes a key or parses a lock file. Type-only imports count too: its types are the face's to give.",
      severity: 'error',
      from: { pathNot: '^src/cache/' },
      to: { path: '^src/cache/', pathNot: '^src/cache/index\\.ts$' },
    },
    {
      name: 'kubeconfig-edits-files-only',
      comment:
        "kubeconfig/ edits a user's kubeconfig and kuberc (parse, edit in place, check, write): it serves the use cases and knows none of them, nor argv, the network, the cache or templates. It takes the use cases' deps as a type.",
      severity: 'error',
      from: { path: '^src/kubeconfig/' },
      to: {
        dependencyTypesNot: ['type-only'],
        path: '^src/(cli|use-case|request|login|cache|template|credential|redact)/',
      },
    },
    {
      name: 'no-unresolvable',
      comment: 'An import that resolves to nothing fails at run time, maybe only on a rare path.',
      severity: 'error',
      from: {},
      to: { couldNotResolve: true },
    },
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
    enhancedResolveOptions: {
      exportsFields: ['exports'],
      conditionNames: ['import', 'require', 'node', 'default'],
      extensions: ['.ts', '.js', '.mjs', '.cjs', '.json'],
    },
  },
};
