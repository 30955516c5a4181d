// A fleet of clusters behind one token API shares one credential: the cluster info is in the key only
// when a template names `cluster` (SPEC Cache). Argo CD runs the plugin once per cluster with each
// cluster's spec.cluster in KUBERNETES_EXEC_INFO; twelve clusters, one config, one request.
import { describe, expect, it } from 'vitest';
import { runCli } from '../helpers/cli.js';
import { V1, execInfo } from '../helpers/integration.js';
import { cachedConfig, getToken, sandbox, tokenApis } from './support.js';

const startApi = tokenApis();
const CLUSTERS = Array.from({ length: 12 }, (_, i) => `https://cluster-${i + 1}.example:6443`);
const token = (stdout: string) => (JSON.parse(stdout) as { status: { token: string } }).status.token;
const cluster = (server: string) => ({
  server,
  'certificate-authority-data': Buffer.from(`CA of ${server}`).toString('base64'),
});

describe('a fleet of clusters behind one token API', () => {
  it('makes one request for 12 clusters started together, and each cluster is then served by the fast path', async () => {
    const api = await startApi(undefined, 300);
    const box = sandbox();
    const config = cachedConfig(api);
    const run = (server: string, args: string[] = []) =>
      getToken(box, config, ['--cache', ...args], { KUBERNETES_EXEC_INFO: execInfo(V1, cluster(server)) });

    const cold = await Promise.all(CLUSTERS.map((server) => run(server)));
    expect(cold.map((r) => [r.code, r.stderr, token(r.stdout)])).toEqual(CLUSTERS.map(() => [0, '', 'token-1']));
    expect(api.requests).toHaveLength(1);

    const warm = await Promise.all(CLUSTERS.map((server) => run(server, ['--verbose'])));
    expect(warm.map((r) => r.stderr)).toEqual(
      CLUSTERS.map(() => `webapi-credential: cache: hit (fast path, ${box.cacheDir})\n`),
    );
    expect(api.requests).toHaveLength(1);
  });

  it('makes one request per cluster when a template reads cluster.server', async () => {
    const api = await startApi(undefined, 100);
    const box = sandbox();
    const config = cachedConfig(api, { form: { audience: '{{ cluster.server }}' } });
    const run = (server: string, args: string[] = []) =>
      getToken(box, config, ['--cache', ...args], { KUBERNETES_EXEC_INFO: execInfo(V1, cluster(server)) });

    // --verbose: should a cluster ask again, the cache's trace of both rounds says why.
    const cold = await Promise.all(CLUSTERS.map((server) => run(server, ['--verbose'])));
    expect(cold.map((r) => r.code)).toEqual(CLUSTERS.map(() => 0));
    expect(new Set(cold.map((r) => token(r.stdout))).size).toBe(12);
    expect(api.requests.map((r) => new URLSearchParams(r.body).get('audience')).sort()).toEqual([...CLUSTERS].sort());

    // Each cluster has its own entry now: a second round asks nothing.
    const warm = await Promise.all(CLUSTERS.map((server) => run(server, ['--verbose'])));
    const rounds = (results: typeof warm) =>
      results.map((r) => `${token(r.stdout)} ${r.stderr.trim().split('\n').join(' | ')}`);
    expect(
      warm.map((r) => token(r.stdout)),
      `cold: ${rounds(cold).join('\n')}\nwarm: ${rounds(warm).join('\n')}`,
    ).toEqual(cold.map((r) => token(r.stdout)));
    expect(api.requests).toHaveLength(12);
  });

  it.each([
    ['a let', { let: { where: 'cluster["certificate-authority-data"] ?? "none"' } }, { 'X-Where': '{{ where }}' }],
    ['a branch that is not taken', {}, { 'X-Where': '{{ env.NEVER_SET ? cluster.server : "fixed" }}' }],
  ])('keys on the cluster when only %s names it', async (_name, extra, headers) => {
    const api = await startApi();
    const box = sandbox();
    const config = cachedConfig(api, { ...extra, headers: { Authorization: 'Bearer {{ env.API_KEY }}', ...headers } });
    for (const server of CLUSTERS.slice(0, 3)) {
      const result = await getToken(box, config, ['--cache'], { KUBERNETES_EXEC_INFO: execInfo(V1, cluster(server)) });
      expect(result.code).toBe(0);
    }
    expect(api.requests).toHaveLength(3);
  });

  it('keeps a config from the cluster entry (--config-from-cluster) in the key: two configs, two requests', async () => {
    const api = await startApi();
    const box = sandbox();
    const withConfig = (server: string, audience: string) => ({
      ...cluster(server),
      config: {
        webAPIProviderConfig: { ...JSON.parse(cachedConfig(api, { form: { audience } })).webAPIProviderConfig },
      },
    });
    const run = (server: string, audience: string) =>
      runCli(['--cache', '--config-from-cluster'], {
        env: box.env({ API_KEY: 'k', KUBERNETES_EXEC_INFO: execInfo(V1, withConfig(server, audience)) }),
      });
    const results = [await run(CLUSTERS[0]!, 'a'), await run(CLUSTERS[1]!, 'a'), await run(CLUSTERS[2]!, 'b')];
    expect(results.map((r) => token(r.stdout))).toEqual(['token-1', 'token-1', 'token-2']);
    expect(api.requests.map((r) => new URLSearchParams(r.body).get('audience'))).toEqual(['a', 'b']);
  });
});
