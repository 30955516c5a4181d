// Shell completion scripts for bash, zsh, fish and PowerShell, generated from commander's command
// and option tree, so that a new command or option completes without anyone editing a script.
import type { Command } from 'commander';
import { flagNamed } from './flags.js';

export const SHELLS = ['bash', 'zsh', 'fish', 'powershell'] as const;
export type Shell = (typeof SHELLS)[number];

interface OptionSpec {
  short?: string;
  long?: string;
  description: string;
  /** What the value is: none (a switch), a file, a directory, one of `choices`, a kubeconfig context, or free text. */
  value: 'none' | 'file' | 'dir' | 'choice' | 'context' | 'text';
  choices?: string[];
}

export interface CommandSpec {
  /** Words from the root, e.g. ['cache', 'clear']; [] for the root. */
  path: string[];
  description: string;
  options: OptionSpec[];
  /** Choices of the first positional argument, if it has any. */
  argumentChoices: string[];
  subcommands: CommandSpec[];
}

/** The completion model of `program`. The default command's options complete at the root too. */
export function describeProgram(program: Command): CommandSpec {
  return describe(program, []);
}

function describe(command: Command, path: string[]): CommandSpec {
  const options: OptionSpec[] = command.options
    .filter((o) => !o.hidden)
    .map((o) => {
      const placeholder = /[<[](\w+)[>\]]/.exec(o.flags)?.[1] ?? '';
      // Values the use case checks itself (--api-version) are suggested all the same.
      const choices = o.argChoices ?? (o.long ? flagNamed(o.long)?.completions : undefined);
      const value: OptionSpec['value'] = !(o.required || o.optional)
        ? 'none'
        : choices
          ? 'choice'
          : o.long === '--context'
            ? 'context'
            : placeholder === 'dir'
            ? 'dir'
            : placeholder === 'path' || placeholder === 'file'
              ? 'file'
              : 'text';
      return {
        ...(o.short ? { short: o.short } : {}),
        ...(o.long ? { long: o.long } : {}),
        description: o.description,
        value,
        ...(choices && value === 'choice' ? { choices: [...choices] } : {}),
      };
    });
  options.push({ short: '-h', long: '--help', description: 'display help', value: 'none' });
  // Hidden commands are the scripts' own (`__complete-contexts`), not words to offer.
  const subcommands = command.commands.filter((c) => !(c as unknown as { _hidden?: boolean })._hidden).map((c) => describe(c, [...path, c.name()]));
  const fallback = (command as unknown as { _defaultCommandName?: string })._defaultCommandName;
  const byDefault = subcommands.find((s) => s.path.at(-1) === fallback);
  if (byDefault) {
    const own = new Set(options.map((o) => o.long));
    options.push(...byDefault.options.filter((o) => !own.has(o.long)));
  }
  return {
    path,
    description: command.description(),
    options,
    argumentChoices: [...(command.registeredArguments[0]?.argChoices ?? [])],
    subcommands,
  };
}

export function completionScript(shell: Shell, root: CommandSpec, name: string): string {
  switch (shell) {
    case 'bash':
      return bash(root, name);
    case 'zsh':
      return zsh(root, name);
    case 'fish':
      return fish(root, name);
    case 'powershell':
      return powershell(root, name);
  }
}

function all(spec: CommandSpec): CommandSpec[] {
  return [spec, ...spec.subcommands.flatMap(all)];
}

