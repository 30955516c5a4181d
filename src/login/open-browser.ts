// Which program opens a URL in the person's browser (SPEC "Interactive login"): $BROWSER when set,
// else the platform's opener. Pure: main.ts runs the command it names, the URL as one argument,
// never through a shell. Another user of the host reads that argument (state, nonce, challenge) in
// the process list, as for every tool that opens a browser: PKCE keeps a code useless without the
// verifier, and the listener's one callback bounds what the state gives (README, Security model).

/** The program and its leading arguments; the URL is added as the last argument, alone. */
export function browserCommand(env: Record<string, string | undefined>, platform: string): string[] | undefined {
  const chosen = env['BROWSER']?.trim();
  if (chosen) return [chosen];
  if (platform === 'darwin') return ['open'];
  if (platform === 'win32') return ['rundll32', 'url.dll,FileProtocolHandler'];
  // xdg-open without a display would start a text browser on our terminal, or fail.
  if (env['DISPLAY'] || env['WAYLAND_DISPLAY']) return ['xdg-open'];
  return undefined;
}
