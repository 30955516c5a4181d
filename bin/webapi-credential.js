#!/usr/bin/env node
// An older Node would fail somewhere inside the bundle with a stack trace: say it in one line.
const major = Number(process.versions.node.split('.')[0]);
if (major < 22) {
  process.stderr.write(
    `webapi-credential: needs Node >= 22, this is ${process.version}; install a newer Node, or use the single binary\n`,
  );
  process.exit(1);
}
await import('../dist/cli.mjs');
