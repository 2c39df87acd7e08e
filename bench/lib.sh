# lib.sh — helpers the bench scripts share (cpu-per-get.sh, edge-compare.sh,
# hit-ab.sh, hit-floor.sh, index-compare.sh, miss-compare.sh). Sourced after
# the script has defined log MESSAGE, which these use for what they report.

# free_port: prints a TCP port on 127.0.0.1 that was free a moment ago.
free_port() {
	python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1]); s.close()'
}

# wait_http URL [PID [LOG]]: waits up to 20 s for any HTTP answer from URL.
# With PID, it gives up as soon as that process has exited; with LOG, a
# failure prints the end of that file.
wait_http() {
	local url=$1 pid=${2:-} logf=${3:-}
	for _ in $(seq 200); do
		if [[ $(curl -s -o /dev/null -w '%{http_code}' "$url" || true) != 000 ]]; then
			return 0
		fi
		if [[ -n $pid ]] && ! kill -0 "$pid" 2>/dev/null; then
			log "process $pid exited before $url answered"
			break
		fi
		sleep 0.1
	done
	log "no answer from $url"
	if [[ -n $logf ]]; then
		log "the end of $logf:"
		tail -20 "$logf" >&2 || true
	fi
	return 1
}
