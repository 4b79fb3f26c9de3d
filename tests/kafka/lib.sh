# Shared helpers for the Kafka integration tests (sourced by each scenario).
#
# Every scenario runs against the real broker started by tests/kafka/run
# (scripts/kafka, KRaft, single node) at $BOOTSTRAP, builds its app with
# $STOATC into $WORK, and uses the app's own `load` and `dump` commands to
# put records in and read them back (read_committed).
set -eu

: "${STOATC:?}" "${BOOTSTRAP:?}" "${WORK:?}" "${KAFKA_DIR:?}"
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)

log() { echo "[$(date +%H:%M:%S)] $*"; }
fail() { echo "FAIL: $*" >&2; exit 1; }

# topic NAME PARTITIONS: (re)creates a topic.  Test records carry 2023
# timestamps, which time-based retention would delete at once: keep them.
topic() {
	"$root/scripts/kafka" topic delete "$1" --dir "$KAFKA_DIR" >/dev/null 2>&1 || true
	"$root/scripts/kafka" topic create "$1" --partitions "$2" --config retention.ms=-1 --dir "$KAFKA_DIR" >/dev/null
}

# build NAME TEMPLATE KEY=VALUE...: writes $WORK/NAME.stoat from a template
# with @KEY@ replaced, and builds $WORK/NAME.
build() {
	name=$1
	template=$2
	shift 2
	cp "$here/$template" "$WORK/$name.stoat"
	cp "$here/throttle.h" "$WORK/"
	for kv in "$@"; do
		k=${kv%%=*}
		v=${kv#*=}
		sed -i "s|@$k@|$v|g" "$WORK/$name.stoat"
	done
	"$STOATC" build "$WORK/$name.stoat" -o "$WORK/$name" "$here/throttle.c" --cflags "${STOAT_TEST_APP_CFLAGS:-}" ||
		fail "stoatc build $name"
}

# gen N PARTITIONS TOPIC FILE [BAD_EVERY]: N numbered input records.
gen() {
	python3 "$here/check.py" gen "$@"
}

# wait_for_log FILE PATTERN SECONDS
wait_for_log() {
	i=0
	while ! grep -q "$2" "$1" 2>/dev/null; do
		i=$((i + 1))
		[ $i -le $(($3 * 10)) ] || return 1
		sleep 0.1
	done
}
