-- wrk script: POST one morphir.backend.generate per request, as the reference host's
-- HttpChannel would (one JSON-RPC request per POST), and report p50/p99 and errors as JSON.
--   wrk -t2 -c16 -d10s -s deploy/generate.lua http://127.0.0.1:8080/
wrk.method = "POST"
wrk.headers["Content-Type"] = "application/json"
wrk.headers["Accept"] = "application/json"
wrk.body = '{"jsonrpc":"2.0","id":0,"method":"morphir.backend.generate","params":{"ir":{"formatVersion":3,"distribution":["Library",[["acme"]],[],{"modules":[]}]},"target":"echo","options":{}}}'

-- Each wrk thread runs its own Lua state: counters are summed from the threads in done().
local threads = {}
function setup(thread) table.insert(threads, thread) end

failed = 0
function response(status, headers, body)
  if status ~= 200 or not string.find(body, '"success":true', 1, true) then failed = failed + 1 end
end

function done(summary, latency, requests)
  local bad = 0
  for _, thread in ipairs(threads) do bad = bad + thread:get("failed") end
  io.write(string.format('WRK_JSON {"requests":%d,"seconds":%.3f,"p50_us":%d,"p99_us":%d,"non2xx":%d,"socket_errors":%d,"bad_answers":%d}\n',
    summary.requests, summary.duration / 1e6, latency:percentile(50), latency:percentile(99),
    summary.errors.status, summary.errors.connect + summary.errors.read + summary.errors.write + summary.errors.timeout, bad))
end
