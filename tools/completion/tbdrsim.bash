# Bash completion for tbdrsim: subcommands, each subcommand's options (read from its own --help, so
# the list never goes stale), preset names after --preset, kinds after --set/--vary, files elsewhere.
# Use: `source tools/completion/tbdrsim.bash`, or install it as /usr/share/bash-completion/completions/tbdrsim.

# The words of "tbdrsim [SUBCOMMAND] --help" that are options (-j, --jobs, --json, ...).
_tbdrsim_options() {
  "$1" ${2:+"$2"} --help 2>/dev/null | grep -oE '(^|[ ,])--?[a-zA-Z][a-zA-Z-]*' | sed 's/^[ ,]//' | sort -u
}

_tbdrsim_subcommands() {
  "$1" --help 2>/dev/null | sed -n '/^Subcommands:/,$p' | awk 'NR > 1 && NF { print $1 }'
}

_tbdrsim() {
  local cur=${COMP_WORDS[COMP_CWORD]} prev=${COMP_WORDS[COMP_CWORD - 1]} binary=${COMP_WORDS[0]}
  local subcommand="" word
  for word in "${COMP_WORDS[@]:1:COMP_CWORD-1}"; do
    case "$word" in -*) ;; *) subcommand=$word; break ;; esac
  done
  case "$prev" in
    --preset)
      local presets
      presets=$("$binary" models 2>/dev/null | sed -n 's/^presets: //p')
      COMPREPLY=($(compgen -W "$presets" -- "$cur") $(compgen -f -X '!*.json' -- "$cur"))
      return ;;
    --set | --vary)
      local kinds
      kinds=$("$binary" models 2>/dev/null | awk -F: '/^[a-z_]+: / && $1 != "presets" { print $1 "="; print $1 "." }')
      COMPREPLY=($(compgen -W "$kinds" -- "$cur"))
      compopt -o nospace 2>/dev/null
      return ;;
    -j | --jobs | --threads | --repeat | --width | --height | --fps | --tolerance | --max-mismatch | --tile | --shard | --camera)
      return ;;
  esac
  if [ -z "$subcommand" ]; then
    COMPREPLY=($(compgen -W "$(_tbdrsim_subcommands "$binary") --help --version" -- "$cur"))
  elif [[ "$cur" == -* ]]; then
    COMPREPLY=($(compgen -W "$(_tbdrsim_options "$binary" "$subcommand")" -- "$cur"))
  else
    COMPREPLY=($(compgen -f -- "$cur"))
  fi
}
complete -o filenames -F _tbdrsim tbdrsim
