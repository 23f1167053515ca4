# zsh -f zsh-complete.zsh FOLDER LINE: what zsh's completion offers after LINE (typed, then TAB),
# one candidate a line, with the completion functions of FOLDER first in $fpath. An interactive zsh
# in a pseudo-terminal (zpty) runs compinit and the real completion widget; compadd is wrapped to
# write every candidate that matches the word being completed to a file instead of the terminal.
emulate -L zsh
zmodload zsh/zpty || exit 3
folder=$1 line=$2
out=$(mktemp -d)
trap 'zpty -d completion 2>/dev/null; rm -rf -- $out' EXIT

cat >$out/setup.zsh <<SETUP
PS1='' PROMPT='' RPROMPT=''
unsetopt zle_bracketed_paste
fpath=(${(q)folder} \$fpath)
autoload -Uz compinit && compinit -u -D
zstyle ':completion:*' list-grouped false
zstyle ':completion:*' insert-tab false
compadd() {
    # The calls that only ask (-O, -A, -D) and the ones with nothing to add pass through.
    if (( \${@[(I)-[OAD]]} )); then
        builtin compadd "\$@"
        return
    fi
    local -a found
    builtin compadd -O found "\$@"
    (( \$#found )) && print -rl -- \$found >>${(q)out}/candidates
    builtin compadd "\$@"
}
completion-done() { print done >${(q)out}/done }
comppostfuncs=(completion-done)
bindkey '^I' complete-word
print ready >${(q)out}/ready
SETUP

zpty -b completion zsh -f -i || exit 3
zpty -w completion "source ${(q)out}/setup.zsh"
repeat 100; do [[ -e $out/ready ]] && break; sleep 0.1; done
[[ -e $out/ready ]] || { print -u2 "zsh-complete: the shell did not start"; exit 3 }
zpty -w -n completion "$line"$'\t'
repeat 100; do [[ -e $out/done ]] && break; sleep 0.1; done
[[ -e $out/done ]] || { print -u2 "zsh-complete: no completion within 10 s"; exit 3 }
[[ -e $out/candidates ]] && sort -u $out/candidates
exit 0
