# Helpers for the lore tests (t02xx); source after tests/lib.sh.
#
#	lab_setup [MBOX...]   a public-inbox-httpd serving a linux-mm inbox of
#	                      the mboxes (default: the three fixture threads);
#	                      sets LAB, URL (ends in /linux-mm/), ACCESS (its log)
#	proxy_start           the fault-injecting proxy in front of it; sets
#	                      PURL (the inbox through the proxy), RULES, PLOG
#	faults 'JSON'         replace the proxy's fault rules
#	lore_conf [KEY=VAL..] write $CONF: a config for fast tests (no minimum
#	                      poll interval, short retry waits), plus overrides
#	sql QUERY             run a query on $DB
#	requests              lines in the httpd access log so far
#	b4am ID NAME [FLAG..] b4 am -C -o - ID (default flag -t) with the lab's
#	                      configuration: $TMP/NAME.mbx and NAME.b4err
#	b4_same               per "NAME ID VERSION" line of stdin: b4 am -t of ID
#	                      picks the patches and trailers lorebot's VERSION has
#	                      in $TMP/series.json (4 TAP results each)

LORE_LAB=$LOREBOT_SRC/tests/lore-lab.sh
DB=$TMP/lorebot.db
CONF=$TMP/lorebot.conf

lab_setup() {
	LAB=$TMP/lab
	_port=$(free_port)
	URL=$("$LORE_LAB" setup "$LAB" "$_port" "$@" 2>"$TMP/lab-setup.err") || {
		cat "$TMP/lab-setup.err" >&2
		echo "Bail out! cannot start the lore lab"
		exit 1
	}
	URL=$URL/linux-mm/
	ACCESS=$LAB/logs/access.log
	cleanup_add "'$LORE_LAB' stop '$LAB'"
}

proxy_start() {
	_pport=$(free_port)
	RULES=$TMP/rules.json
	PLOG=$TMP/proxy.log
	echo '[]' >"$RULES"
	: >"$PLOG"
	python3 "$LOREBOT_SRC/tests/lore-proxy.py" --listen "$_pport" \
		--upstream "$(cat "$LAB/port")" --rules "$RULES" --log "$PLOG" \
		--pidfile "$TMP/proxy.pid" >"$TMP/proxy.out" 2>&1 &
	_i=0
	until grep -q ready "$TMP/proxy.out" 2>/dev/null; do
		_i=$((_i + 1))
		if [ $_i -gt 200 ]; then
			echo "Bail out! the proxy did not start"
			exit 1
		fi
		sleep 0.05
	done
	cleanup_add "kill $(cat "$TMP/proxy.pid")"
	PURL=http://127.0.0.1:$_pport/linux-mm/
}

faults() {
	printf '%s\n' "$1" >"$RULES"
}

lore_conf() {
	# [build]: as build_config (tests/lib-build.sh): the fixture series'
	# objects may join the shared ccache; sparse only where a test asks
	cat >"$CONF" <<-EOF
	[lore]
		minpoll = 0
		indexlag = 0
		retrydelay = 20ms
		backoffmax = 1s
		retries = 3
		timeout = 10s
	[build]
		ccachewrite = all
		sparse = false
		clang =
	EOF
	for kv in "$@"; do
		git config -f "$CONF" "${kv%%=*}" "${kv#*=}"
	done
}

sql() {
	sqlite3 "$DB" "$1"
}

requests() {
	wc -l <"$ACCESS" | tr -d ' '
}

# b4 am with the lab's configuration (midmask etc.), without its cache;
# -t: trailers sent to the cover letter go to every patch, as lorebot does
b4am() {
	_id=$1 _name=$2
	shift 2
	[ $# -gt 0 ] || set -- -t
	(
		. "$LAB/env.sh"
		mkdir -p "$TMP/b4work" && cd "$TMP/b4work" &&
			b4 am -C "$@" -o - "$_id"
	) >"$TMP/$_name.mbx" 2>"$TMP/$_name.b4err"
}

b4_same() {
	while read -r _n _given _version; do
		b4am "$_given" "$_n"
		is "$?" 0 "$_n: b4 am exits 0"
		"$PY" "$LOREBOT_SRC/tests/b4-compare.py" "$TMP/$_n.mbx" "$TMP/series.json" \
			"$_version" >"$TMP/$_n.cmp"
		is "$?" 0 "$_n: b4 picks the same patches as lorebot"
		like "$(head -1 "$TMP/$_n.cmp")" "^ok patches: [0-9]+ in the same order" \
			"$_n: $(head -1 "$TMP/$_n.cmp")"
		_diffs=$(grep '^DIFF' "$TMP/$_n.cmp")
		is "$_diffs" "" "$_n: the same trailers on every patch"
		[ -z "$_diffs" ] || diag "$_diffs"
	done
}
