// Shell completion generated from commander's tree: the model (unit), then the scripts the real CLI
// prints, run by the real shells. bash always runs; zsh, fish and pwsh where they are found
// (helpers/tools.ts); the PowerShell script's content is checked without pwsh too.
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Argument, Command, Option } from 'commander';
import { beforeAll, describe, expect, it } from 'vitest';
import { describeProgram } from '../../src/cli/completion.js';
import { completionScript } from '../../src/completion/script.js';
import { runCli } from '../helpers/cli.js';
import { describeWith, FISH, PWSH, ZSH } from '../helpers/tools.js';

function tinyProgram(): Command {
  const program = new Command('tiny').option('-q, --quiet', 'say less');
  program
    .command('get', { isDefault: true })
    .description('get it')
    .option('-c, --config <path>', 'a file')
    .addOption(new Option('-o, --output <format>', 'how').choices(['a', 'b']));
  program
    .command('store')
    .description('the store')
    .command('wipe')
    .description('wipe it')
    .option('--dir <dir>', 'a directory')
    .option('--label <text>', 'free text');
  program
    .command('shell')
    .description('print a script')
    .addArgument(new Argument('<shell>').choices(['bash', 'fish']));
  return program;
}

describe('describeProgram', () => {
  it('models commands, the kind of every option value, argument choices, and the default command at the root', () => {
    expect(describeProgram(tinyProgram())).toEqual({
      path: [],
      description: '',
      options: [
        { short: '-q', long: '--quiet', description: 'say less', value: 'none' },
        { short: '-h', long: '--help', description: 'display help', value: 'none' },
        { short: '-c', long: '--config', description: 'a file', value: 'file' },
        { short: '-o', long: '--output', description: 'how', value: 'choice', choices: ['a', 'b'] },
      ],
      argumentChoices: [],
      subcommands: [
        {
          path: ['get'],
          description: 'get it',
          options: [
            { short: '-c', long: '--config', description: 'a file', value: 'file' },
            { short: '-o', long: '--output', description: 'how', value: 'choice', choices: ['a', 'b'] },
            { short: '-h', long: '--help', description: 'display help', value: 'none' },
          ],
          argumentChoices: [],
          subcommands: [],
        },
        {
          path: ['store'],
          description: 'the store',
          options: [{ short: '-h', long: '--help', description: 'display help', value: 'none' }],
          argumentChoices: [],
          subcommands: [
            {
              path: ['store', 'wipe'],
              description: 'wipe it',
              options: [
                { long: '--dir', description: 'a directory', value: 'dir' },
                { long: '--label', description: 'free text', value: 'text' },
                { short: '-h', long: '--help', description: 'display help', value: 'none' },
              ],
              argumentChoices: [],
              subcommands: [],
            },
          ],
        },
        {
          path: ['shell'],
          description: 'print a script',
          options: [{ short: '-h', long: '--help', description: 'display help', value: 'none' }],
          argumentChoices: ['bash', 'fish'],
          subcommands: [],
        },
      ],
    });
  });

  it('names the completion function after the program, and registers it', () => {
    const spec = describeProgram(tinyProgram());
    expect(completionScript('bash', spec, 'my-tool').trimEnd().split('\n').at(-1)).toBe('complete -F _my_tool my-tool');
    expect(completionScript('zsh', spec, 'my-tool').split('\n')[0]).toBe('#compdef my-tool');
    expect(completionScript('fish', spec, 'my-tool')).toContain(
      "complete -c my-tool -n '__my_tool_at \\'store\\'' -a wipe -d 'wipe it'\n",
    );
  });
});

const dir = mkdtempSync(join(tmpdir(), 'webapi-credential-completion-'));
mkdirSync(join(dir, 'configs'));
writeFileSync(join(dir, 'configs', 'cluster.yaml'), '');
writeFileSync(join(dir, 'configs', 'cloud.json'), '');
mkdirSync(join(dir, 'configs', 'cache'));
const script: Record<string, string> = {};

beforeAll(async () => {
  for (const shell of ['bash', 'zsh', 'fish', 'powershell']) {
    const result = await runCli(['completion', shell]);
    expect({ code: result.code, stderr: result.stderr }).toEqual({ code: 0, stderr: '' });
    script[shell] = join(dir, `completion.${shell}`);
    writeFileSync(script[shell], result.stdout);
  }
});