const flags = (o: OptionSpec) => [o.short, o.long].filter((f): f is string => f !== undefined);
const valued = (root: CommandSpec) => [...new Set(all(root).flatMap((c) => c.options.filter((o) => o.value !== 'none').flatMap(flags)))];
const paths = (root: CommandSpec) => all(root).slice(1).map((c) => c.path.join(' '));
const fn = (name: string) => `_${name.replace(/[^A-Za-z0-9]/g, '_')}`;
const single = (text: string) => `'${text.replace(/'/g, `'\\''`)}'`;

function bash(root: CommandSpec, name: string): string {
  const f = fn(name);
  const cases = all(root).map((c) => {
    // Options whose values complete alike share one case branch.
    const replies = new Map<string, string[]>();
    for (const o of c.options.filter((o) => o.value !== 'none')) {
      const reply =
        o.value === 'file' ? 'compopt -o filenames 2>/dev/null; mapfile -t COMPREPLY < <(compgen -f -- "$cur")'
        : o.value === 'dir' ? 'compopt -o filenames 2>/dev/null; mapfile -t COMPREPLY < <(compgen -d -- "$cur")'
        : o.value === 'choice' ? `mapfile -t COMPREPLY < <(compgen -W ${single(o.choices!.join(' '))} -- "$cur")`
        : o.value === 'context' ? `mapfile -t COMPREPLY < <(compgen -W "$(${f}_contexts)" -- "$cur")`
        : 'COMPREPLY=()';
      replies.set(reply, [...(replies.get(reply) ?? []), ...flags(o)]);
    }
    const values = [...replies].map(([reply, names]) => `        ${names.join('|')}) ${reply}; return ;;`);
    const words = [...c.subcommands.map((s) => s.path.at(-1)!), ...c.argumentChoices].join(' ');
    const options = c.options.flatMap(flags).join(' ');
    return [
      `    ${single(c.path.join(' '))})`,
      ...(values.length ? ['      case "$prev" in', ...values, '      esac'] : []),
      `      if [[ $cur == -* ]]; then words=${single(options)}; else words=${single(words)}; fi ;;`,
    ].join('\n');
  });
  return `# bash completion for ${name}, generated by \`${name} completion bash\`.
# Load it with: source <(${name} completion bash)
# The contexts of the kubeconfig the line names (--kubeconfig), else kubectl's: ${name} prints only
# names of plain characters, as compgen -W expands what it is given.
${f}_contexts() {
  local i kc=""
  for ((i = 1; i < COMP_CWORD - 1; i++)); do [[ \${COMP_WORDS[i]} == --kubeconfig ]] && kc="\${COMP_WORDS[i+1]}"; done
  command ${name} __complete-contexts \${kc:+--kubeconfig "$kc"} 2>/dev/null
}
${f}() {
  local cur="\${COMP_WORDS[COMP_CWORD]}" prev="\${COMP_WORDS[COMP_CWORD-1]}" sub="" next word words i skip=0
  for ((i = 1; i < COMP_CWORD; i++)); do
    word="\${COMP_WORDS[i]}"
    if ((skip)); then skip=0; continue; fi
    case "$word" in
      ${valued(root).join('|')}) skip=1 ;;
      -*) ;;
      *)
        next="\${sub:+$sub }$word"
        case "$next" in
          ${paths(root).map(single).join('|')}) sub="$next" ;;
        esac ;;
    esac
  done
  case "$sub" in
${cases.join('\n')}
  esac
  mapfile -t COMPREPLY < <(compgen -W "$words" -- "$cur")
}
complete -F ${f} ${name}
`;
}

function zsh(root: CommandSpec, name: string): string {
  const f = fn(name);
  // Inside _arguments specs: no quotes or backslashes, and brackets escaped in descriptions.
  const text = (t: string) => t.replace(/['"\\]/g, '').replace(/([[\]])/g, '\\$1');
  const spec = (o: OptionSpec) => {
    const action =
      o.value === 'none' ? '' : o.value === 'file' ? ':file:_files' : o.value === 'dir' ? ':directory:_files -/' : o.value === 'choice' ? `:value:(${o.choices!.join(' ')})` : o.value === 'context' ? `:context:${f}_contexts` : ':value: ';
    const both = flags(o);
    const exclusive = both.length > 1 ? `(${both.join(' ')})` : '';
    // --set repeats; everything else may be given once.
    const names = o.long === '--set' ? `*${both.join(',')}` : both.length > 1 ? `{${both.join(',')}}` : both[0]!;
    return o.long === '--set' || both.length === 1 ? `'${names}[${text(o.description)}]${action}'` : `'${exclusive}'${names}'[${text(o.description)}]${action}'`;
  };
  const cases = all(root).map((c) => {
    const positional = c.subcommands.length
      ? [`'1:command:((${c.subcommands.map((s) => `${s.path.at(-1)}\\:"${text(s.description).replace(/:/g, '')}"`).join(' ')}))'`]
      : c.argumentChoices.length
        ? [`'1:${c.path.at(-1)}:(${c.argumentChoices.join(' ')})'`]
        : [];
    return [`    (${single(c.path.join(' '))})`, '      _arguments -s -S \\', ...[...c.options.map(spec), ...positional].map((s) => `        ${s} \\`), '        && return 0 ;;'].join('\n');
  });
  return `#compdef ${name}
