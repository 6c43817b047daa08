package io.dlock.internal.script;

/** The scripts of the reentrant lock family, loaded once per JVM. */
public final class Scripts {
    public static final LuaScript LOCK_ACQUIRE = LuaScript.load("lock_acquire");
    /** Takes several plain locks of one hash slot at once, all or none (multi-lock, docs/protocol.md §12). */
    public static final LuaScript LOCK_ACQUIRE_ALL = LuaScript.load("lock_acquire_all");
    public static final LuaScript LOCK_RELEASE = LuaScript.load("lock_release");
    public static final LuaScript LOCK_FORCE_RELEASE = LuaScript.load("lock_force_release");
    public static final LuaScript LOCK_RENEW = LuaScript.load("lock_renew");
    /** Moves a lock between two owners of one client in one call (see {@code LocalCohort}). */
    public static final LuaScript LOCK_HANDOFF = LuaScript.load("lock_handoff");
    public static final LuaScript INSPECT = LuaScript.load("inspect");
    /** Writes, refreshes or removes a client's card, who it is (holder identity, docs/protocol.md §6.1). */
    public static final LuaScript CLIENT_CARD = LuaScript.load("client_card");
    /** Extends one owner's hold of a lock hash: plain, fenced and fair locks (docs/protocol.md §1.8). */
    public static final LuaScript LOCK_EXTEND = LuaScript.load("lock_extend");

    // fenced lock (docs/protocol.md §5.1): the reentrant lock's release, renewal and force scripts, plus this
    public static final LuaScript FENCED_ACQUIRE = LuaScript.load("fenced_acquire");
    /** Reads a leader election's record and checks it against the lock (docs/protocol.md §14.4). */
    public static final LuaScript LEADER_READ = LuaScript.load("leader_read");

    // read-write lock (docs/protocol.md §4)
    public static final LuaScript RWLOCK_READ_ACQUIRE = LuaScript.load("rwlock_read_acquire");
    public static final LuaScript RWLOCK_READ_RELEASE = LuaScript.load("rwlock_read_release");
    public static final LuaScript RWLOCK_READ_RENEW = LuaScript.load("rwlock_read_renew");
    public static final LuaScript RWLOCK_WRITE_ACQUIRE = LuaScript.load("rwlock_write_acquire");
    public static final LuaScript RWLOCK_WRITE_RELEASE = LuaScript.load("rwlock_write_release");
    public static final LuaScript RWLOCK_WRITE_HANDOFF = LuaScript.load("rwlock_write_handoff");
    public static final LuaScript RWLOCK_WITHDRAW_MARK = LuaScript.load("rwlock_withdraw_mark");
    public static final LuaScript RWLOCK_FORCE_RELEASE = LuaScript.load("rwlock_force_release");
    public static final LuaScript RWLOCK_STATE = LuaScript.load("rwlock_state");
    public static final LuaScript RWLOCK_READ_EXTEND = LuaScript.load("rwlock_read_extend");
    public static final LuaScript RWLOCK_WRITE_EXTEND = LuaScript.load("rwlock_write_extend");

    // fair lock (docs/protocol.md §3)
    public static final LuaScript FAIR_ACQUIRE = LuaScript.load("fair_acquire");
    public static final LuaScript FAIR_RELEASE = LuaScript.load("fair_release");
    public static final LuaScript FAIR_GIVE_UP = LuaScript.load("fair_give_up");
    public static final LuaScript FAIR_FORCE_RELEASE = LuaScript.load("fair_force_release");

    private Scripts() {
    }
}
