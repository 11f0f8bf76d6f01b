# Prints the chat engine's speed figures (issue 10) from `go test -bench` output as a table of
# figure, target and measured value. Input: the benchmark lines of make bench.
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
	row("relay ratio, 2,000 deltas 1 ms apart", "<= 1.05", "BenchmarkRelay/paced", "ratio")
	row("first text after the upstream's first delta (ms)", "<= 3", "BenchmarkRelay/fast", "first-text-ms")
	row("first text, paced upstream (ms)", "<= 3", "BenchmarkRelay/paced", "first-text-ms")
	row("any delta to the browser, p95 (ms)", "<= 150", "BenchmarkRelay/paced", "delta-p95-ms")
	row("chat POSTs/s, offline agent at delay 0", ">= 250", "BenchmarkChatPosts", "posts/s")
	row("  their p99 (ms)", "<= 50", "BenchmarkChatPosts", "p99-ms")
	row("RSS with 5,000 idle streams (MB)", "<= 256", "BenchmarkIdleStreams", "rss-mb")
	row("  per idle stream (kB)", "<= 42", "BenchmarkIdleStreams", "kB-per-stream")
}
