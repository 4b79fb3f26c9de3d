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
	# Through a rename: two builds run in parallel (the fault injection
	# scenarios), and two cp's creating one file race ("File exists").
	cp "$here/throttle.h" "$WORK/throttle.h.$name" && mv -f "$WORK/throttle.h.$name" "$WORK/throttle.h"
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

# --- fault injection (fault_injection_*) ------------------------------------
#
# supervise SLOT COMMAND...: runs COMMAND (an instance of an app), output
# appended to $WORK/SLOT.log, again each time it ends, until
# $WORK/chaos.stop exists.  The running instance's pid is in
# $WORK/SLOT.pid; every end that was not a kill -9 (exit 137) is noted in
# $WORK/SLOT.exits, for chaos_wait.  Run it in the background, before
# chaos.
supervise() {
	slot=$1
	shift
	rm -f "$WORK/chaos.stop"
	: >"$WORK/$slot.exits"
	while [ ! -e "$WORK/chaos.stop" ]; do
		"$@" >>"$WORK/$slot.log" 2>&1 &
		echo $! >"$WORK/$slot.pid"
		rc=0
		wait $! || rc=$?
		[ $rc -eq 137 ] || echo "$slot: exit status $rc at $(date +%H:%M:%S)" >>"$WORK/$slot.exits"
	done
}

# chaos KILLS SLOT...: every 0.8-3.5 s (random), kill -9 the running
# instance of a random SLOT (each supervised, so it restarts at once),
# KILLS times; at the middle kill, also kill -9 the broker and start it
# again (the instances go on retrying meanwhile; the kills resume once it
# is back, so that they all land on working instances).  Then stops the
# supervisors and kill -9s their last instances.
chaos() {
	kills=$1
	shift
	nslots=$#
	broker_at=$(((kills + 1) / 2))
	# The schedule up front: "PAUSE SLOT_NUMBER" per kill.
	python3 -c "import random, sys
for _ in range(int(sys.argv[1])): print(round(random.uniform(0.8, 3.5), 2), random.randint(1, int(sys.argv[2])))" \
		"$kills" "$nslots" >"$WORK/chaos.schedule"
	i=0
	while read -r pause pick; do
		i=$((i + 1))
		sleep "$pause"
		slot=$(eval "echo \${$pick}")
		kill -9 "$(cat "$WORK/$slot.pid")" 2>/dev/null || true
		log "kill $i: $slot"
		if [ "$i" -eq "$broker_at" ]; then
			kill -9 "$(cat "$KAFKA_DIR/kafka.pid")" || fail "no broker to kill"
			log "kill $i: the broker"
			sleep 2
			STOAT_BROKER_START_TIMEOUT=${STOAT_BROKER_START_TIMEOUT:-180} "$root/scripts/kafka" start --dir "$KAFKA_DIR" --port "${BOOTSTRAP##*:}" </dev/null >"$WORK/broker-restart.log" 2>&1 ||
				fail "the broker did not start again: $(cat "$WORK/broker-restart.log")"
			log "the broker is back"
		fi
	done <"$WORK/chaos.schedule"
	touch "$WORK/chaos.stop"
	# A supervisor past its check of chaos.stop writes its new pid at once.
	sleep 0.5
	for slot in "$@"; do
		kill -9 "$(cat "$WORK/$slot.pid")" 2>/dev/null || true
	done
	log "chaos over"
}

# chaos_wait: waits for the supervisors started in the background (after
# chaos), and fails if an instance ended by itself during the chaos (a
# crash, or an error exit: the app must ride out kills and the broker).
chaos_wait() {
	wait
	for f in "$WORK"/*.exits; do
		[ -s "$f" ] || continue
		slot=$(basename "$f" .exits)
		# The log holds every run of the slot: its errors say why one ended, the
		# tail (a later run's) only what came after.
		fail "$(cat "$f"); its errors: $(grep -E ': (error|fatal)' "$WORK/$slot.log" | grep -v '^%' | tail -n 12)
its log ends: $(grep -v '^%' "$WORK/$slot.log" | tail -n 8)"
	done
}

# --- the operations endpoint (http_*) ----------------------------------------
#
# http_port LOG: the port an app started with --http 0 serves on, from its
# "http: serving on http://127.0.0.1:PORT" line (waited for up to 30 s).
http_port() {
	wait_for_log "$1" "http: serving on http://127.0.0.1:" 30 ||
		fail "no 'http: serving on' line: $(grep -v '^%' "$1" | tail -3)"
	sed -n 's|.*http: serving on http://127\.0\.0\.1:\([0-9]*\) .*|\1|p' "$1" | head -n 1
}

# http_get PORT PATH [CURL_ARGS...]: the body of GET PATH; the status code
# goes to $WORK/http.status.
http_get() {
	port=$1
	path=$2
	shift 2
	curl -sS -o "$WORK/http.body" -w '%{http_code}' "$@" "http://127.0.0.1:$port$path" >"$WORK/http.status" ||
		fail "curl $path failed"
	cat "$WORK/http.body"
}

# http_status: the status code of the last http_get.
http_status() {
	cat "$WORK/http.status"
}

# metric PORT NAME: the sum of every sample of NAME in /metrics (0 if none).
metric() {
	http_get "$1" /metrics | awk -v n="$2" '$1 == n || index($1, n "{") == 1 { s += $NF } END { printf "%d\n", s }'
}

# wait_metric PORT NAME VALUE SECONDS: until NAME sums to VALUE.
wait_metric() {
	i=0
	while [ "$(metric "$1" "$2")" != "$3" ]; do
		i=$((i + 1))
		[ $i -le $(($4 * 5)) ] || return 1
		sleep 0.2
	done
}
