# Prints the parts of a C file emitted by stoatc that a golden case
# compares (its "// COMPARE:" line; see tests/golden/run), in the order
# they are named, separated by one blank line.  Each part is a piece of
# the file as it is, byte for byte:
#
#   NAME        every top-level definition of NAME: a function
#               (pipeline_clicks), a struct (Click, for "struct Click
#               {...};") or an initialised variable (app, app_sinks), each
#               with the comment right above it (no blank line between);
#               declarations without a body (prototypes, typedefs) are no
#               parts
#   @header     the comment at the top of the file (the topology summary)
#   @SECTION    a whole section, from its "/* ---- Title ---- */" line to
#               the next one: @types, @serdes, @pipelines, @table-updates,
#               @merge-segments, @application (the title in lower case,
#               spaces as '-', without a leading "the-")
#
# A name that matches nothing is an error (exit status 1, a message on
# standard error), so a renamed function cannot silently compare nothing.
# The generator's regular layout is what makes this simple: a definition
# starts in column 0 and ends at the first later line starting with '}'
# ("}" or "};"); a one-line initialiser ("... = { 0 };") is complete at
# once.
#
# usage: awk -v items="NAME @section ..." -f select.awk FILE.c
#        awk -v list=1 -f select.awk FILE.c    (lists the parts there are)
#
# Written for POSIX awk (Debian's mawk included).

# The identifier a definition's first line(s) declare: the struct's tag,
# else the name before the first '(' (a function), '[' or '=' (a variable).
function declared_name(text,    cut, p, q, head) {
	if (match(text, /^(typedef[ \t]+)?struct[ \t]+[A-Za-z_][A-Za-z0-9_]*[ \t]*\{/)) {
		head = substr(text, RSTART, RLENGTH)
		sub(/^(typedef[ \t]+)?struct[ \t]+/, "", head)
		sub(/[ \t]*\{$/, "", head)
		return head
	}
	cut = length(text) + 1
	p = index(text, "(")
	if (p > 0 && p < cut) cut = p
	p = index(text, "[")
	if (p > 0 && p < cut) cut = p
	p = index(text, "=")
	if (p > 0 && p < cut) cut = p
	head = substr(text, 1, cut - 1)
	sub(/[ \t]+$/, "", head)
	if (match(head, /[A-Za-z_][A-Za-z0-9_]*$/))
		return substr(head, RSTART, RLENGTH)
	return ""
}

# s with every string literal emptied ("a{;" -> "").
function unquoted(s) {
	gsub(/"([^"\\]|\\.)*"/, "\"\"", s)
	return s
}

# The number of times character c occurs in s.
function count(s, c,    n, i) {
	n = 0
	for (i = 1; i <= length(s); i++)
		if (substr(s, i, 1) == c) n++
	return n
}

# Prints lines a..b of the file, with a blank line before every part but
# the first.
function emit(a, b,    i) {
	if (printed) print ""
	for (i = a; i <= b; i++) print line[i]
	printed = 1
}

{ line[NR] = $0 }

END {
	n = NR
	ndef = 0
	nsec = 0
	header_end = 0
	in_comment = 0
	comment_start = 0
	comment_end = -1
	comment_is_marker = 0
	for (i = 1; i <= n; i++) {
		l = line[i]
		if (in_comment) {
			if (index(l, "*/")) {
				in_comment = 0
				comment_end = i
				if (!header_end) header_end = i
			}
			continue
		}
		if (l ~ /^\/\*/) {
			comment_start = i
			comment_is_marker = 0
			if (l ~ /^\/\* ---- .* -+ \*\/$/) {
				title = l
				sub(/^\/\* ---- /, "", title)
				sub(/ -+ \*\/$/, "", title)
				title = tolower(title)
				gsub(/ /, "-", title)
				sub(/^the-/, "", title)
				nsec++
				sec_name[nsec] = title
				sec_start[nsec] = i
				comment_is_marker = 1
			}
			if (index(substr(l, 3), "*/")) {
				comment_end = i
				if (!header_end) header_end = i
			} else {
				in_comment = 1
			}
			continue
		}
		if (l !~ /^[A-Za-z_]/)
			continue
		# A declaration or a definition: read on to its '{' or ';', outside
		# string literals (a string's braces and semicolons are text).
		j = i
		text = unquoted(l)
		while (text !~ /[{;]/ && j < n) {
			j++
			text = text " " unquoted(line[j])
		}
		semi = index(text, ";")
		brace = index(text, "{")
		if (brace == 0 || (semi > 0 && semi < brace)) {
			if (text ~ /=[ \t]*""/) {
				# A variable initialised with a string (app_topology_dot).
				ndef++
				def_name[ndef] = declared_name(text)
				def_start[ndef] = (comment_end == i - 1 && !comment_is_marker) ? comment_start : i
				def_end[ndef] = j
			}
			i = j    # a prototype, typedef or other declaration
			continue
		}
		ndef++
		def_name[ndef] = declared_name(text)
		def_start[ndef] = (comment_end == i - 1 && !comment_is_marker) ? comment_start : i
		if (text ~ /;[ \t]*$/ && count(text, "{") == count(text, "}")) {
			def_end[ndef] = j    # "static const int x[] = { 0 };"
			i = j
			continue
		}
		for (k = j + 1; k <= n && line[k] !~ /^}/; k++)
			;
		if (k > n) {
			printf "select.awk: the definition at line %d does not end\n", i > "/dev/stderr"
			exit 1
		}
		def_end[ndef] = k
		i = k
	}
	# Each section ends before the next one; trailing blank lines dropped.
	for (s = 1; s <= nsec; s++) {
		e = (s < nsec) ? sec_start[s + 1] - 1 : n
		while (e > sec_start[s] && line[e] ~ /^[ \t]*$/) e--
		sec_end[s] = e
	}

	if (list) {
		print "@header"
		for (s = 1; s <= nsec; s++) print "@" sec_name[s]
		for (d = 1; d <= ndef; d++) printf "%s (lines %d-%d)\n", def_name[d], def_start[d], def_end[d]
		exit 0
	}
	printed = 0
	missing = 0
	nitems = split(items, item, /[ \t]+/)
	for (t = 1; t <= nitems; t++) {
		want = item[t]
		if (want == "") continue
		found = 0
		if (want == "@header") {
			if (header_end) {
				emit(1, header_end)
				found = 1
			}
		} else if (want ~ /^@/) {
			for (s = 1; s <= nsec; s++)
				if ("@" sec_name[s] == want) {
					emit(sec_start[s], sec_end[s])
					found = 1
				}
		} else {
			for (d = 1; d <= ndef; d++)
				if (def_name[d] == want) {
					emit(def_start[d], def_end[d])
					found = 1
				}
		}
		if (!found) {
			printf "select.awk: the emitted C has no %s\n", want > "/dev/stderr"
			missing = 1
		}
	}
	exit missing
}