# zsh completion for ${name}, generated by \`${name} completion zsh\`.
# Load it with: source <(${name} completion zsh), or save it as _${name} in a directory of $fpath.
${f}_contexts() {
  local i kc=""
  for ((i = 1; i < CURRENT - 1; i++)); do [[ \${words[i]} == --kubeconfig ]] && kc=\${words[i+1]}; done
  local -a names
  names=(\${(f)"$(command ${name} __complete-contexts \${kc:+--kubeconfig "$kc"} 2>/dev/null)"})
  compadd -a names
}
${f}() {
  local sub="" next word i skip=0 start=1
  for ((i = 2; i < CURRENT; i++)); do
    word="\${words[i]}"
    if ((skip)); then skip=0; continue; fi
    case "$word" in
      (${valued(root).join('|')}) skip=1 ;;
      (-*) ;;
      (*)
        next="\${sub:+$sub }$word"
        case "$next" in
          (${paths(root).map(single).join('|')}) sub="$next"; start=$i ;;
        esac ;;
    esac
  done
  # _arguments sees the words from the subcommand on, as if it were the command.
  if ((start > 1)); then
    words=("\${(@)words[start,-1]}")
    ((CURRENT -= start - 1))
  fi
  case "$sub" in
${cases.join('\n')}
  esac
  return 1
}
if [[ $zsh_eval_context[-1] == loadautofunc ]]; then
  ${f} "$@"
else
  compdef ${f} ${name}
fi
`;
}

function fish(root: CommandSpec, name: string): string {
  const f = fn(name).slice(1);
  const quote = (text: string) => `'${text.replace(/\\/g, '\\\\').replace(/'/g, "\\'")}'`;
  const lines = all(root).flatMap((c) => {
    const at = `-n ${quote(`__${f}_at ${quote(c.path.join(' '))}`)}`;
    return [
      ...c.subcommands.map((s) => `complete -c ${name} ${at} -a ${s.path.at(-1)} -d ${quote(s.description)}`),
      ...c.argumentChoices.map((choice) => `complete -c ${name} ${at} -a ${choice}`),
      ...c.options.map((o) => {
        const value =
          o.value === 'none' ? '' : o.value === 'file' || o.value === 'dir' ? ' -r -F' : o.value === 'choice' ? ` -x -a ${quote(o.choices!.join(' '))}` : o.value === 'context' ? ` -x -a ${quote(`(__${f}_contexts)`)}` : ' -x';
        return `complete -c ${name} ${at}${o.short ? ` -s ${o.short.slice(1)}` : ''}${o.long ? ` -l ${o.long.slice(2)}` : ''}${value} -d ${quote(o.description)}`;
      }),
    ];
  });
  return `# fish completion for ${name}, generated by \`${name} completion fish\`.
# Load it with: ${name} completion fish | source
function __${f}_path
    set -l sub ''
    set -l skip 0
    for word in (commandline -opc)[2..-1]
        if test $skip = 1
            set skip 0
            continue
        end
        switch $word
            case ${valued(root).join(' ')}
                set skip 1
            case '-*'
            case '*'
                set -l next (string trim -- "$sub $word")
                if contains -- "$next" ${paths(root).map(quote).join(' ')}
                    set sub $next
                end
        end
    end
    echo $sub
end
function __${f}_at
    set -l sub (__${f}_path)
    test "$sub" = "$argv[1]"
end
function __${f}_contexts
    set -l words (commandline -opc)
    set -l kc
    for i in (seq (count $words))
        if test "$words[$i]" = --kubeconfig; and test $i -lt (count $words)
            set kc $words[(math $i + 1)]
        end
    end
    if test -n "$kc"
        command ${name} __complete-contexts --kubeconfig $kc 2>/dev/null
    else
        command ${name} __complete-contexts 2>/dev/null
    end
end
complete -c ${name} -f
${lines.join('\n')}
`;
}

