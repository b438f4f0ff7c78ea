#!/usr/bin/env bash
# Checks the heap course with gcc alone (mend is not used here):
#  1. each reference.c compiles cleanly with gcc + ASan/UBSan and, on every tests/N.in,
#     exits 0, prints nothing on stderr (no sanitizer or leak report) and prints exactly tests/N.out;
#  2. each submissions/*.c compiles with `gcc -std=c99 -Wall` (warnings allowed) and fails at
#     least one test natively: wrong output, a non-zero exit (a crash), or no end within 5 s;
#  3. faults.tsv has a row for every submission and only for them, and each row's `faulty`
#     text is what the submission has on that line (trimmed), or the line is a deletion.
# Nothing is regenerated. Usage: courses/heap/check.sh   (from anywhere; exit status 0 = all good)
set -u
cd "$(dirname "$0")" || exit 2
CC=${CC:-gcc}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
errors=0
err() { echo "FAIL: $*"; errors=$((errors + 1)); }

# Runs $1 on $2 with a 5 s limit and bounded output (and, for submissions, bounded memory:
# ASan needs a large address space, so not for references); stdout to $3; returns the status.
run() {
    { ( ulimit -f 4096; timeout 5 "$1" <"$2" >"$3" 2>"$3.err" ); } 2>/dev/null
}
run_limited() {
    { ( ulimit -f 4096; ulimit -v 1000000; timeout 5 "$1" <"$2" >"$3" 2>"$3.err" ); } 2>/dev/null
}

nprob=0 nsub=0
for dir in */; do
    p=${dir%/}
    [ -f "$p/reference.c" ] || continue
    nprob=$((nprob + 1))
    ref="$work/$p-ref"
    if ! $CC -std=c99 -Wall -Wextra -Werror -fsanitize=address,undefined -g \
            "$p/reference.c" -o "$ref" 2>"$work/cc.err"; then
        err "$p/reference.c does not compile cleanly: $(head -3 "$work/cc.err")"
        continue
    fi
    ntests=0
    for in in "$p"/tests/*.in; do
        out=${in%.in}.out
        ntests=$((ntests + 1))
        [ -f "$out" ] || { err "$out missing"; continue; }
        run "$ref" "$in" "$work/got"
        rc=$?
        [ $rc -eq 0 ] || err "$p reference exits $rc on $in"
        [ -s "$work/got.err" ] && err "$p reference writes to stderr on $in: $(head -2 "$work/got.err")"
        cmp -s "$work/got" "$out" || err "$p reference output differs from $out"
    done
    [ $ntests -ge 5 ] || err "$p has only $ntests tests"
    for sub in "$p"/submissions/*.c; do
        nsub=$((nsub + 1))
        id=$(basename "$sub" .c)
        exe="$work/$id"
        if ! $CC -std=c99 -Wall "$sub" -o "$exe" 2>"$work/cc.err"; then
            err "$sub does not compile: $(grep -m1 error "$work/cc.err")"
            continue
        fi
        failed=""
        for in in "$p"/tests/*.in; do
            run_limited "$exe" "$in" "$work/got"
            rc=$?
            if [ $rc -ne 0 ] || ! cmp -s "$work/got" "${in%.in}.out"; then
                failed="$failed $(basename "$in" .in)"
            fi
        done
        if [ -z "$failed" ]; then
            err "$sub passes every test"
        else
            printf '  %-34s fails test(s)%s\n' "$id" "$failed"
        fi
        grep -q "^$p	$id	" faults.tsv || err "$id has no row in faults.tsv"
    done
done

# faults.tsv: every row names an existing submission, and `faulty` is on line `line`.
while IFS=$'\t' read -r p id fam line orig faulty; do
    sub="$p/submissions/$id.c"
    [ -f "$sub" ] || { err "faults.tsv names $sub, which does not exist"; continue; }
    case $fam in
        lost-head|missing-advance|wrong-link|wrong-guard|swapped-statements|off-by-one|\
        missing-terminator|free-too-early|missing-statement|wrong-operator|wrong-constant) ;;
        *) err "faults.tsv: $id has unknown family $fam" ;;
    esac
    [ "$faulty" = "(deleted)" ] && continue
    have=$(sed -n "${line}p" "$sub" | sed 's/^[[:space:]]*//; s/[[:space:]]*$//')
    [ "$have" = "$faulty" ] || err "faults.tsv: $id line $line is \`$have\`, not \`$faulty\`"
done <faults.tsv

echo "$nprob problems, $nsub submissions, $(wc -l <faults.tsv) fault rows, $errors error(s)"
[ $errors -eq 0 ]
