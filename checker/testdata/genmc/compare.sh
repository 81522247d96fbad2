#!/usr/bin/env bash
# Runs ordercheck and GenMC side by side on the same programs, one after
# the other on this machine, and prints a table of complete executions and
# times (under RC11: GenMC's --rc11, ordercheck's default model).
# GenMC is not part of ordercheck: build it from its release and point
# GENMC at the binary (docs/performance.md says how).
#
#   GENMC=/path/to/genmc checker/testdata/genmc/compare.sh
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
root="$here/../../.."
: "${GENMC:?set GENMC to the genmc binary}"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
(cd "$root" && go build -o "$work/ordercheck" ./cmd/ordercheck)

# litmus writes the C litmus test of a shape with n threads.
litmus() {
	local shape=$1 n=$2 f="$work/$1-$2.litmus"
	{
		echo "C $shape-$n"
		echo "{}"
		for ((i = 0; i < n; i++)); do
			case $shape in
			SB)
				echo "P$i (atomic_int* x$i, atomic_int* x$(((i + 1) % n))) {"
				echo "  atomic_store_explicit(x$i, 1, memory_order_relaxed);"
				echo "  int r0 = atomic_load_explicit(x$(((i + 1) % n)), memory_order_relaxed);"
				echo "}" ;;
			Counter)
				echo "P$i (atomic_int* x) {"
				echo "  int r0 = atomic_fetch_add_explicit(x, 1, memory_order_relaxed);"
				echo "}" ;;
			esac
		done
		echo "exists (0:r0=0)"
	} >"$f"
	echo "$f"
}

# seconds runs a command and prints its wall-clock seconds, its output in $work/out.
seconds() {
	local t0 t1
	t0=$(date +%s.%N)
	"$@" >"$work/out" 2>&1 || true
	t1=$(date +%s.%N)
	echo "$t1 - $t0" | bc
}

genmc() { # genmc FILE CFLAGS...: executions and seconds
	local f=$1
	shift
	local s
	s=$(seconds "$GENMC" --rc11 --disable-estimation --disable-mm-detector --disable-ipr -- "$@" "$f")
	local n
	n=$(sed -n 's/^Number of complete executions explored: //p' "$work/out")
	echo "${n:-?} $s"
}

ordercheck() { # ordercheck ARGS...: complete executions and seconds
	local s n
	s=$(seconds "$work/ordercheck" "$@")
	# "N executions (B blocked)": GenMC counts the complete ones, N - B.
	n=$(sed -n 's/.* \([0-9]*\) executions (\([0-9]*\) blocked).*/\1 \2/p' "$work/out" | head -1 | awk '{print $1 - $2}')
	if [ -z "$n" ]; then
		n=$(sed -n 's/^Positive: \([0-9]*\) Negative: \([0-9]*\)$/\1 \2/p' "$work/out" | awk '{print $1 + $2}')
	fi
	echo "${n:-?} $s"
}

# Each row: GenMC's complete executions and seconds, then ordercheck's on
# its default two workers and on one (GenMC explores on one core).
printf '%-30s %12s %9s %12s %9s %9s\n' work GenMC seconds ordercheck seconds "1 worker"
row() { # row NAME GENMC-RESULT ORDERCHECK-ARGS...
	local name=$1 ge gs oe os o1 s1
	read -r ge gs <<<"$2"
	shift 2
	read -r oe os <<<"$(ordercheck "$@")"
	read -r o1 s1 <<<"$(ordercheck "$@" --workers 1)"
	if [ "$o1" != "$oe" ]; then
		oe="$oe/$o1"
	fi
	printf '%-30s %12s %9.2f %12s %9.2f %9.2f\n' "$name" "$ge" "$gs" "$oe" "$os" "$s1"
}
seqcst=(-DLOAD=memory_order_seq_cst -DSTORE=memory_order_seq_cst)
for n in 5 6; do
	row "dlsym reference N=$n" "$(genmc "$here/dlsym-reference.c" -DN=$n)" \
		explore "$here/../dlsym-reference.oc" --param N=$n --engine dpor
	row "dlsym reference seqcst N=$n" "$(genmc "$here/dlsym-reference.c" -DN=$n "${seqcst[@]}")" \
		explore "$here/../dlsym-reference.oc" --variant seqcst --param N=$n --engine dpor
done
row "SB-16" "$(genmc "$here/sb.c" -DN=16)" litmus "$(litmus SB 16)"
row "Counter-7" "$(genmc "$here/counter.c" -DN=7)" litmus "$(litmus Counter 7)"
row "Peterson seq_cst, 2 threads" "$(genmc "$here/peterson.c")" explore "$here/peterson.oc" --engine dpor
row "Peterson seq_cst, 3 threads" "$(genmc "$here/filter.c")" explore "$here/filter.oc" --engine dpor
