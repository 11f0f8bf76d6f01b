# Prints the chat engine's speed figures (issue 10) and the data-at-scale figures (issue 11,
# BenchmarkHistoryAtScale, whose own full table is printed above them) from `go test -bench` output
# as tables of figure, target and measured value. Input: the benchmark lines of make bench.
function row(figure, target, bench, metric,    v) {
	v = (bench SUBSEP metric) in m ? m[bench, metric] : "not run"
	printf "| %-52s | %-8s | %-9s |\n", figure, target, v
}
/^Benchmark/ {
	name = $1; sub(/-[0-9]+$/, "", name)
	for (i = 3; i < NF; i += 2) m[name, $(i + 1)] = $i
}
END {
	print ""
	print "Chat engine speed (issue 10):"
	printf "| %-52s | %-8s | %-9s |\n", "figure", "target", "measured"
	row("relay ratio, 2,000 deltas as fast as possible", "<= 1.2", "BenchmarkRelay/fast", "ratio")
	row("  upstream's own time (ms)", "", "BenchmarkRelay/fast", "upstream-ms")
	row("relay ratio, 2,000 deltas in 6 ms (issue's upstream)", "<= 1.2", "BenchmarkRelay/6ms", "ratio")
	row("relay ratio, 2,000 deltas 1 ms apart", "<= 1.05", "BenchmarkRelay/paced", "ratio")
	row("first text after the upstream's first delta (ms)", "<= 3", "BenchmarkRelay/fast", "first-text-ms")
	row("first text, paced upstream (ms)", "<= 3", "BenchmarkRelay/paced", "first-text-ms")
	row("any delta to the browser, p95 (ms)", "<= 150", "BenchmarkRelay/paced", "delta-p95-ms")
	row("chat POSTs/s, offline agent at delay 0, 8 people", ">= 250", "BenchmarkChatPosts/8-people", "posts/s")
	row("  their p99 (ms)", "<= 50", "BenchmarkChatPosts/8-people", "p99-ms")
	row("chat POSTs/s answered of 250/s offered, 8 people", ">= 250", "BenchmarkChatPosts/8-people-at-250", "posts/s")
	row("  their p99, timed from when each was due (ms)", "<= 50", "BenchmarkChatPosts/8-people-at-250", "p99-ms")
	row("  their p50 (ms)", "", "BenchmarkChatPosts/8-people-at-250", "p50-ms")
	row("chat POSTs/s, one person on 8 clients", "", "BenchmarkChatPosts/one-person", "posts/s")
	row("  their p99 (ms)", "", "BenchmarkChatPosts/one-person", "p99-ms")
	row("RSS with 5,000 idle streams (MB)", "<= 256", "BenchmarkIdleStreams", "rss-mb")
	row("  per idle stream (kB)", "<= 42", "BenchmarkIdleStreams", "kB-per-stream")
	print ""
	print "Data at scale (issue 11), 2.2M messages of 1,006 people (ratios: median of five blocks of alternated requests):"
	printf "| %-52s | %-8s | %-9s |\n", "figure", "target", "measured"
	h = "BenchmarkHistoryAtScale/"
	row("search 1% word, 1M-message person, p50 (ms)", "<= 30", h "search-1%-word-ada-1M-messages", "p50-ms")
	row("search 1% word, 1k-conversation person, p50 (ms)", "<= 15", h "search-1%-word-cy-10k-messages", "p50-ms")
	row("search tool 1% word, 1M-message person, SQL p50 (ms)", "", h "search-tool-1%-word-ada-SearchWorkspace-SQL", "p50-ms")
	row("open 20k messages, branched / never-branched", "<= 1.2", h "open-20k-message-conversation", "ratio")
	row("sidebar with it, branched / never-branched", "<= 1.2", h "sidebar-with-it-turn-counts", "ratio")
	row("stream update SQL, branched, p50 (ms)", "<= 2", h "stream-update-SQL-ExchangeTail", "a-p50-ms")
	row("  branched / never-branched", "<= 1.2", h "stream-update-SQL-ExchangeTail", "ratio")
	row("open 2,000 messages, page / its SQL", "<= 1.5", h "open-2000-message-conversation", "ratio")
	row("  the page, p50 (ms)", "", h "open-2000-message-conversation", "a-p50-ms")
	row("load 40 earlier messages of it, p50 (ms)", "", h "load-earlier-messages-2000-message-conversation", "p50-ms")
}
