-- Fragment server_now_ms: the Redis server's clock.
--
-- server_now_ms() returns the server's time (TIME) in epoch milliseconds, the one clock by which dlock writes and
-- judges permit expiries (never a client's wall clock). Needs effects replication of scripts (the default since
-- Redis 5; the only mode since 7), so replicas receive the resulting ZADD, never a second reading of the clock.
--
-- Used for the permit table's scores (docs/protocol.md §13.2) and the read-write lock's writer marks (§4.1).
local function server_now_ms()
    local t = redis.call('time')
    return tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
end
