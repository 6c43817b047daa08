package io.dlock.cli;

import io.dlock.DistributedLock;
import io.dlock.LockClient;
import io.dlock.LockInfo;

/** Reentrancy: the holder locks twice (hold count 2), another client cannot get in, two unlocks free the lock. */
final class ReentrancyScenario extends DemoScenario {

    ReentrancyScenario() {
        super("Reentrancy: the holder takes the lock again", "reentrant");
    }

    @Override
    boolean tell(ScenarioContext context, String name) {
        LockClient a = context.newClient(null);
        LockClient b = context.newClient(null);
        DistributedLock lock = a.getLock(name);
        lock.lock();
        lock.lock();
        LockInfo info = a.inspect(name);
        context.say("lock() twice by one thread    -> " + LockInfoFormat.summary(info));
        context.check("hold count 2", info.holders().size() == 1 && info.holders().get(0).holdCount() == 2);
        context.check("another client's tryLock() fails meanwhile", !b.getLock(name).tryLock());
        lock.unlock();
        info = a.inspect(name);
        context.say("unlock() once                 -> " + LockInfoFormat.summary(info));
        context.check("still held after one unlock (hold count 1)", info.holders().size() == 1
                && info.holders().get(0).holdCount() == 1 && lock.isHeldByCurrentThread());
        lock.unlock();
        info = a.inspect(name);
        context.say("unlock() again                -> " + LockInfoFormat.summary(info));
        context.check("free after as many unlocks as locks", info.type() == LockInfo.Type.NONE);
        return true;
    }
}