function powershell(root: CommandSpec, name: string): string {
  const quote = (text: string) => `'${text.replace(/'/g, "''")}'`;
  const list = (items: string[]) => `@(${items.map(quote).join(', ')})`;
  // Ordinal keys: -c and -C, or -v and -V, are different flags.
  const table = (entries: Array<[string, string]>) =>
    `$(${'$'}t = [System.Collections.Hashtable]::new([System.StringComparer]::Ordinal); ${entries.map(([k, v]) => `${'$'}t[${quote(k)}] = ${v}`).join('; ')}${entries.length ? '; ' : ''}${'$'}t)`;
  // Each candidate a hashtable: @() would unroll a lone @('name', 'description') into two strings.
  const candidate = (text: string, description: string) => `@{ text = ${quote(text)}; tip = ${quote(description)} }`;
  const specs = all(root).map((c) => {
    const values = c.options
      .filter((o) => o.value !== 'none')
      .flatMap((o) => flags(o).map((f): [string, string] => [f, o.value === 'choice' ? `@(${o.choices!.map(quote).join(', ')})` : quote(o.value)]));
    const options = c.options.flatMap((o) => flags(o).map((f) => candidate(f, o.description)));
    const words = [...c.subcommands.map((s) => candidate(s.path.at(-1)!, s.description)), ...c.argumentChoices.map((a) => candidate(a, a))];
    return `  $spec[${quote(c.path.join(' '))}] = @{\n    takes = ${table(values)}\n    options = @(${options.join(', ')})\n    words = @(${words.join(', ')})\n  }`;
  });
  return `# PowerShell completion for ${name}, generated by \`${name} completion powershell\`.
# Load it with: ${name} completion powershell | Out-String | Invoke-Expression   (in $PROFILE)
Register-ArgumentCompleter -Native -CommandName ${quote(name)}, ${quote(`${name}.exe`)} -ScriptBlock {
  param($wordToComplete, $commandAst, $cursorPosition)
  $valued = ${list(valued(root))}
  $paths = ${list(paths(root))}
  $spec = [System.Collections.Hashtable]::new([System.StringComparer]::Ordinal)
${specs.join('\n')}
  # The words before the one being completed.
  $before = [System.Collections.Generic.List[string]]::new()
  foreach ($element in $commandAst.CommandElements) {
    if ($element.Extent.EndOffset -lt $cursorPosition) { $before.Add($element.Extent.Text) }
  }
  $sub = ''
  $skip = $false
  for ($i = 1; $i -lt $before.Count; $i++) {
    $word = $before[$i]
    if ($skip) { $skip = $false; continue }
    if ($valued -ccontains $word) { $skip = $true; continue }
    if ($word.StartsWith('-')) { continue }
    $next = if ($sub) { "$sub $word" } else { $word }
    if ($paths -ccontains $next) { $sub = $next }
  }
  $here = $spec[$sub]
  $prev = if ($before.Count -gt 1) { $before[$before.Count - 1] } else { '' }
  if ($prev -ne '' -and $here['takes'].ContainsKey($prev)) {
    $kind = $here['takes'][$prev]
    if ($kind -is [array]) {
      foreach ($value in $kind) {
        if ($value.StartsWith($wordToComplete, [System.StringComparison]::Ordinal)) { [System.Management.Automation.CompletionResult]::new($value, $value, 'ParameterValue', $value) }
      }
    } elseif ($kind -eq 'context') {
      $kc = @()
      for ($i = 1; $i -lt $before.Count - 1; $i++) { if ($before[$i] -ceq '--kubeconfig') { $kc = @('--kubeconfig', $before[$i + 1]) } }
      foreach ($value in (& ${quote(name)} __complete-contexts @kc 2>$null)) {
        if ($value.StartsWith($wordToComplete, [System.StringComparison]::Ordinal)) { [System.Management.Automation.CompletionResult]::new($value, $value, 'ParameterValue', $value) }
      }
    } elseif ($kind -eq 'dir') {
      foreach ($dir in Get-ChildItem -Directory -Path "$wordToComplete*" -ErrorAction SilentlyContinue) {
        $path = if ([System.IO.Path]::IsPathRooted($wordToComplete)) { $dir.FullName } else { Resolve-Path -Relative $dir.FullName }
        [System.Management.Automation.CompletionResult]::new($path, $path, 'ProviderContainer', $path)
      }
    }
    # Nothing for a file (or free text): PowerShell falls back to its own path completion.
    return
  }
  $candidates = if ($wordToComplete.StartsWith('-')) { $here['options'] } else { $here['words'] }
  foreach ($candidate in $candidates) {
    if ($candidate['text'].StartsWith($wordToComplete, [System.StringComparison]::Ordinal)) {
      $type = if ($candidate['text'].StartsWith('-')) { 'ParameterName' } else { 'ParameterValue' }
      [System.Management.Automation.CompletionResult]::new($candidate['text'], $candidate['text'], $type, $candidate['tip'])
    }
  }
}
`;
}
