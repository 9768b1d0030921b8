#!/usr/bin/env bash
# scripts/check-commits on a scratch repository: a good commit passes; a long subject, a missing blank
# line and a missing body each fail, named; merges are skipped; a bad range is a usage error.
set -euo pipefail
script="$1"
repo="$(mktemp -d)"
trap 'rm -rf "$repo"' EXIT
cd "$repo"
git init -q -b main .
git config user.email t@example.com; git config user.name t
commit() { git commit -q --allow-empty -F - ; }
fail() { echo "FAIL: $*"; exit 1; }

printf 'First commit\n\nWhy it exists.\n' | commit
out="$("$script" 1)" || fail "a good commit failed: $out"
echo "$out" | grep -q "^check-commits: 1 commits in HEAD: ok" || fail "no ok line: $out"
# 72 characters exactly is allowed (é counts once)
printf '%s\n\nbody\n' "é$(printf 'x%.0s' $(seq 71))" | commit
"$script" 1 >/dev/null || fail "a 72-character subject failed"

git checkout -q -b topic
printf '%s\n\nbody\n' "$(printf 'y%.0s' $(seq 73))" | commit
printf 'No blank line\nbody right under it\n' | commit
printf 'No body at all\n' | commit
set +e; out="$("$script" main..topic 2>&1)"; rc=$?; set -e
[ $rc -eq 1 ] || fail "bad commits gave exit $rc: $out"
echo "$out" | grep -q "subject is 73 characters (at most 72)" || fail "long subject not named: $out"
echo "$out" | grep -q "no blank line after the subject" || fail "missing blank line not named: $out"
echo "$out" | grep -q "no body" || fail "missing body not named: $out"
echo "$out" | grep -q "3 of 3 commits" || fail "wrong count: $out"
# no argument: since the merge-base with main (the three bad ones)
set +e; out="$("$script" 2>&1)"; rc=$?; set -e
[ $rc -eq 1 ] && echo "$out" | grep -q "3 of 3 commits" || fail "default range: exit $rc: $out"

# a merge commit (no body) is skipped
git checkout -q main
git merge -q --no-ff --no-edit topic
"$script" HEAD^1..HEAD^1 >/dev/null || fail "an empty range failed"
set +e; out="$("$script" HEAD^1..HEAD 2>&1)"; rc=$?; set -e
echo "$out" | grep -q "3 of 3 commits" || fail "the merge was checked: $out"

set +e; "$script" nosuch..HEAD >/dev/null 2>&1; rc=$?; set -e
[ $rc -eq 2 ] || fail "a bad range gave exit $rc"
set +e; "$script" 99 >/dev/null 2>&1; rc=$?; set -e
[ $rc -eq 2 ] || fail "more commits than the branch has gave exit $rc"
echo "check_commits_test: ok"
