-- Fragment permit_id: converts a permit id between the hex form clients pass and the raw form Redis stores.
--
-- permit_id(hex) returns the 16 raw bytes that the 32 lower-case hex digits `hex` stand for (the member Redisson's
-- permit-expirable semaphore stores); the client checks the form before sending it.
--
-- Wire protocol: docs/protocol.md §13.2 (members of the permit table are the raw 16 bytes, as Redisson writes them).
local function permit_id(hex)
    return (string.gsub(hex, '..', function(pair)
        return string.char(tonumber(pair, 16))
    end))
end
