-- wrk script of scripts/bench-events.sh: follows GET /api/v1/events?size=1000
-- from the start of the feed to its end (the first empty page), one request
-- at a time, each with the `next` cursor of the answer before, and stops.
-- It measures equip and its database without a client's JSON parsing: the
-- cursor is cut out of the body with a pattern, and the events are counted
-- by their "sequence" members.
--   wrk -t1 -c1 -d120s -H "Authorization: ApiKey $KEY" -s follow_feed.lua \
--     http://127.0.0.1:PORT -- LABEL
-- Prints one Markdown row: | LABEL | events | pages | seconds | events/s |
-- (seconds from the first request to the empty page; an answer other than
-- 200 is counted and reported, and ends the run).

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
    wrk.thread:stop()
    return
  end
  events = events + n
  after = body:match('"next":"(ev1%.%d+)"')
end

function done(summary, latency, requests)
  local t = threads[1]
  local label = t:get("label")
  local n = t:get("events")
  local pages = t:get("pages")
  local failed = t:get("failed")
  -- summary.duration is the whole run in microseconds; the run ends at the
  -- empty page, so it is the walk's wall time.
  local secs = summary.duration / 1e6
  if failed > 0 then
    io.write(string.format("| %s | FAILED: %d answers not 200 | | | |\n", label, failed))
    os.exit(1)
  end
  io.write(string.format("| %s | %d | %d | %.2f | %.0f |\n", label, n, pages, secs, n / secs))
end
