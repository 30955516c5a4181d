// Runs a real kubectl against a real kubeconfig whose user runs our CLI as its exec plugin.
// kubectl gets a clean environment (PATH, HOME and KUBECONFIG in a temp dir) so no cache and no
// config of the machine leaks in; the plugin inherits it plus the kubeconfig's exec.env.
import { spawn } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { cliCommand } from './cli.js';

import { KUBECTL_1_27, KUBECTL_1_33, toolPath, type Tool } from './tools.js';

// Versioned kubectl binaries (KUBECTL_1_33, KUBECTL_1_27, else the Google Cloud SDK's); never
// /usr/bin/kubectl, a dispatcher that runs exec plugins twice.
export { KUBECTL_1_27, KUBECTL_1_33 };

/** The kubectl binary of `tool`, or a clear failure when it is not here. */
export function requireKubectl(tool: Tool): string {
  return toolPath(tool);
}

/**
 * The plugin as an exec entry: the single binary when WEBAPI_CREDENTIAL_BIN is set, else the bin
 * script under the pinned Node 24 (node_modules/.bin/node), whatever node runs the tests.
 */
export function pluginCommand(): { command: string; args: string[] } {
  const [command, ...args] = cliCommand();
  return { command: command!, args };
}

export interface ExecEntry {
  apiVersion: 'client.authentication.k8s.io/v1' | 'client.authentication.k8s.io/v1beta1';
  /** Extra args after the plugin's own command. */
  args?: string[];
  env?: Record<string, string>;
  interactiveMode?: 'Never' | 'IfAvailable' | 'Always';
  provideClusterInfo?: boolean;
}

export interface KubeconfigOptions {
  server: string;
  caFile: string;
  exec: ExecEntry;
  /** The cluster extension `client.authentication.k8s.io/exec` (reaches the plugin as spec.cluster.config). */
  execExtension?: unknown;
}

export interface Kube {
  dir: string;
  home: string;
  kubeconfig: string;
}

/** A fresh temp dir for one kubectl setup: its kubeconfig path and its own HOME (so no cache leaks). */
export function makeKube(): Kube {
  const dir = mkdtempSync(join(tmpdir(), 'webapi-credential-kube-'));
  return { dir, home: join(dir, 'home'), kubeconfig: join(dir, 'kubeconfig') };
}

/** Writes the kubeconfig (JSON, which kubectl reads as YAML) to `kube.kubeconfig`. */
export function writeKubeconfig(kube: Kube, options: KubeconfigOptions): Kube {
  const { command, args } = pluginCommand();
  const exec: Record<string, unknown> = {
    apiVersion: options.exec.apiVersion,
    command,
    args: [...args, ...(options.exec.args ?? [])],
    env: Object.entries(options.exec.env ?? {}).map(([name, value]) => ({ name, value })),
    installHint: 'build webapi-credential first: node scripts/build.mjs',
  };
  if (options.exec.interactiveMode) exec['interactiveMode'] = options.exec.interactiveMode;
  if (options.exec.provideClusterInfo) exec['provideClusterInfo'] = true;
  const cluster: Record<string, unknown> = { server: options.server, 'certificate-authority': options.caFile };
  if (options.execExtension !== undefined) {
    cluster['extensions'] = [{ name: 'client.authentication.k8s.io/exec', extension: options.execExtension }];
  }
  const config = {
    apiVersion: 'v1',
    kind: 'Config',
    clusters: [{ name: 'test', cluster }],
    users: [{ name: 'test', user: { exec } }],
    contexts: [{ name: 'test', context: { cluster: 'test', user: 'test', namespace: 'default' } }],
    'current-context': 'test',
    preferences: {},
  };
  writeFileSync(kube.kubeconfig, JSON.stringify(config, null, 2), { mode: 0o600 });
  return kube;
}

export interface KubectlResult {
  code: number | null;
  stdout: string;
  stderr: string;
}

export function runKubectl(kubectl: Tool, kube: Kube, args: string[], timeoutMs = 15_000): Promise<KubectlResult> {
  const env = { PATH: process.env['PATH'] ?? '/usr/bin:/bin', HOME: kube.home, KUBECONFIG: kube.kubeconfig };
  return new Promise((resolve, reject) => {
    const child = spawn(requireKubectl(kubectl), args, { env, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (c: Buffer) => (stdout += c.toString()));
    child.stderr.on('data', (c: Buffer) => (stderr += c.toString()));
    const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
    child.on('error', reject);
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    });
  });
}
