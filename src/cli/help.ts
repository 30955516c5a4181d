// The "Examples:" section of every command's --help. A command without examples fails a test.
import type { Command } from 'commander';
import { GET_TOKEN_FLAGS, flagSyntax } from './flags.js';

export const EXAMPLES: Record<string, string[]> = {
  '': [
    'webapi-credential init keycloak > provider.yaml          # a starting config',
    'webapi-credential --config provider.yaml                 # print an ExecCredential',
    'webapi-credential validate --config provider.yaml        # check it without the network',
    'webapi-credential kubeconfig --server https://k8s.example.com --config provider.yaml --merge --use',
    'source <(webapi-credential completion bash)',
  ],
  'get-token': [
    'CLIENT_SECRET=… webapi-credential --config provider.yaml',
    'webapi-credential --config provider.yaml --set audience=prod --cache',
    'curl -H "Authorization: Bearer $(webapi-credential --config provider.yaml -o token)" https://k8s.example.com/version',
    'webapi-credential --config-inline \'webAPIProviderConfig: {method: GET, url: "https://auth.example.com/token", tokenPath: $.token}\'',
  ],
  login: [
    'webapi-credential login --config oidc-device.yaml   # a person logs in once; kubectl uses the cached credential',
    'webapi-credential login --config oidc-login.yaml --grant device   # no browser on this machine: a code to type',
  ],
  logout: [
    'webapi-credential logout --config oidc-device.yaml   # its credential and refresh token gone, revoked at login.revocation.url',
    "webapi-credential logout --kubeconfig ~/.kube/config --context prod   # the config of that context's exec entry",
  ],
  validate: [
    'webapi-credential validate --config provider.yaml --set realm=platform',
    'webapi-credential validate --config examples/keycloak/config.yaml --set issuer=https://keycloak.example.com/realms/platform --set clientId=argocd --allow-unset-env   # CI, without the secret',
  ],
  render: [
    'webapi-credential render --config provider.yaml --set realm=platform    # the request, secrets as [REDACTED]',
  ],
  cache: ['webapi-credential cache clear'],
  'cache clear': [
    'webapi-credential cache clear',
    'webapi-credential cache clear --cache-dir /tmp/webapi-credential-cache',
  ],
  kubeconfig: [
    'webapi-credential kubeconfig --server https://k8s.example.com --ca-file ca.crt --config provider.yaml --merge --use   # into ~/.kube/config',
    'webapi-credential kubeconfig --server https://k8s.example.com --ca-file ca.crt --config provider.yaml > ~/.kube/prod.yaml',
    'KUBECONFIG=~/.kube/prod.yaml kubectl get pods',
    'webapi-credential kubeconfig --server https://k8s.example.com --config provider.yaml --embed-config --no-cache --name prod',
    'webapi-credential kubeconfig --server https://k8s.example.com --config provider.yaml --command /opt/bin/webapi-credential   # not on the PATH',
  ],
  'argocd-secret': [
    'webapi-credential argocd-secret --server https://k8s.example.com --name prod --config provider.yaml > cluster-secret.yaml',
    'webapi-credential argocd-secret --server https://k8s.example.com --name prod --config provider.yaml --embed-config   # Argo CD >= 3.5',
  ],
  init: [
    'webapi-credential init                                    # the providers',
    'webapi-credential init upbound --set org=acme > provider.yaml',
    'webapi-credential init oidc --set issuer=https://idp.example.com --set clientId=ci --set resource=https://k8s.example.com   # resource (RFC 8707): oidc-provider, AD FS, Entra ID v1, PingFederate; audience=: Auth0',
  ],
  doctor: [
    'webapi-credential doctor --config provider.yaml --server https://k8s.example.com --ca-file ca.crt',
    'webapi-credential doctor --kubeconfig ~/.kube/config --context prod   # the exec entry as kubectl runs it',
    'webapi-credential doctor --argocd-secret cluster-secret.yaml -o json',
  ],
  'cluster-auth': [
    "webapi-credential cluster-auth --config oidc-login.yaml --from-token --bind-user   # after login: the id_token's issuer and client id, you as a viewer",
    'webapi-credential cluster-auth --config machine.yaml --from-token --bind-user --role edit > cluster-auth.yaml',
    'webapi-credential cluster-auth --config machine.yaml --set resource=https://k8s.example.com --groups-claim groups --bind-group platform',
  ],
  completion: [
    'source <(webapi-credential completion bash)               # in ~/.bashrc',
    'webapi-credential completion zsh > "${fpath[1]}/_webapi-credential"',
    'webapi-credential completion fish > ~/.config/fish/completions/webapi-credential.fish',
    'webapi-credential completion powershell | Out-String | Invoke-Expression   # in $PROFILE',
  ],
};

/** Adds the examples of EXAMPLES to `command` and every subcommand below it. */
export function addExamples(command: Command, path: string[] = []): void {
  const lines = EXAMPLES[path.join(' ')];
  // The default command's options are what most readers of the top-level help are after.
  const defaultNote = path.length === 0 ? `\nWithout a command, get-token runs. Its options:\n${flagTable()}\n` : '';
  if (lines)
    command.addHelpText('after', `${defaultNote}\nExamples:\n${lines.map((line) => `  $ ${line}`).join('\n')}`);
  for (const sub of command.commands) addExamples(sub, [...path, sub.name()]);
}

/** get-token's flags as commander lists options: syntax, then description and default. */
function flagTable(): string {
  const rows = GET_TOKEN_FLAGS.map(
    (flag) =>
      [
        flagSyntax(flag),
        `${flag.description}${flag.choices ? ` (choices: ${flag.choices.join(', ')})` : ''}${flag.default !== undefined ? ` (default: ${flag.default})` : ''}`,
      ] as const,
  );
  const width = Math.max(...rows.map(([syntax]) => syntax.length));
  return rows.map(([syntax, text]) => `  ${syntax.padEnd(width)}  ${text}`).join('\n');
}
