-- Leader election: read who leads (LockClient.inspectLeader, observeLeader; docs/protocol.md §14.4). Read-only.
--
-- KEYS[1]  the election's lock hash (its name)
-- KEYS[2]  its leader record, dlock_leader:{NAME}
--
-- Returns  {0, i, type} when KEYS[i] exists but is not a hash: nothing is read further (the client names the key);
--          {1} when nobody leads: no record, or a record whose holder no longer holds the lock (released, run out,
--              removed by a forceUnlock; a record outlives its hold by at most the hold's last TTL);
--          {2, holder, client, host, pid, application, epoch, since, pttl}: the record's fields, with the PTTL of the
--              lock's hash in ms (the leader's time to live by Redis's count).
--
-- Invariant: a leader is answered only while its hold is in the lock's hash, read in the same atomic step as its
-- record. Wire protocol: dlock only (the record's fields: fenced_acquire.lua).
--#include wrong_type

for i = 1, 2 do
    local key_type = not_a_hash(KEYS[i])
    if key_type then
        return {0, i, key_type}
    end
end
-- HGETALL, not HMGET: the commands of the README's least ACL rule suffice
local all = redis.call('hgetall', KEYS[2])
local record = {}
for i = 1, #all, 2 do
    record[all[i]] = all[i + 1]
end
local holder = record['holder']
if not holder or redis.call('hexists', KEYS[1], holder) == 0 then
    return {1}
end
return {2, holder, record['client'] or '', record['host'] or '', record['pid'] or '-1', record['application'] or '',
        record['epoch'] or '0', record['since'] or '0', redis.call('pttl', KEYS[1])}
