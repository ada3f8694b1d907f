# Shared by the CLI contract scripts (cli_test.sh, spectrum_cli_test.sh); sourced, not run.
# Expects S (the seprank executable) and T (a scratch folder); counts failures in `fails`.
fails=0
fail() { echo "FAIL: $*"; fails=$((fails + 1)); }
# A helper called before it is defined (or misspelt) would print "command not found" and
# pass silently; it fails the script instead.
# (bash runs the handler in a subshell: the count is the script's own, signalled back)
trap 'fails=$((fails + 1))' USR1
command_not_found_handle() { echo "FAIL: command not found: $1 (a helper called before its definition?)"; kill -USR1 $$; return 127; }

# expect_rc RC MUST_MENTION -- args...: checks the exit code, that stderr mentions the text,
# and that an error is one line (docs/usage.md: one clear line per bad input)
expect_rc() {
  local rc=$1 mention=$2; shift 3
  "$S" "$@" >"$T/out" 2>"$T/err"
  local got=$?
  [[ $got -eq $rc ]] || { fail "'$*': exit $got, expected $rc; stderr: $(cat "$T/err")"; return; }
  if [[ -n "$mention" ]]; then
    grep -qF -- "$mention" "$T/err" || fail "'$*': stderr lacks '$mention': $(cat "$T/err")"
    [[ $(wc -l <"$T/err") -eq 1 && $(head -c 9 "$T/err") == "seprank: " ]] || fail "'$*': not one error line starting seprank: "
  fi
}
