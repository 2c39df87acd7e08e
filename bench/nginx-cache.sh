# nginx-cache.sh — the nginx proxy_cache configuration the edge benchmarks
# compare the edge with (bench/edge-compare.sh, bench/miss-compare.sh), in
# one place so that their figures are for the same nginx. Sourced.

# nginx_cache_conf DIR ORIGIN_PORT PORT MAX_SIZE_GIB: prints the
# configuration of an nginx whose files live under DIR (cache in
# DIR/cache), listening on 127.0.0.1:PORT in front of the origin on
# 127.0.0.1:ORIGIN_PORT, with a cache of at most MAX_SIZE_GIB GiB.
nginx_cache_conf() {
	local dir=$1 oport=$2 port=$3 max_g=$4 user=""
	# Workers would otherwise run as nobody, who cannot write the cache
	# under a private directory tree.
	if [[ $(id -u) == 0 ]]; then user="user root;"; fi
	cat <<EOF
$user
worker_processes auto;
pid $dir/nginx.pid;
error_log $dir/error.log warn;
events { worker_connections 4096; }
http {
    access_log off;
    client_body_temp_path $dir/client_body;
    proxy_temp_path $dir/proxy;
    fastcgi_temp_path $dir/fastcgi;
    uwsgi_temp_path $dir/uwsgi;
    scgi_temp_path $dir/scgi;

    sendfile on;
    # tcp_nopush (TCP_CORK) stays off: with it, cache hits of 100 KiB
    # objects waited ~40 ms each for their last packet here (TTFB p50
    # 3.2 ms, TTLB p50 44.8 ms, 1,962 requests/s at a quarter of a CPU;
    # off: 17.1 ms and 3,584 requests/s). tcp_nodelay: no Nagle delay on
    # the last packet of a keep-alive response.
    tcp_nopush off;
    tcp_nodelay on;
    keepalive_timeout 120s;
    keepalive_requests 1000000;

    proxy_cache_path $dir/cache levels=1:2 keys_zone=edge:64m
                     max_size=${max_g}g inactive=7d use_temp_path=off;

    upstream origin {
        server 127.0.0.1:$oport;
        keepalive 128;
    }

    server {
        listen 127.0.0.1:$port backlog=4096;
        proxy_http_version 1.1;
        proxy_set_header Connection "";
        proxy_set_header Host \$http_host;
        proxy_buffering on;
        proxy_buffer_size 64k;
        proxy_buffers 32 64k;
        add_header X-Cache \$upstream_cache_status always;

        location / {
            proxy_pass http://origin;
            proxy_cache edge;
            proxy_cache_key \$uri;
            proxy_cache_valid 200 1h;
            proxy_cache_lock on;
            proxy_cache_lock_timeout 60s;
            proxy_cache_use_stale error timeout updating;
        }

        # Large objects in 1 MiB slices, as in docs/cdn.md.
        location ~ ^/[^/]+/edge/(10m|16m|50m)/ {
            slice 1m;
            proxy_pass http://origin;
            proxy_set_header Range \$slice_range;
            proxy_cache edge;
            proxy_cache_key \$uri\$slice_range;
            proxy_cache_valid 200 206 1h;
            proxy_cache_lock on;
            proxy_cache_lock_timeout 60s;
            proxy_cache_use_stale error timeout updating;
        }
    }
}
EOF
}
