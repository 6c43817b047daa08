package io.dlock;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

/**
 * Marks a lock operation that blocks its caller: before it returns, it waits for Redis to answer, or for the lock to
 * be free (or both). Do not call it where blocking is not allowed (a Redis I/O thread, an event loop, a
 * {@link LockEventListener}).
 *
 * <p>Every such method has an <em>async twin</em> that never blocks: the method named {@link #async()}, or, when that
 * is empty, this method's name followed by {@code Async}; it takes the same parameters and returns a
 * {@link java.util.concurrent.CompletableFuture} of this method's result ({@code CompletableFuture<Void>} for
 * {@code void}, the boxed type for a primitive), which fails where this method throws. The API's tests check this for
 * every interface of the API that has asynchronous methods.
 *
 * <p>Not marked, though they wait too: the client's life cycle ({@link LockClient#connect}, {@link LockClient#create},
 * {@link LockClient#close()}), which is not a lock operation.
 */
@Documented
@Retention(RetentionPolicy.RUNTIME)
@Target(ElementType.METHOD)
public @interface Blocking {

    /**
     * The name of the async twin when it is not this method's name followed by {@code Async}; for example
     * {@code lockInterruptibly}'s twin is {@code lockAsync}, whose wait ends when its future is cancelled (the async
     * form of an interrupt).
     *
     * @return the twin's name, or empty for the default name
     */
    String async() default "";
}
