package io.dlock.internal.semaphore;

import io.dlock.internal.script.LuaScript;

/** The semaphores' scripts (docs/protocol.md §13), loaded once per JVM. */
final class SemaphoreScripts {
    /** Plain semaphore: take permits if available. */
    static final LuaScript SEM_ACQUIRE = LuaScript.load("sem_acquire");
    /** Plain semaphore: give back what one acquire attempt took, by its grant mark. */
    static final LuaScript SEM_GIVE_BACK = LuaScript.load("sem_give_back");
    /** Plain semaphore: add, set, try-set, drain, delete. */
    static final LuaScript SEM_UPDATE = LuaScript.load("sem_update");
    /** Leased semaphore: take one permit under a new id. */
    static final LuaScript PES_ACQUIRE = LuaScript.load("pes_acquire");
    /** Leased semaphore: give one permit back by id. */
    static final LuaScript PES_RELEASE = LuaScript.load("pes_release");
    /** Leased semaphore: release one permit and hand its place to a waiter of this client under a fresh id. */
    static final LuaScript PES_HAND_ON = LuaScript.load("pes_hand_on");
    /** Leased semaphore: extend live permits' leases. */
    static final LuaScript PES_RENEW = LuaScript.load("pes_renew");
    /** Leased semaphore: reclaim expired permits, then read or change the count. */
    static final LuaScript PES_UPDATE = LuaScript.load("pes_update");

    private SemaphoreScripts() {
    }
}
