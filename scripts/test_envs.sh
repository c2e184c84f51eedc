#!/usr/bin/env bash
# Both environments' suites as three concurrent pytest runs: env "modern", and env "tf" in two
# shards (its suite is the longer one); a test whose outcome does not depend on the environment
# runs in one of them (below). Most of the time is spent starting child processes (probe
# workers, the app, the terminal wizard) and waiting on them, so on a 2-core machine the runs
# overlap well. Each run logs to .test-logs/NAME.log; the failures (or the summary line) of
# each are printed, and the exit code is non-zero when any run failed.
#   scripts/test_envs.sh            # all three runs together
#   scripts/test_envs.sh tf         # one environment's whole suite, in the foreground
set -uo pipefail
cd "$(dirname "$0")/.."

# The tf shard "tf-1": the slowest files (whole-case runs in fresh processes) and most of what runs
# once (below); "tf-2": the rest, with the corpus runs.
SLOW=(tests/test_repro.py tests/test_course_scenario.py tests/test_memory_tf.py
      tests/test_verdict.py tests/test_reprex_real.py)
# Triage over the whole corpus of real reports and the wording variants: the same in either
# environment (answered as pastes from another machine), so when the three runs go together
# only tf-2 runs them; a one-environment run runs them too.
CORPUS=(tests/test_triage_corpus.py tests/test_triage_wordings.py)
# The rest of triage's own tests (a paste in, an answer out) are the same in either environment
# too: when together, only tf-1 runs them.
TRIAGE=($(ls tests/test_triage*.py | grep -v -e _corpus -e _wordings) tests/test_issue_search.py
        tests/test_api_history.py)
# The front ends driven end to end (a headless browser, a pseudo-terminal, the app's client, the
# command line) run the same code in either environment: when together, only tf-1 runs them (it
# has TensorFlow's path as well).
FRONT=(tests/test_app_browser.py tests/test_interactive.py tests/test_app_client.py
       tests/test_cli.py)
# PyTorch's reproductions of an injected transformers bug: when together, modern (transformers
# 5) runs them; tf-1 keeps TensorFlow's.
TORCH_REPRO=(tests/test_repro.py::test_injected_raise_in_transformers_gives_a_verified_library_bug_report
             tests/test_repro.py::test_injected_nan_in_transformers_gives_a_verified_library_bug)

pytest_in() {  # ENV ARGS...: pytest in that environment's virtualenv
  local env=$1
  shift
  if [ "$env" = modern ]; then
    export USE_TF=0
    # docs/screenshots/ come from the tf run; this one's go beside its log
    export WIZARD_SCREENSHOTS="${WIZARD_SCREENSHOTS:-$PWD/.test-logs/screenshots-modern}"
  fi
  ".venv-$env/bin/python" -m pytest -q -p no:cacheprovider "$@"
}

run() {  # NAME: one of the three runs that go together, or an environment's whole suite
  case "$1" in
    tf-1) pytest_in tf "${SLOW[@]}" "${TRIAGE[@]}" "${FRONT[@]}" \
            "${TORCH_REPRO[@]/#/--deselect=}" ;;
    tf-2) pytest_in tf tests "${SLOW[@]/#/--ignore=}" "${TRIAGE[@]/#/--ignore=}" \
            "${FRONT[@]/#/--ignore=}" ;;
    modern-part) pytest_in modern tests "${CORPUS[@]/#/--ignore=}" "${TRIAGE[@]/#/--ignore=}" \
            "${FRONT[@]/#/--ignore=}" ;;
    *) pytest_in "$1" tests ;;
  esac
}

if [ $# -eq 1 ]; then
  run "$1"
  exit $?
fi
mkdir -p .test-logs
start=$(date +%s)
names=(tf-1 tf-2 modern-part)
for name in "${names[@]}"; do
  ( run "$name" >".test-logs/$name.log" 2>&1; echo $? >".test-logs/$name.rc" ) &
done
wait
status=0
for name in "${names[@]}"; do
  rc=$(cat ".test-logs/$name.rc")
  echo "=== $name: exit $rc (full log: .test-logs/$name.log)"
  if [ "$rc" -ne 0 ]; then
    status=1
    sed -n '/= FAILURES =/,$p' ".test-logs/$name.log" | tail -n 200
  else
    tail -n 1 ".test-logs/$name.log"
  fi
done
echo "all runs took $(( $(date +%s) - start )) s"
exit $status
