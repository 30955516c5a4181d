// A directory holding `webapi-credential` as an installed one is found on the PATH: the single
// binary (WEBAPI_CREDENTIAL_BIN), or the bin script beside the pinned Node that its
// `#!/usr/bin/env node` line finds first.
import { mkdtempSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { BIN_SCRIPT, PINNED_NODE } from './cli.js';

export function installedDir(): string {
  const dir = mkdtempSync(join(tmpdir(), 'webapi-credential-path-'));
  const binary = process.env['WEBAPI_CREDENTIAL_BIN'];
  symlinkSync(binary ?? BIN_SCRIPT, join(dir, 'webapi-credential'));
  if (!binary) symlinkSync(PINNED_NODE, join(dir, 'node'));
  return dir;
}
