// examples/argocd: the kustomize patches, applied by the real `kubectl kustomize` over a stand-in of
// the upstream install, and the Helm values put the binary where every example cluster secret points
// (/custom-tools/webapi-credential) in both argocd-application-controller and argocd-server; the init
// container copies it out of the webapi-credential image (the repository's Dockerfile), downloading
// nothing.
import { execFileSync } from 'node:child_process';
import { copyFileSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect, it } from 'vitest';
import YAML from 'yaml';
import { KUBECTL_1_33, requireKubectl } from '../helpers/kubectl.js';
import { describeWith } from '../helpers/tools.js';
import { MANIFEST_SETS, examplePath, readArgoCdSecret, readText, readYaml } from '../helpers/examples.js';
import { ROOT, runCli } from '../helpers/cli.js';
import { ARGOCD_CACHE_DIR, ARGOCD_CACHE_MOUNT } from '../../src/use-case/manifest/manifests.js';

interface Container {
  name: string;
  image?: string;
  command?: string[];
  args?: string[];
  env?: Array<{ name: string; value: string }>;
  securityContext?: Record<string, unknown>;
  volumeMounts?: Array<{ name: string; mountPath: string }>;
}
interface PodSpec {
  initContainers?: Container[];
  containers: Container[];
  volumes?: Array<{ name: string; emptyDir?: Record<string, unknown> }>;
}

const MOUNT = { name: 'custom-tools', mountPath: '/custom-tools' };
/** The token cache of `argocd-secret --cache`: memory-backed, mounted in the main containers only. */
const CACHE_MOUNT = { name: 'webapi-credential-cache', mountPath: ARGOCD_CACHE_MOUNT };
const CACHE_VOLUME = { name: 'webapi-credential-cache', emptyDir: { medium: 'Memory', sizeLimit: '16Mi' } };
const WORKLOADS = [
  ['StatefulSet', 'argocd-application-controller'],
  ['Deployment', 'argocd-server'],
] as const;

/** The parts of the upstream install.yaml the patches touch, with a volume of their own to keep. */
function upstreamStandIn(): string {
  return WORKLOADS.map(([kind, name]) =>
    YAML.stringify({
      apiVersion: 'apps/v1',
      kind,
      metadata: { name },
      spec: {
        selector: { matchLabels: { 'app.kubernetes.io/name': name } },
        template: {
          metadata: { labels: { 'app.kubernetes.io/name': name } },
          spec: {
            containers: [
              {
                name,
                image: 'quay.io/argoproj/argocd:v3.1.0',
                volumeMounts: [{ name: 'argocd-home', mountPath: '/home/argocd' }],
              },
            ],
            volumes: [{ name: 'argocd-home', emptyDir: {} }],
          },
        },
      },
    }),
  ).join('---\n');
}

/** Builds examples/argocd with its upstream resource replaced by upstreamStandIn(), with the real kubectl kustomize. */
function kustomizeBuild(): Map<string, PodSpec> {
  const kustomization = readYaml('argocd', 'kustomization.yaml') as {
    resources: string[];
    patches: Array<{ path: string }>;
  };
  const dir = mkdtempSync(join(tmpdir(), 'webapi-credential-kustomize-'));
  for (const { path } of kustomization.patches) copyFileSync(examplePath('argocd', path), join(dir, path));
  writeFileSync(join(dir, 'upstream.yaml'), upstreamStandIn());
  writeFileSync(join(dir, 'kustomization.yaml'), YAML.stringify({ ...kustomization, resources: ['upstream.yaml'] }));
  const out = execFileSync(requireKubectl(KUBECTL_1_33), ['kustomize', dir], { encoding: 'utf8' });
  const specs = new Map<string, PodSpec>();
  for (const doc of YAML.parseAllDocuments(out)) {
    const object = doc.toJS() as {
      kind: string;
      metadata: { name: string; namespace: string };
      spec: { template: { spec: PodSpec } };
    };
    expect(object.metadata.namespace).toBe('argocd');
    specs.set(`${object.kind}/${object.metadata.name}`, object.spec.template.spec);
  }
  return specs;
}

/** The init container that installs the binary, as the examples define it (one for all pods). */
function expectInstalls(spec: PodSpec, main: string, keepsOwn: boolean): Container {
  expect(spec.initContainers?.map((c) => c.name)).toEqual(['install-webapi-credential']);
  const init = spec.initContainers![0]!;
  expect(init.volumeMounts).toEqual([MOUNT]);
  expect(init.securityContext).toMatchObject({
    runAsNonRoot: true,
    allowPrivilegeEscalation: false,
    readOnlyRootFilesystem: true,
  });
  const container = spec.containers.find((c) => c.name === main)!;
  expect(container.volumeMounts).toEqual(
    keepsOwn ? [MOUNT, CACHE_MOUNT, { name: 'argocd-home', mountPath: '/home/argocd' }] : [MOUNT, CACHE_MOUNT],
  );
  expect(spec.volumes?.find((v) => v.name === 'custom-tools')).toEqual({
    name: 'custom-tools',
    emptyDir: { sizeLimit: '256Mi' },
  });
  expect(spec.volumes?.find((v) => v.name === CACHE_VOLUME.name)).toEqual(CACHE_VOLUME);
  if (keepsOwn)
    expect(spec.volumes?.map((v) => v.name).sort()).toEqual(['argocd-home', 'custom-tools', 'webapi-credential-cache']);
  return init;
}

