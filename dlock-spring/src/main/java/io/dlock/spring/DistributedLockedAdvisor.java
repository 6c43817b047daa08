package io.dlock.spring;

import io.dlock.LockClient;
import org.aopalliance.aop.Advice;
import org.springframework.aop.Pointcut;
import org.springframework.aop.PointcutAdvisor;
import org.springframework.beans.factory.BeanFactory;
import org.springframework.beans.factory.BeanFactoryAware;
import org.springframework.beans.factory.DisposableBean;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.beans.factory.SmartInitializingSingleton;
import org.springframework.beans.factory.config.ConfigurableBeanFactory;
import org.springframework.core.Ordered;

import java.util.List;
import java.util.Objects;
import java.util.function.Supplier;

/**
 * The whole {@link DistributedLocked}, {@link DistributedConcurrencyLimit} and {@link LeaderOnly} support: a
 * {@link PointcutAdvisor} that an auto-proxy creator of the application context applies to every bean with an
 * annotated method ({@code @LeaderOnly} methods also need a {@link LeaderElections} bean). Declare it as a bean (or use
 * {@link EnableDistributedLocking}, or the Spring Boot auto-configuration, which do), ideally with
 * {@code @Role(BeanDefinition.ROLE_INFRASTRUCTURE)} so that the infrastructure auto-proxy creator of
 * {@code @EnableTransactionManagement} and Spring Boot applies it too.
 *
 * <p><b>Order.</b> {@link #DEFAULT_ORDER} is just ahead of {@code @Transactional}'s default
 * ({@link Ordered#LOWEST_PRECEDENCE}): the lock is taken before the transaction begins and released after it has
 * committed or rolled back, so the next holder sees the committed data. {@code @Async} (whose advisor goes before all
 * others) hands the call to its executor first, so the lock is taken on the executor's thread. {@link #setOrder}
 * changes it.
 *
 * <p><b>Bean factory.</b> When the advisor is a bean, its bean factory resolves {@code ${...}} placeholders in the
 * annotation's attributes and {@code @bean} references in lock names.
 *
 * <p><b>Lifecycle.</b> On {@link #destroy()} no new minimum-hold release is scheduled; those already scheduled are
 * still sent when due (see the README). The {@link LockClient} is not closed: it belongs to the application.
 *
 * <p>Thread-safe once configured.
 */
public class DistributedLockedAdvisor
        implements PointcutAdvisor, Ordered, BeanFactoryAware, SmartInitializingSingleton, DisposableBean {

    /** {@link Ordered#LOWEST_PRECEDENCE} − 100: outside {@code @Transactional} and {@code @Cacheable} by default. */
    public static final int DEFAULT_ORDER = Ordered.LOWEST_PRECEDENCE - 100;

    private final AnnotatedMethods<DistributedLocked, LockedMethod> locked =
            new AnnotatedMethods<>(DistributedLocked.class, LockedMethod::parse, LockedMethod::warning);
    private final AnnotatedMethods<DistributedConcurrencyLimit, LimitedMethod> limited =
            new AnnotatedMethods<>(DistributedConcurrencyLimit.class, LimitedMethod::parse, limit -> null);
    private final MinimumHoldReleaser releaser = new MinimumHoldReleaser();
    private final AnnotatedMethods<LeaderOnly, LeaderOnlyMethod> leaderOnly =
            new AnnotatedMethods<>(LeaderOnly.class, LeaderOnlyMethod::parse, leader -> null);
    private final LockedMethodPointcut pointcut = new LockedMethodPointcut(List.of(leaderOnly, locked, limited));
    private final LockedMethodInterceptor locker;
    private final DlockMethodInterceptor interceptor;
    private volatile int order = DEFAULT_ORDER;
    /** The context's {@link LeaderElections}, found through the bean factory on first use. */
    private volatile Supplier<LeaderElections> leaderElections = DistributedLockedAdvisor::noLeaderElections;

    /**
     * @param client the client whose locks the annotated methods take; not closed by the advisor
     * @throws NullPointerException when {@code client} is null
     */
    public DistributedLockedAdvisor(LockClient client) {
        this(constant(client));
    }

    /**
     * For a client resolved on first use (e.g. {@code ObjectProvider<LockClient>::getObject}), so that creating the
     * advisor, which happens early in a context's start-up, does not create the client.
     *
     * @param client asked on each locked call; must return the same client every time and not null
     */
    public DistributedLockedAdvisor(Supplier<? extends LockClient> client) {
        Objects.requireNonNull(client, "client");
        Supplier<LockClient> checked = () -> Objects.requireNonNull(client.get(),
                "the LockClient supplier of DistributedLockedAdvisor returned null");
        this.locker = new LockedMethodInterceptor(checked, locked, releaser);
        LeaderOnlyInterceptor leader = new LeaderOnlyInterceptor(() -> leaderElections.get());
        this.interceptor = new DlockMethodInterceptor(leaderOnly, leader, limited,
                new LimitedMethodInterceptor(checked), locker);
    }

    private static Supplier<LockClient> constant(LockClient client) {
        Objects.requireNonNull(client, "client");
        return () -> client;
    }

    @Override
    public Pointcut getPointcut() {
        return pointcut;
    }

    @Override
    public Advice getAdvice() {
        return interceptor;
    }

    @Override
    public int getOrder() {
        return order;
    }

    /** @param order the advisor's precedence (lower runs first, i.e. further outside); see the class comment */
    public void setOrder(int order) {
        this.order = order;
    }

    @Override
    public void setBeanFactory(BeanFactory beanFactory) {
        interceptor.beanFactory(beanFactory);
        if (beanFactory instanceof ConfigurableBeanFactory configurable) {
            locked.placeholders(configurable::resolveEmbeddedValue);
            limited.placeholders(configurable::resolveEmbeddedValue);
            leaderOnly.placeholders(configurable::resolveEmbeddedValue);
        }
        ObjectProvider<LeaderElections> provider = beanFactory.getBeanProvider(LeaderElections.class);
        leaderElections = new Supplier<>() {
            private volatile LeaderElections found;

            @Override
            public LeaderElections get() {
                LeaderElections elections = found;
                if (elections == null) {
                    elections = provider.getIfAvailable(DistributedLockedAdvisor::noLeaderElections);
                    found = elections;
                }
                return elections;
            }
        };
    }

    private static LeaderElections noLeaderElections() {
        throw new IllegalStateException("@LeaderOnly methods need a LeaderElections bean in the application "
                + "context: declare one (new LeaderElections(lockClient)), or use dlock-spring-boot-starter, which "
                + "declares it from the dlock.leader.elections.* properties");
    }

    /**
     * Resolves the client once every singleton exists, so that a context without a {@link LockClient} bean fails at
     * start-up rather than on the first locked call; likewise the {@link LeaderElections} bean when a
     * {@link LeaderOnly} method exists, to which it adds the elections those methods name (before the registry
     * starts).
     */
    @Override
    public void afterSingletonsInstantiated() {
        locker.client();
        List<LeaderOnlyMethod> leaders = leaderOnly.parsed();
        if (!leaders.isEmpty()) {
            LeaderElections elections = leaderElections.get();
            leaders.forEach(leader -> elections.declare(leader.election()));
        }
    }

    /** Stops taking minimum-hold releases; scheduled ones are still sent when due. Never blocks. */
    @Override
    public void destroy() {
        releaser.shutdown();
    }

    /** @return minimum-hold releases scheduled and not yet sent (for tests and diagnostics) */
    int pendingReleases() {
        return releaser.pending();
    }

    @Override
    public String toString() {
        return "DistributedLockedAdvisor[order=" + order + "]";
    }
}
