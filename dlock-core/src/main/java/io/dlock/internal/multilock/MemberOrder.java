package io.dlock.internal.multilock;

import io.dlock.DistributedLock;
import io.dlock.LockKind;
import io.dlock.internal.lock.RedisLocks;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Objects;

/**
 * Checks a multi-lock's members and puts them in the global order: by name, and for one read-write lock its write
 * side before its read side. Every client sorts the same way, so two multi-locks over the same locks always take
 * them in the same order and cannot deadlock.
 */
final class MemberOrder {
    private MemberOrder() {
    }

    /** A member and who it is. */
    record Member(DistributedLock lock, RedisLocks.Identity identity) {
        String describe() {
            return identity.kind() == LockKind.PLAIN ? identity.name()
                    : identity.name() + "(" + identity.kind() + ")";
        }
    }

    private static final Comparator<Member> ORDER = Comparator
            .comparing((Member m) -> m.identity().name())
            .thenComparing(m -> m.identity().kind() == LockKind.WRITE ? 0 : 1);

    /**
     * @param clientId the client the multi-lock belongs to
     * @return the members in acquisition order
     * @throws NullPointerException     when the list or a member is null (naming its position)
     * @throws IllegalArgumentException when the list is empty, a member is not a lock object of this client (a lock
     *                                  of another client, another implementation, a multi-lock), or a lock appears
     *                                  twice (one name twice, except the write and read sides of one read-write lock)
     */
    static List<Member> sorted(String clientId, List<? extends DistributedLock> locks) {
        Objects.requireNonNull(locks, "locks");
        if (locks.isEmpty()) {
            throw new IllegalArgumentException("a multi-lock needs at least one lock, got none");
        }
        List<Member> members = new ArrayList<>(locks.size());
        for (int i = 0; i < locks.size(); i++) {
            DistributedLock lock = Objects.requireNonNull(locks.get(i), "locks[" + i + "]");
            RedisLocks.Identity identity = RedisLocks.identify(lock);
            if (identity == null) {
                throw new IllegalArgumentException("multi-lock member locks[" + i + "] (" + lock + ") is not a lock "
                        + "of a dlock client (multi-locks cannot be nested; pass their members instead)");
            }
            if (!identity.clientId().equals(clientId)) {
                throw new IllegalArgumentException("multi-lock member locks[" + i + "] ('" + identity.name()
                        + "') belongs to another LockClient; a multi-lock takes the locks of its own client");
            }
            members.add(new Member(lock, identity));
        }
        members.sort(ORDER);
        for (int i = 1; i < members.size(); i++) {
            Member before = members.get(i - 1);
            Member member = members.get(i);
            if (before.identity().name().equals(member.identity().name())
                    && !(before.identity().kind() == LockKind.WRITE && member.identity().kind() == LockKind.READ)) {
                throw new IllegalArgumentException("multi-lock: lock '" + member.identity().name() + "' appears twice ("
                        + before.identity().kind() + " and " + member.identity().kind() + "); a name may appear "
                        + "once, or twice as the write and read sides of one read-write lock");
            }
        }
        return List.copyOf(members);
    }

    /** @return the multi-lock's name: {@code MultiLock[a, b(WRITE), c(FAIR)]} */
    static String describe(List<Member> members) {
        StringBuilder name = new StringBuilder("MultiLock[");
        for (int i = 0; i < members.size(); i++) {
            name.append(i == 0 ? "" : ", ").append(members.get(i).describe());
        }
        return name.append(']').toString();
    }
}
