-- wrk script of scripts/bench-events.sh: PATCH /api/v1/inventory/{id} of
-- distinct items, each request a new description (so every PATCH changes
-- the item and, with events, records one inventory.item.updated).
--   wrk -t2 -c16 -d15s -H "Authorization: ApiKey $KEY" -s patch_items.lua \
--     http://127.0.0.1:PORT -- IDS_FILE RUN_TAG THREADS
-- IDS_FILE holds one item id a line. Thread t of n sends ids t, t+n, t+2n, ...
-- (wrapping at the end of the file), so no two requests of a run touch the
-- same item until the file has been walked once.

local next_tid = 1

function setup(thread)
  thread:set("tid", next_tid)
  next_tid = next_tid + 1
end

function init(args)
  ids = {}
  for line in io.lines(args[1]) do
    if #line > 0 then ids[#ids + 1] = line end
  end
  run = args[2] or "r"
  step = tonumber(args[3] or "2")
  sent = 0
  wrk.method = "PATCH"
  wrk.headers["Content-Type"] = "application/json"
end

function request()
  local idx = ((sent * step + tid - 1) % #ids) + 1
  sent = sent + 1
  local body = '{"description":"bench ' .. run .. ' t' .. tid .. ' #' .. sent .. '"}'
  return wrk.format("PATCH", "/api/v1/inventory/" .. ids[idx], nil, body)
end
