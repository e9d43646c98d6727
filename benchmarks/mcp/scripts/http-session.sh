# Sourced by the HTTP load scripts (exactly-once, http-instructions): the session handshake
# over curl, and a free port on 127.0.0.1.

# Waits until the server at $1 answers `initialize`; prints the session id it gave, if any.
begin() {
    local url="$1" headers
    for _ in $(seq 1 500); do
        headers="$(curl -s -D - -o /dev/null -X POST "$url" \
            -H 'Content-Type: application/json' -H 'Accept: application/json, text/event-stream' \
            -d '{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"wrk","version":"1"}}}' \
            2>/dev/null)" && break
        sleep 0.01
    done
    local session
    session="$(printf '%s' "$headers" | tr -d '\r' | awk -F': ' 'tolower($1)=="mcp-session-id"{print $2}')"
    curl -s -o /dev/null -X POST "$url" -H 'Content-Type: application/json' \
        -H 'Accept: application/json, text/event-stream' -H "Mcp-Session-Id: $session" \
        -H 'MCP-Protocol-Version: 2025-11-25' \
        -d '{"jsonrpc":"2.0","method":"notifications/initialized"}'
    printf '%s' "$session"
}

# A TCP port on 127.0.0.1 that is free now.
free_port() {
    python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'
}
