-- wrk's script for benchmarks/mcp/exactly-once and scripts/http-instructions: each request a
-- `tools/call` of `add_numbers` with an id of its own (thread and count), in a session
-- (MCP_SESSION) or stateless, in the protocol MCP_PROTOCOL, for as long as wrk runs. Every
-- answer is checked: status 200, and a JSON-RPC result. What is counted is printed at the end.

local threads = {}

function setup(thread)
    thread:set("tid", #threads + 1)
    table.insert(threads, thread)
end

function init(args)
    sent = 0
    answered = 0
    bad = 0
    local protocol = os.getenv("MCP_PROTOCOL") or "2025-11-25"
    modern = protocol >= "2026-07-28"
    wrk.method = "POST"
    wrk.headers["Content-Type"] = "application/json"
    wrk.headers["Accept"] = "application/json, text/event-stream"
    wrk.headers["MCP-Protocol-Version"] = protocol
    local session = os.getenv("MCP_SESSION") or ""
    if session ~= "" then
        wrk.headers["Mcp-Session-Id"] = session
    end
    if modern then
        wrk.headers["Mcp-Method"] = "tools/call"
        wrk.headers["Mcp-Name"] = "add_numbers"
    end
end

function request()
    sent = sent + 1
    local id = tid * 1000000000 + sent
    local meta = ""
    if modern then
        meta = ',"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28",' ..
            '"io.modelcontextprotocol/clientCapabilities":{}}'
    end
    local body = '{"jsonrpc":"2.0","id":' .. id .. ',"method":"tools/call","params":' ..
        '{"name":"add_numbers","arguments":{"a":' .. sent .. ',"b":1}' .. meta .. '}}'
    return wrk.format(nil, nil, nil, body)
end

function response(status, headers, body)
    answered = answered + 1
    if status ~= 200 or not string.find(body, '"result"', 1, true)
        or string.find(body, '"isError":true', 1, true) then
        bad = bad + 1
        if bad <= 3 then
            io.stderr:write("bad answer: " .. status .. " " .. body .. "\n")
        end
    end
end

function done(summary, latency, requests)
    local answered_all, bad_all = 0, 0
    for _, thread in ipairs(threads) do
        answered_all = answered_all + thread:get("answered")
        bad_all = bad_all + thread:get("bad")
    end
    local timeouts = summary.errors.timeout
    io.write(string.format(
        "calls answered: %d; not a result: %d; timed out: %d; socket errors: %d; %.0f/s; p50 %.0f us; p99 %.0f us\n",
        answered_all, bad_all, timeouts,
        summary.errors.connect + summary.errors.read + summary.errors.write,
        answered_all / (summary.duration / 1e6),
        latency:percentile(50), latency:percentile(99)))
end
