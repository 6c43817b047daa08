-- Watchdog: renew many read holds of this client in one call, or read them back (fixed-lease holds, whose timeout
-- keys another client may have changed: a PEXPIRE).
--
-- KEYS[2i-1]  the lock hash of hold i
-- KEYS[2i]    the root of its per-hold timeout keys: "{NAME}", or "NAME" when NAME carries its own hash tag
-- ARGV[1]     the watchdog lease in ms; 0 to change nothing and only read
-- ARGV[i+1]   the reader field of hold i, "<client id>:<owner id>" (always one of this client's)
--
-- Returns  a list with, for each i, when at least one timeout key of the field was still live, the longest PTTL among
--          them after the call (each live one now lasts at least ARGV[1] more ms; -1 when one has no TTL), 0 when none
--          was: the owner has lost its read holds.
--
-- Invariants: only this client's holds are extended, never shortened, never brought back; afterwards each touched
-- hash's TTL is the longest PTTL of its live read holds (all owners), or the hash's own PTTL if that is longer while
-- a writer (this owner) holds it. Expired holds of crashed clients therefore stop counting.
-- Wire protocol: Redisson's ReadLockTask (docs/protocol.md §1.6, 4.4.0+ variant that renews only its own
-- fields).

--#include longest_live_read

local lease = tonumber(ARGV[1])
local renewed = {}
local touched = {}
local seen = {}
for i = 1, #KEYS / 2 do
    local hash, root, field = KEYS[2 * i - 1], KEYS[2 * i], ARGV[i + 1]
    local count = redis.pcall('hget', hash, field)
    count = type(count) == 'string' and tonumber(count) or 0
    local alive = 0
    for n = count, 1, -1 do
        local key = root .. ':' .. field .. ':rwlock_timeout:' .. n
        local pttl = redis.call('pttl', key)
        if pttl > 0 and pttl < lease then
            redis.call('pexpire', key, lease)
            pttl = lease
        end
        if pttl == -1 or alive == -1 then
            alive = -1
        elseif pttl > alive then
            alive = pttl
        end
    end
    renewed[i] = alive
    if alive ~= 0 and lease > 0 and not seen[hash] then
        seen[hash] = true
        touched[#touched + 1] = i
    end
end
for _, i in ipairs(touched) do
    local hash, root = KEYS[2 * i - 1], KEYS[2 * i]
    local ttl = longest_live_read(hash, root)
    if redis.call('hget', hash, 'mode') == 'write' then
        ttl = math.max(ttl, redis.call('pttl', hash))
    end
    if ttl > 0 then
        redis.call('pexpire', hash, ttl)
    end
end
return renewed
