# bash completion for runbox, the Runbox CLI (cli/, `runbox --help`).
# Installed to share/bash-completion/completions/runbox; to try it from a build tree:
#   source resources/completion/runbox.bash
# Completes commands, subcommands and each command's options (the lists cli/*Command.cpp
# declare; tests/integration/test_cli_completion.cpp checks they agree), and local files where a
# command takes them.

_runbox() {
    local cur prev words cword
    if declare -F _init_completion >/dev/null 2>&1; then
        _init_completion -n : || return
    else
        cur="${COMP_WORDS[COMP_CWORD]}"
        prev="${COMP_WORDS[COMP_CWORD-1]}"
        words=("${COMP_WORDS[@]}")
        cword=$COMP_CWORD
    fi

    local global="--state-dir --url --token --token-file --pool --fingerprint --fleet --help"
    local commands="health workspace workspaces exec run ps logs cancel quotas cp files policy npu env pool"
    local exec_opts="--workspace --kind --code --code-file --cwd --env --timeout --timeout-ms --max-output --max-output-bytes --stdin --id --environment --npu --json"

    # The command and subcommand: the first words that are neither options nor option values.
    local i cmd="" sub=""
    for ((i = 1; i < cword; i++)); do
        case "${words[i]}" in
            --state-dir|--url|--token|--token-file|--pool|--fingerprint|--fleet) ((i++)) ;;
            -*) ;;
            *)
                if [[ -z $cmd ]]; then cmd="${words[i]}"
                elif [[ -z $sub ]]; then sub="${words[i]}"; break
                fi ;;
        esac
    done

    case "$prev" in
        --state-dir) COMPREPLY=($(compgen -d -- "$cur")); return ;;
        --token-file|--code-file|--fleet) COMPREPLY=($(compgen -f -- "$cur")); return ;;
        --kind) COMPREPLY=($(compgen -W "shell python r" -- "$cur")); return ;;
        --url|--token|--workspace|--cwd|--env|--timeout|--timeout-ms|--max-output|--max-output-bytes|--stdin|--id|--environment|--npu|--gres|--revision|--count|--offset|--state|--limit|--cursor|--mode|--allow|--allow-private|--provisioner|--idle-timeout)
            return ;;
    esac

    local words_list=""
    case "$cmd" in
        "") words_list="$commands $global" ;;
        health) words_list="--json" ;;
        workspaces) words_list="--light --strong --json" ;;
        workspace)
            case "$sub" in
                "") words_list="create ls rm usage" ;;
                create) words_list="--light --count --environment --revision --json" ;;
                ls|list) words_list="--light --strong --json" ;;
                rm|delete|usage) words_list="--json" ;;
            esac ;;
        exec) words_list="$exec_opts --" ;;
        run) words_list="$exec_opts --follow -f --" ;;
        ps) words_list="--workspace --state --limit --cursor --json -l" ;;
        logs) words_list="--follow -f --offset --json" ;;
        cancel) words_list="--no-wait --json" ;;
        quotas)
            case "$sub" in
                "") words_list="set --json" ;;
                set) words_list="--workspace --output --upload-file --upload-request --timeout --max-timeout --concurrency --light-workspaces --memory --processes --cpus --json" ;;
            esac ;;
        cp)
            words_list="--overwrite --mode --parents --json"
            [[ $cur != -* ]] && COMPREPLY=($(compgen -f -- "$cur")) ;;
        files)
            case "$sub" in
                "") words_list="ls stat rm mv mkdir" ;;
                ls|stat) words_list="--json" ;;
                rm) words_list="-r --recursive" ;;
                mv) words_list="--overwrite --parents -p" ;;
                mkdir) words_list="--parents -p --json" ;;
            esac ;;
        policy)
            case "$sub" in
                "") words_list="show set off" ;;
                show|off) words_list="--json" ;;
                set) words_list="--allow --allow-private --json" ;;
            esac ;;
        npu)
            case "$sub" in
                "") words_list="ls" ;;
                ls) words_list="--refresh --json" ;;
            esac ;;
        env)
            case "$sub" in
                "") words_list="ls create install uninstall show rm" ;;
                ls|show) words_list="--json" ;;
                create) words_list="--python --r --provisioner --no-wait" ;;
                install) words_list="--no-wait --wheel --channel --index-url" ;;
                uninstall) words_list="--no-wait" ;;
            esac ;;
        pool)
            case "$sub" in
                "") words_list="ls create add rm" ;;
                ls|list|rm|delete) words_list="--json" ;;
                create) words_list="--per-host --host --slurm --max-hosts --exit-when-idle --gres --sbatch-script --json" ;;
                add) words_list="--light --strong --idle-timeout --json" ;;
            esac ;;
    esac
    COMPREPLY+=($(compgen -W "$words_list" -- "$cur"))
}

complete -F _runbox runbox
