-- Fragment lock_shaped: whether a hash is a lock, of any kind, by its fields and values alone.
--
-- lock_fields_shaped(all) takes a hash's fields and values as HGETALL answers them (field, value, field, value...)
-- and returns true when every field is one a lock writes, false otherwise:
--   * an owner field "<uuid>:<integer>" (client id: a UUID of hex digits and dashes, either case; owner id: a decimal
--     integer, negative for dlock's LockOwner views) whose value is a decimal integer, the hold count;
--   * "mode" with the value "read" or "write" (a read-write lock);
--   * a writer field "<uuid>:<integer>:write" with an integer count, only beside a "mode" field.
-- lock_shaped(hash) is the same for the hash `hash` (which must be a hash): it reads the whole hash (one HGETALL; a
-- lock has one field per holder). A script that has read the hash already passes that reply to lock_fields_shaped.
--
-- Invariant: a hash that anything but a lock wrote (a shopping cart, a session, a counter keyed "user:42") is never
-- taken for a lock, so no script deletes it as one; every hash dlock or Redisson writes for a lock passes.
-- Wire protocol: the owner fields of docs/protocol.md §1.1, the hash layouts of §2.1, §3.1 and §4.1.
local function lock_fields_shaped(all)
    local uuid = '^%x%x%x%x%x%x%x%x%-%x%x%x%x%-%x%x%x%x%-%x%x%x%x%-%x%x%x%x%x%x%x%x%x%x%x%x:%-?%d+$'
    local has_mode, has_writer = false, false
    for i = 1, #all, 2 do
        local field, value = all[i], all[i + 1]
        if field == 'mode' then
            if value ~= 'read' and value ~= 'write' then
                return false
            end
            has_mode = true
        else
            local owner = field
            if string.sub(field, -6) == ':write' then
                owner = string.sub(field, 1, -7)
                has_writer = true
            end
            if not string.find(owner, uuid) or not string.find(value, '^%-?%d+$') then
                return false
            end
        end
    end
    return has_mode or not has_writer
end

local function lock_shaped(hash)
    return lock_fields_shaped(redis.call('hgetall', hash))
end