/** Words typed so far (the last one is being completed) -> candidates, for each shell. */
const CASES: Array<[string[], string[]]> = [
  [
    ['webapi-credential', ''],
    [
      'get-token',
      'login',
      'logout',
      'validate',
      'render',
      'cache',
      'kubeconfig',
      'argocd-secret',
      'init',
      'doctor',
      'cluster-auth',
      'completion',
    ],
  ],
  [['webapi-credential', 'va'], ['validate']],
  [['webapi-credential', 'cache', ''], ['clear']],
  [
    ['webapi-credential', 'completion', ''],
    ['bash', 'zsh', 'fish', 'powershell'],
  ],
  [
    ['webapi-credential', '-o', ''],
    ['exec-credential', 'token'],
  ],
  [['webapi-credential', 'get-token', '--output', 't'], ['token']],
  [
    ['webapi-credential', '--api-version', ''],
    ['client.authentication.k8s.io/v1', 'client.authentication.k8s.io/v1beta1'],
  ],
  [
    ['webapi-credential', 'kubeconfig', '--api-version', 'client.authentication.k8s.io/v1b'],
    ['client.authentication.k8s.io/v1beta1'],
  ],
  [
    ['webapi-credential', 'kubeconfig', '--se'],
    ['--server', '--set'],
  ],
  // doctor's -o is the report's format, not get-token's.
  [
    ['webapi-credential', 'doctor', '-o', ''],
    ['text', 'json'],
  ],
  [['webapi-credential', 'doctor', '--ku'], ['--kubeconfig']],
  // An option's value is not a subcommand, even when it is spelt like one.
  [['webapi-credential', '--config', 'kubeconfig', 're'], ['render']],
  [
    ['webapi-credential', 'validate', '--config', `${dir}/configs/cl`],
    [`${dir}/configs/cloud.json`, `${dir}/configs/cluster.yaml`],
  ],
];

const sorted = (list: string[]) => [...list].sort();

describe('the bash completion the CLI prints', () => {
  function complete(words: string[]): string[] {
    const program = `source ${JSON.stringify(script['bash'])}; COMP_WORDS=(${words.map((w) => JSON.stringify(w)).join(' ')}); COMP_CWORD=${words.length - 1}; _webapi_credential 2>/dev/null; printf '%s\\n' "\${COMPREPLY[@]}"`;
    const result = spawnSync('bash', ['--norc', '--noprofile', '-c', program], { encoding: 'utf8' });
    expect(result.stderr).toBe('');
    return result.stdout.split('\n').filter((line) => line !== '');
  }

  it.each(CASES)('completes %j', (words, candidates) => {
    expect(sorted(complete(words))).toEqual(sorted(candidates));
  });

  it('completes only directories for --cache-dir, and nothing for a free-text value', () => {
    expect(complete(['webapi-credential', 'cache', 'clear', '--cache-dir', `${dir}/configs/c`])).toEqual([
      `${dir}/configs/cache`,
    ]);
    expect(complete(['webapi-credential', 'argocd-secret', '--name', ''])).toEqual([]);
  });

  it('an unknown shell is a usage error naming the choices', async () => {
    const result = await runCli(['completion', 'tcsh']);
    expect(result).toEqual({
      code: 2,
      stdout: '',
      stderr:
        "webapi-credential: command-argument value 'tcsh' is invalid for argument 'shell'. Allowed choices are bash, zsh, fish, powershell. (see --help)\n",
    });
  });
});

describeWith(FISH)('the fish completion the CLI prints', () => {
  it.each(CASES)('completes %j', (words, candidates) => {
    const line = words.join(' ');
    const result = spawnSync(
      FISH.path!,
      ['--no-config', '-c', `source ${script['fish']}; complete -C${JSON.stringify(line)}`],
      { encoding: 'utf8' },
    );
    expect(result.stderr).toBe('');
    const got = result.stdout
      .split('\n')
      .filter((l) => l !== '')
      .map((l) => l.split('\t')[0]!);
    // fish lists the directory of a path prefix first; candidates are what matches the last word.
    expect(sorted(got.filter((c) => c.startsWith(words.at(-1)!) && !c.endsWith('/')))).toEqual(sorted(candidates));
  });
});

// zsh completes inside a line editor only: drive an interactive zsh through zpty and record what
// the completion system adds for the line. The marker is spelt "MA""TCH:" in the typed command so
// that the terminal's echo of that command (wrapped differently under load) never contains it.
const ZSH_CAPTURE = `zmodload zsh/zpty
zpty z zsh -f -i
zpty -w z "PS1=''; autoload -U compinit; compinit -u -d $3; source $1"
zpty -w z 'compadd () { builtin compadd -O __hits "$@"; (( $#__hits )) && print -rl -- "MA""TCH:"\${^__hits}; builtin compadd "$@" }'
zpty -w z 'zle -C __go complete-word _main_complete; bindkey "^T" __go'
zpty -n -w z "$2"$'\\x14'
zpty -w z $'\\necho __DONE__'
local line out=""
while zpty -r z line; do
  out+=$line
  [[ $line == *__DONE__* && $line != *echo* ]] && break
done
print -rl -- \${\${(M)\${(f)out//$'\\r'/}:#*MATCH:*}#*MATCH:} | sort -u
zpty -d z
`;

