// What `cluster-auth` prints, from what it learned: a kube-apiserver AuthenticationConfiguration
// (apiserver.config.k8s.io/v1, structured authentication) with one jwt authenticator, the legacy
// --oidc-* flags and EKS's identity provider fields in comments, and a ClusterRoleBinding when asked.
// Pure: the values were checked by cluster-auth.ts (no control character reaches a comment).
import YAML from 'yaml';
import { shellWord } from '../shell-word.js';

export interface ClusterTrust {
  /** The issuer exactly as the token's `iss` spells it: the apiserver compares it byte for byte. */
  issuer: string;
  /** What the credential's `aud` holds (the apiserver takes a token carrying any one of them). */
  audiences: string[];
  /** The issuer's CA (PEM), when the config trusts it through a CA of its own. */
  ca?: string;
  username: { claim: string; prefix: string };
  groups?: { claim: string; prefix: string };
  /** A ClusterRoleBinding of this user or group (its claim's value, before the prefix) to `role`. */
  bind?: { kind: 'User' | 'Group'; name: string };
  role: string;
  /** Which token goes to the cluster, and where the values came from: the header's words. */
  credential: string;
  from: string;
}

export function clusterAuthManifest(trust: ClusterTrust): string {
  const legacy = legacyFlags(trust).map((flag) => `#     ${flag}`);
  const header = [
    `# What the cluster must trust for this credential (webapi-credential cluster-auth).`,
    `# The credential: ${trust.credential}; these values come from ${trust.from}.`,
    `#`,
    `# The kube-apiserver's structured authentication (--authentication-config=<this first document>;`,
    `# apiserver.config.k8s.io/v1 since Kubernetes 1.34, v1beta1 since 1.30): one jwt authenticator per issuer,`,
    `# at most 64. A cluster that takes no such file takes the legacy flags instead (never both):`,
    ...legacy,
    `# EKS (aws eks associate-identity-provider-config --oidc): ${eksFields(trust)}`,
    `#   (one clientId and no CA there: the issuer must be reachable from the internet with a publicly trusted certificate)`,
  ];
  const documents = [authenticationConfiguration(trust)];
  if (trust.bind) documents.push(clusterRoleBinding(trust, trust.bind));
  const texts = documents.map((document) => YAML.stringify(document, { lineWidth: 0 }));
  if (trust.bind)
    texts[1] = `# kubectl apply -f <this second document>: ${bindingSubject(trust, trust.bind)} may do what ClusterRole ${trust.role} allows\n${texts[1]!}`;
  return `${header.join('\n')}\n${texts.join('---\n')}`;
}

function authenticationConfiguration(trust: ClusterTrust): unknown {
  return {
    apiVersion: 'apiserver.config.k8s.io/v1',
    kind: 'AuthenticationConfiguration',
    jwt: [
      {
        issuer: {
          url: trust.issuer,
          audiences: trust.audiences,
          // Two or more audiences: validation wants MatchAny said (validateAudiences).
          ...(trust.audiences.length > 1 ? { audienceMatchPolicy: 'MatchAny' } : {}),
          ...(trust.ca !== undefined ? { certificateAuthority: trust.ca } : {}),
        },
        claimMappings: {
          // A claim needs its prefix said, "" included: the structured configuration has no default.
          username: { claim: trust.username.claim, prefix: trust.username.prefix },
          ...(trust.groups ? { groups: { claim: trust.groups.claim, prefix: trust.groups.prefix } } : {}),
        },
      },
    ],
  };
}

function clusterRoleBinding(trust: ClusterTrust, bind: NonNullable<ClusterTrust['bind']>): unknown {
  const subject = bindingSubject(trust, bind);
  return {
    apiVersion: 'rbac.authorization.k8s.io/v1',
    kind: 'ClusterRoleBinding',
    // A path segment: no '/' or '%' (RBAC names such as system:basic-user keep their colons).
    metadata: { name: `${subject}-${trust.role}`.replace(/[^A-Za-z0-9:._@-]/g, '-').slice(0, 253) },
    roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: trust.role },
    subjects: [{ apiGroup: 'rbac.authorization.k8s.io', kind: bind.kind, name: subject }],
  };
}

/** The name the cluster sees: the claim's value with its prefix. */
function bindingSubject(trust: ClusterTrust, bind: NonNullable<ClusterTrust['bind']>): string {
  return `${bind.kind === 'User' ? trust.username.prefix : trust.groups!.prefix}${bind.name}`;
}

/** kube-apiserver's --oidc-* flags for the same trust; a prefix of "" is their `-` (none). */
function legacyFlags(trust: ClusterTrust): string[] {
  const [first, ...others] = trust.audiences;
  const flags = [
    `--oidc-issuer-url=${shellWord(trust.issuer)}`,
    `--oidc-client-id=${shellWord(first!)}${others.length > 0 ? `   (one audience only: ${others.join(', ')} not accepted this way)` : ''}`,
    `--oidc-username-claim=${shellWord(trust.username.claim)}`,
    `--oidc-username-prefix=${shellWord(trust.username.prefix === '' ? '-' : trust.username.prefix)}`,
  ];
  if (trust.groups)
    flags.push(
      `--oidc-groups-claim=${shellWord(trust.groups.claim)}`,
      `--oidc-groups-prefix=${shellWord(trust.groups.prefix)}`,
    );
  if (trust.ca !== undefined) flags.push('--oidc-ca-file=<a file holding the certificateAuthority below>');
  return flags;
}

function eksFields(trust: ClusterTrust): string {
  const fields = [
    `issuerUrl=${trust.issuer}`,
    `clientId=${trust.audiences[0]!}`,
    `usernameClaim=${trust.username.claim}`,
    `usernamePrefix=${trust.username.prefix}`,
  ];
  if (trust.groups) fields.push(`groupsClaim=${trust.groups.claim}`, `groupsPrefix=${trust.groups.prefix}`);
  return fields.join(',');
}
