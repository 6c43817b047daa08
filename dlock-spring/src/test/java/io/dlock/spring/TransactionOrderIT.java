package io.dlock.spring;

import io.dlock.LockClient;
import io.dlock.redisprocess.RedisServer;
import io.dlock.testkit.RedisExtension;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.springframework.context.annotation.AnnotationConfigApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.context.annotation.Import;
import org.springframework.transaction.TransactionDefinition;
import org.springframework.transaction.annotation.EnableTransactionManagement;
import org.springframework.transaction.annotation.Transactional;
import org.springframework.transaction.support.AbstractPlatformTransactionManager;
import org.springframework.transaction.support.DefaultTransactionStatus;

import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

import static org.assertj.core.api.Assertions.assertThat;

/** With the default order, the lock is taken before the transaction begins and released after it commits. */
@ExtendWith(RedisExtension.class)
class TransactionOrderIT {

    /**
     * A transaction manager without a resource that records, at begin and at commit, whether the lock is held in
     * Redis (seen by another client).
     */
    public static final class LockObservingTransactionManager extends AbstractPlatformTransactionManager {
        private static final long serialVersionUID = 1L;
        final transient List<String> events = new CopyOnWriteArrayList<>();
        transient LockClient observer;

        @Override
        protected Object doGetTransaction() {
            return new Object();
        }

        @Override
        protected void doBegin(Object transaction, TransactionDefinition definition) {
            events.add("begin, locked=" + observer.getLock("ledger").isLocked());
        }

        @Override
        protected void doCommit(DefaultTransactionStatus status) {
            events.add("commit, locked=" + observer.getLock("ledger").isLocked());
        }

        @Override
        protected void doRollback(DefaultTransactionStatus status) {
            events.add("rollback, locked=" + observer.getLock("ledger").isLocked());
        }
    }

    public static class Ledger {
        @Transactional
        @DistributedLocked(name = "ledger")
        public void post() {
        }
    }

    @Configuration(proxyBeanMethods = false)
    @EnableTransactionManagement
    @EnableDistributedLocking
    @Import(Ledger.class)
    public static class LedgerConfig {
        @Bean
        public LockObservingTransactionManager transactionManager() {
            return new LockObservingTransactionManager();
        }
    }

    @Test
    void theLockSurroundsTheTransaction(RedisServer redis, LockClient observer) {
        try (Instances instances = new Instances(redis.uri())) {
            AnnotationConfigApplicationContext context = instances.start(List.of(), LedgerConfig.class);
            LockObservingTransactionManager transactions = context.getBean(LockObservingTransactionManager.class);
            transactions.observer = observer;
            context.getBean(Ledger.class).post();
            assertThat(transactions.events).containsExactly("begin, locked=true", "commit, locked=true");
            assertThat(observer.getLock("ledger").isLocked()).isFalse();
        }
    }
}