describeWith(KUBECTL_1_33)('examples/argocd', () => {
  it('the kustomization patches the upstream install and nothing else', () => {
    expect(readYaml('argocd', 'kustomization.yaml')).toEqual({
      apiVersion: 'kustomize.config.k8s.io/v1beta1',
      kind: 'Kustomization',
      namespace: 'argocd',
      resources: ['https://raw.githubusercontent.com/argoproj/argo-cd/stable/manifests/install.yaml'],
      patches: [{ path: 'patch-application-controller.yaml' }, { path: 'patch-server.yaml' }],
    });
  });

  it('kubectl kustomize adds the init container and the /custom-tools volume to the application controller and the server, keeping their own', () => {
    const specs = kustomizeBuild();
    expect([...specs.keys()].sort()).toEqual(['Deployment/argocd-server', 'StatefulSet/argocd-application-controller']);
    const controller = expectInstalls(
      specs.get('StatefulSet/argocd-application-controller')!,
      'argocd-application-controller',
      true,
    );
    const server = expectInstalls(specs.get('Deployment/argocd-server')!, 'argocd-server', true);
    expect(server).toEqual(controller);
  });

  it('the Helm values do the same through controller.* and server.*', () => {
    const values = readYaml('argocd', 'helm-values.yaml') as Record<
      'controller' | 'server',
      { initContainers: Container[]; volumeMounts: unknown[]; volumes: PodSpec['volumes'] }
    >;
    expect(Object.keys(values)).toEqual(['controller', 'server']);
    const kustomized = kustomizeBuild().get('Deployment/argocd-server')!.initContainers![0];
    for (const [component, main] of [
      ['controller', 'argocd-application-controller'],
      ['server', 'argocd-server'],
    ] as const) {
      const { initContainers, volumeMounts, volumes } = values[component];
      expect(Object.keys(values[component]).sort()).toEqual(['initContainers', 'volumeMounts', 'volumes']);
      const init = expectInstalls(
        {
          initContainers,
          containers: [{ name: main, volumeMounts: volumeMounts as Container['volumeMounts'] }],
          volumes,
        },
        main,
        false,
      );
      expect(init).toEqual(kustomized);
    }
  });

  it('every example cluster secret runs the binary where the init container puts it', () => {
    const init = (readYaml('argocd', 'patch-server.yaml') as { spec: { template: { spec: PodSpec } } }).spec.template
      .spec.initContainers![0]!;
    const target = `${MOUNT.mountPath}/webapi-credential`;
    expect(init.command).toEqual(['cp', '/usr/local/bin/webapi-credential', target]);
    for (const set of MANIFEST_SETS) {
      for (const file of [set.argocd, set.argocd35]) {
        expect({
          file: `${set.provider}/${file}`,
          command: readArgoCdSecret(set.provider, file).execProviderConfig.command,
        }).toEqual({ file: `${set.provider}/${file}`, command: target });
      }
    }
  });

  it("copies the binary out of the image built from the repository's Dockerfile, where that image keeps it", () => {
    const init = (readYaml('argocd', 'patch-application-controller.yaml') as { spec: { template: { spec: PodSpec } } })
      .spec.template.spec.initContainers![0]!;
    expect(init.image).toMatch(/\/webapi-credential:\d+\.\d+\.\d+$/);
    expect(init.env).toBeUndefined();
    const dockerfile = readFileSync(join(ROOT, 'Dockerfile'), 'utf8');
    expect(dockerfile).toContain('COPY --from=pick /webapi-credential /usr/local/bin/webapi-credential');
    expect(dockerfile).toMatch(/^USER \d+:\d+$/m);
    expect(dockerfile).toContain('case "$TARGETARCH" in amd64) arch=x64 ;; arm64) arch=arm64 ;;');
  });

  it('argocd-secret --cache runs the plugin with its cache on the memory emptyDir the examples mount', async () => {
    const result = await runCli([
      'argocd-secret',
      '--server',
      'https://k8s.example.com',
      '--name',
      'p',
      '--cache',
      '--config-inline',
      'webAPIProviderConfig: {method: GET, url: "https://a.example/t", tokenPath: $.t}',
    ]);
    expect(result.code).toBe(0);
    const secret = YAML.parse(result.stdout) as { stringData: { config: string } };
    const args = (JSON.parse(secret.stringData.config) as { execProviderConfig: { args: string[] } }).execProviderConfig
      .args;
    expect(args.slice(-3)).toEqual(['--cache', '--cache-dir', ARGOCD_CACHE_DIR]);
    expect(ARGOCD_CACHE_DIR.startsWith(`${CACHE_MOUNT.mountPath}/`)).toBe(true);
    expect(result.stderr).toBe(
      `webapi-credential: note: no --ca-file: Argo CD will trust only its system roots for the cluster's certificate (a cluster with a private CA needs --ca-file)\nwebapi-credential: note: --cache-dir ${ARGOCD_CACHE_DIR} must be on a memory-backed emptyDir (medium: Memory) mounted at ${ARGOCD_CACHE_MOUNT} in argocd-application-controller and argocd-server, as examples/argocd does; elsewhere the cache is off\n`,
    );
  });

  it('the README names both files of the two ways a cluster secret can carry the config', () => {
    const readme = readText('argocd', 'README.md');
    expect(readme).toContain('| `argocd-cluster-secret.yaml` | any version with `execProviderConfig` |');
    expect(readme).toContain('| `argocd-cluster-secret-3.5.yaml` | >= 3.5 |');
  });
});
