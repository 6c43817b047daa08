-- Fragment server_now_ms: the Redis server's clock.
--
-- server_now_ms() returns the server's time (TIME) in epoch milliseconds, the one clock by which dlock writes and
-- judges permit expiries (never a client's wall clock). Needs effects replication of scripts (the default since
-- Redis 5; the only mode since 7), so replicas receive the resulting ZADD, never a second reading of the clock.
--
-- Wire protocol: docs/protocol.md §13.2 (the scores of the permit table).
local function server_now_ms()
    local t = redis.call('time')
    return tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
end