describeWith(ZSH)('the zsh completion the CLI prints', () => {
  const capture = join(dir, 'capture.zsh');
  writeFileSync(capture, ZSH_CAPTURE);
  it.each(CASES.filter(([words]) => !words.at(-1)!.startsWith('/') && !words.at(-1)!.includes(dir)))(
    'completes %j',
    (words, candidates) => {
      const result = spawnSync(ZSH.path!, ['-f', capture, script['zsh']!, words.join(' '), join(dir, 'zcompdump')], {
        encoding: 'utf8',
        timeout: 10_000,
      });
      expect(sorted(result.stdout.split('\n').filter((l) => l !== ''))).toEqual(sorted(candidates));
    },
  );
});

describe('the PowerShell completion the CLI prints', () => {
  const text = () => readFileSync(script['powershell']!, 'utf8');

  it('registers one native completer for the command, with or without .exe', () => {
    expect(
      text()
        .split('\n')
        .filter((line) => line.startsWith('Register-ArgumentCompleter')),
    ).toEqual([
      "Register-ArgumentCompleter -Native -CommandName 'webapi-credential', 'webapi-credential.exe' -ScriptBlock {",
    ]);
  });

  it('has an entry for every command path, and the paths and valued flags the walk needs', () => {
    const entries = [...text().matchAll(/^ {2}\$spec\['([^']*)'\] = @\{$/gm)].map((m) => m[1]);
    expect(entries).toEqual([
      '',
      'get-token',
      'login',
      'logout',
      'validate',
      'render',
      'cache',
      'cache clear',
      'kubeconfig',
      'argocd-secret',
      'init',
      'doctor',
      'cluster-auth',
      'completion',
    ]);
    expect(text()).toContain(
      "  $paths = @('get-token', 'login', 'logout', 'validate', 'render', 'cache', 'cache clear', 'kubeconfig', 'argocd-secret', 'init', 'doctor', 'cluster-auth', 'completion')\n",
    );
    expect(text()).toMatch(
      /^ {2}\$valued = @\('-c', '--config', '--config-inline', '--set', '-o', '--output', '--api-version', '--cache-dir', '--timeout', /m,
    );
  });

  it('offers the values of --output and --api-version, and the shells', () => {
    expect(text()).toContain(
      "$t['-o'] = @('exec-credential', 'token'); $t['--output'] = @('exec-credential', 'token'); $t['--api-version'] = @('client.authentication.k8s.io/v1', 'client.authentication.k8s.io/v1beta1');",
    );
    expect(text()).toContain(
      "    words = @(@{ text = 'bash'; tip = 'bash' }, @{ text = 'zsh'; tip = 'zsh' }, @{ text = 'fish'; tip = 'fish' }, @{ text = 'powershell'; tip = 'powershell' })\n",
    );
  });

  it('doubles a single quote inside a PowerShell string', () => {
    expect(text()).toContain(
      "@{ text = '--cache'; tip = 'use the on-disk token cache (default: off, or the config''s cache.enabled)' }",
    );
    // Every quoted string is closed: an even number of quotes on every line.
    for (const line of text().split('\n')) expect((line.match(/'/g) ?? []).length % 2, line).toBe(0);
  });
});

describeWith(PWSH)('the PowerShell completion, run by pwsh', () => {
  it.each(CASES.filter(([words]) => !words.at(-1)!.includes(dir)))('completes %j', (words, candidates) => {
    const line = words.join(' ');
    const command = `. ${JSON.stringify(script['powershell'])}; (TabExpansion2 -inputScript '${line}' -cursorColumn ${line.length}).CompletionMatches | ForEach-Object { $_.CompletionText }`;
    const result = spawnSync(PWSH.path!, ['-NoProfile', '-NonInteractive', '-Command', command], {
      encoding: 'utf8',
      timeout: 20_000,
    });
    expect(result.stderr).toBe('');
    expect(
      sorted(
        result.stdout
          .split('\n')
          .map((l) => l.trim())
          .filter((l) => l !== ''),
      ),
    ).toEqual(sorted(candidates));
  });
});
