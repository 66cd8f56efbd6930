-- wrk script of scripts/bench-events.sh: follows GET /api/v1/events?size=1000
-- from the start of the feed to its end (the first empty page), one request
-- at a time, each with the `next` cursor of the answer before, and stops.
-- It measures equip and its database without a client's JSON parsing: the
-- cursor is cut out of the body with a pattern, and the events are counted
-- by their "sequence" members.
--   wrk -t1 -c1 -d30s -H "Authorization: ApiKey $KEY" -s follow_feed.lua \
--     http://127.0.0.1:PORT -- LABEL
-- Prints one Markdown row: | LABEL | events | pages | seconds | events/s |
-- "seconds" is the sum of the requests' latencies (one request at a time,
-- so the walk's time less this script's own between requests; wrk itself
-- always runs for its -d duration, even after the walk has stopped). An
-- answer other than 200 ends the run and fails it; so does a walk that did
-- not reach the end within -d.

local threads = {}

function setup(thread)
  threads[#threads + 1] = thread
end

function init(args)
  label = args[1] or "feed"
  after = nil
  events = 0
  pages = 0
  failed = 0
  finished = false
end

function request()
  local path = "/api/v1/events?size=1000"
  if after ~= nil then path = path .. "&after=" .. after end
  return wrk.format("GET", path)
end

function response(status, headers, body)
  pages = pages + 1
  if status ~= 200 then
    failed = failed + 1
    wrk.thread:stop()
    return
  end
  local n = 0
  for _ in body:gmatch('"sequence":') do n = n + 1 end
  if n == 0 then
    finished = true
    wrk.thread:stop()
    return
  end
  events = events + n
  after = body:match('"next":"(ev[12]%.[%w%.]+)"')
end

function done(summary, latency, requests)
  local t = threads[1]
  local label = t:get("label")
  local n = t:get("events")
  local pages = t:get("pages")
  local failed = t:get("failed")
  local finished = t:get("finished")
  local secs = latency.mean * summary.requests / 1e6
  if failed > 0 or not finished then
    io.write(string.format("| %s | FAILED: %d answers not 200, end reached: %s | | | |\n",
      label, failed, tostring(finished)))
    os.exit(1)
  end
  io.write(string.format("| %s | %d | %d | %.2f | %.0f |\n", label, n, pages, secs, n / secs))
end
